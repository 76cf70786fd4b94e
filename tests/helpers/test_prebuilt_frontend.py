"""What the browser tests' one frontend build relies on in Reflex is still there.

``tests/helpers/prebuilt_frontend.py`` serves one build from many servers. It uses the
Reflex internals it lists in ``REFLEX_INTERNALS``, and the pages' rule that a
``localhost`` backend means the page's own host on the same port. A Reflex upgrade that
changes either fails here, in a second, rather than as every browser test failing.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from tests.helpers.prebuilt_frontend import REFLEX_INTERNALS


@pytest.mark.parametrize(("module", "attribute"), REFLEX_INTERNALS)
def test_every_reflex_internal_the_server_uses_exists(module, attribute):
    value = importlib.import_module(module)
    for name in attribute.split("."):
        value = getattr(value, name)
    assert value is not None


def test_the_production_backend_can_mount_the_built_frontend():
    from reflex.utils.exec import run_backend_prod

    assert "mount_frontend_compiled_app" in inspect.signature(run_backend_prod).parameters
    source = inspect.getsource(importlib.import_module("reflex.app"))
    assert "REFLEX_MOUNT_FRONTEND_COMPILED_APP.get()" in source
    assert "get_frontend_mount" in source


def test_a_localhost_backend_is_the_pages_own_host_on_the_same_port():
    import reflex_base

    state_js = Path(reflex_base.__file__).parent / ".templates" / "web" / "utils" / "state.js"
    source = state_js.read_text()
    names = re.search(r"SAME_DOMAIN_HOSTNAMES = \[([^\]]*)\]", source)
    assert names and '"localhost"' in names.group(1)
    rewrite = source[source.index("export const getBackendURL") :]
    rewrite = rewrite[: rewrite.index("\n};")]
    assert "endpoint.hostname = frontend_hostname" in rewrite
    # The port is cleared only behind https (a load balancer); over http it is kept.
    assert rewrite.count("endpoint.port") == 1
    assert 'window.location.protocol === "https:"' in rewrite
