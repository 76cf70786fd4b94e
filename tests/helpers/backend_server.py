"""The app's backend as production serves it, without the pages' build: seconds to start.

``reflex run --env prod --backend-only``: Granian serving the whole backend (the REST
API, ``/_upload``, the pages' event websocket, every ASGI middleware of
``prettyscore.py``) on 127.0.0.1, in its own process, with its own settings. The tests
that need the real server in front of them (a reverse proxy, a forged event, what the
server writes in its log) use it; the browser tests use ``app_server.running_app``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REDIS_SKIP_REASON, redis_url
from tests.helpers.app_server import (
    APP_SETTINGS,
    PROJECT_ROOT,
    VENV_BIN,
    AppServer,
    AppServerError,
    free_port,
    stop,
)

START_TIMEOUT_SECONDS = 120
#: The two servers every rule decided on the server is tested on, as in the browser tests.
SERVERS = ("sqlite-memory", "postgres-redis")


@contextlib.contextmanager
def backing_services(request, name: str) -> Iterator[tuple[str | None, str | None]]:
    """(database URL, Redis URL) of the server ``name``: none for "sqlite-memory" (a
    SQLite file, in-memory state); a new PostgreSQL database, dropped afterwards, and
    Redis for "postgres-redis" (a skip saying which is missing)."""
    if name == "sqlite-memory":
        yield None, None
        return
    if redis_url() is None:
        pytest.skip(REDIS_SKIP_REASON)
    databases = request.getfixturevalue("postgres_databases")
    database_url = databases.create()
    try:
        yield database_url, redis_url()
    finally:
        databases.drop(database_url)


def backend_environment(run_dir: Path, port: int, database_url: str, redis: str | None):
    """The developer's environment without any of the app's settings, and the server's."""
    env = {name: value for name, value in os.environ.items() if name not in APP_SETTINGS}
    env.update(
        {
            "PORT": str(port),
            "PUBLIC_URL": f"http://127.0.0.1:{port}",
            "DATA_DIR": str(run_dir / "data"),
            "DATABASE_URL": database_url,
            "SECRET_KEY": secrets.token_urlsafe(32),
            "GRANIAN_WORKERS": "1",
            "REFLEX_TELEMETRY_ENABLED": "false",
            "REFLEX_CHECK_LATEST_VERSION": "false",
            "REFLEX_WEB_WORKDIR": str(run_dir / "web"),
            "REFLEX_STATES_WORKDIR": str(run_dir / "states"),
            "REFLEX_UPLOADED_FILES_DIR": str(run_dir / "uploaded_files"),
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    if redis:
        env["REDIS_URL"] = redis
    return env


def _pings(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/ping", timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


@contextlib.contextmanager
def running_backend(
    name: str,
    run_dir: Path,
    *,
    database_url: str | None = None,
    redis_url: str | None = None,
    extra_env: dict[str, str] | None = None,
) -> Iterator[AppServer]:
    """Migrate the database, start the backend on a free port, yield it, stop it.

    ``database_url`` None means a SQLite file in ``run_dir``; ``extra_env`` sets the
    server's settings (rate limits, trusted proxies). Its log is ``server.log_path``.
    """
    (run_dir / "data").mkdir(parents=True, exist_ok=True)
    database_url = database_url or f"sqlite:///{run_dir / 'data' / 'prettyscore.db'}"
    port = free_port()
    env = {**backend_environment(run_dir, port, database_url, redis_url), **(extra_env or {})}
    server = AppServer(
        name=name,
        base_url=f"http://127.0.0.1:{port}",
        host="127.0.0.1",
        port=port,
        data_dir=run_dir / "data",
        database_url=database_url,
        redis_url=redis_url,
        log_path=run_dir / "backend.log",
        env=env,
    )
    with server.log_path.open("a") as log:
        subprocess.run(
            [str(VENV_BIN / "alembic"), "upgrade", "head"],
            cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, check=True,
        )  # fmt: skip
        command = ["run", "--env", "prod", "--backend-only", "--backend-port", str(port)]
        server.process = subprocess.Popen(
            [str(VENV_BIN / "reflex"), *command, "--backend-host", "127.0.0.1"],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            _wait_until_serving(server)
            yield server
        finally:
            stop(server)


def _wait_until_serving(server: AppServer) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while not _pings(server.port):
        if server.process.poll() is not None or time.monotonic() > deadline:
            stop(server)
            raise AppServerError(f"{server.name}: the backend did not start\n{server.log_tail()}")
        time.sleep(0.3)
