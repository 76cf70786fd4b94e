"""One frontend build for every test server of a run, and a server that serves it as is.

``reflex run --env prod --single-port`` compiles the pages and builds the frontend on
every start (a minute or more here), with ``PUBLIC_URL`` (the event socket, uploads and
ping) compiled into the build. The browser tests start many servers, so:

* ``build`` (``python -m tests.helpers.prebuilt_frontend build``) runs ``reflex export
  --frontend-only --no-zip`` once, with ``PUBLIC_URL=http://localhost:P``. Reflex's pages
  replace a ``localhost`` backend host with the page's own host name and keep the port
  (``getBackendURL`` in Reflex's ``state.js``), so a server on any loopback address
  (127.0.0.2, 127.0.0.3, ...: Linux routes all of 127/8 to ``lo``) on port P can serve the
  same build: the page it serves talks to that very server.
* ``serve`` (``python -m tests.helpers.prebuilt_frontend serve HOST PORT``) starts the
  production backend as ``reflex run --env prod --single-port`` would, with the built
  frontend mounted and nothing compiled or built. It does not go through ``reflex run``:
  that command rebuilds the frontend, and it refuses a port another loopback address
  already listens on.

This is the only test module that uses Reflex's internals; every one of them is named in
``REFLEX_INTERNALS`` and checked by ``tests/helpers/test_prebuilt_frontend.py``.
"""

from __future__ import annotations

import sys

#: What this module uses of Reflex beyond its command line: (module, attribute).
REFLEX_INTERNALS = (
    # Internal environment flags: production mode, no compile in the backend, and the
    # compiled frontend mounted by the backend (what `reflex run --single-port` sets).
    ("reflex_base.environment", "environment.REFLEX_ENV_MODE"),
    ("reflex_base.environment", "environment.REFLEX_SKIP_COMPILE"),
    ("reflex_base.environment", "environment.REFLEX_MOUNT_FRONTEND_COMPILED_APP"),
    # Starts Granian with the app, as `reflex run --env prod` does after its build.
    ("reflex.utils.exec", "run_backend_prod"),
)


def serve(host: str, port: int) -> None:
    """Serve the app and the frontend build in ``REFLEX_WEB_WORKDIR`` on ``host:port``.

    The environment is the server's (``PUBLIC_URL``, ``REFLEX_WEB_WORKDIR``, ...), set
    by ``tests.helpers.app_server``. ``FRONTEND_PORT``/``BACKEND_PORT``/``BACKEND_HOST``
    are Reflex's config variables, as ``reflex run`` passes them to its workers.
    """
    import os

    os.environ.update({"FRONTEND_PORT": str(port), "BACKEND_PORT": str(port), "BACKEND_HOST": host})
    from reflex.utils import exec as reflex_exec
    from reflex_base import constants
    from reflex_base.config import get_config
    from reflex_base.environment import environment

    environment.REFLEX_ENV_MODE.set(constants.Env.PROD)
    environment.REFLEX_SKIP_COMPILE.set(True)
    loglevel = get_config().loglevel.subprocess_level()
    # Sets REFLEX_MOUNT_FRONTEND_COMPILED_APP for the workers, then runs Granian.
    reflex_exec.run_backend_prod(host, port, loglevel, mount_frontend_compiled_app=True)


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    if command != "serve" or len(arguments) != 2:
        sys.exit("usage: python -m tests.helpers.prebuilt_frontend serve HOST PORT")
    serve(arguments[0], int(arguments[1]))
