"""Forged event names and forged error reports, sent to the real server.

A script may send the event socket any event name, ``POST /_upload`` naming any handler,
and Reflex's frontend exception event with any text. Each is sent here to the backend as
production serves it (``tests/helpers/backend_server.py``), on a socket of its own, and
the server's own log is read afterwards:

* ``setvar``, a private method and a handler that does not exist are refused with the
  generic error toast, and leave no traceback in the log;
* an upload to a handler that takes none is answered 400, not 500, without a traceback;
* an error report cannot start a line of the log, adds at most about 2 KB to it, and
  only the first 30 of a minute are logged.
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from reflex.state import FrontendEventExceptionState
from reflex_base.utils.format import format_event_handler

from prettyscore.accounts.form_state import AuthFormState
from prettyscore.accounts.state import AuthState
from prettyscore.core import messages
from prettyscore.core.log_text import MAX_LOGGED_CHARS
from prettyscore.ui.frontend_errors import REPORTS_PER_MINUTE
from prettyscore.web.browser_key import BROWSER_COOKIE
from tests.helpers.app_server import AppServer
from tests.helpers.backend_server import SERVERS, backing_services, running_backend
from tests.helpers.event_socket_client import EventSocket

# One test process starts the two servers for the whole file.
pytestmark = pytest.mark.xdist_group("security_forged_events")

ADDRESS = "127.0.0.1"
AUTH_STATE = format_event_handler(AuthState.event_handlers["load_session"]).rsplit(".", 1)[0]
REPORT = format_event_handler(
    FrontendEventExceptionState.event_handlers["handle_frontend_exception"]
)
REFUSED = ("error", messages.UNEXPECTED_ERROR)
#: A line as the server's mail sender writes it, to be forged inside an error report.
FORGED_LINE = "INFO prettyscore.core.mail: Sent 'Reset your password' to owner@example.com"


@pytest.fixture(scope="module", params=SERVERS)
def server(request, tmp_path_factory) -> Iterator[AppServer]:
    run_dir = tmp_path_factory.mktemp(f"forged-{request.param}")
    with (
        backing_services(request, request.param) as (database_url, redis),
        running_backend(request.param, run_dir, database_url=database_url, redis_url=redis) as up,
    ):
        yield up


class Log:
    """What the server writes to its log from now on."""

    def __init__(self, path: Path):
        self.path = path
        self.start = path.stat().st_size

    def written(self) -> str:
        with self.path.open("rb") as log:
            log.seek(self.start)
            return log.read().decode(errors="replace")

    def wait_for(self, text: str, count: int = 1, timeout: float = 15) -> str:
        deadline = time.monotonic() + timeout
        while (written := self.written()).count(text) < count and time.monotonic() < deadline:
            time.sleep(0.1)
        return written


def tab(server: AppServer) -> EventSocket:
    cookie = f"{BROWSER_COOKIE}={secrets.token_urlsafe(16)}"
    return EventSocket(server.base_url, source=ADDRESS, cookie=cookie)


@pytest.mark.parametrize(
    "name, payload",
    [
        (f"{AUTH_STATE}.setvar", {"var_name": "is_admin", "value": True}),
        (f"{AUTH_STATE}._apply_tokens", {"tokens": {"access_token": "x"}}),
        (f"{AUTH_STATE}.no_such_handler", {}),
    ],
    ids=["setvar", "private", "unknown"],
)
def test_an_event_no_page_sends_is_refused_without_a_traceback(server, name, payload):
    log = Log(server.log_path)
    with tab(server) as page:
        page.send(name, payload)
        assert page.toast() == REFUSED

    written = log.wait_for("Refused an event no page sends")
    assert "Traceback" not in written
    assert f"Refused an event no page sends: {name}" in written


def test_an_upload_to_a_handler_that_takes_none_is_refused_without_a_traceback(server):
    log = Log(server.log_path)
    answer = httpx.post(
        f"{server.base_url}/_upload",
        headers={
            "reflex-client-token": str(uuid.uuid4()),
            "reflex-event-handler": format_event_handler(
                AuthFormState.event_handlers["submit_sign_in"]
            ),
        },
        files={"files": ("photo.jpg", b"\xff\xd8\xff\xe0" + bytes(64), "image/jpeg")},
        timeout=30,
    )

    assert answer.status_code == 400
    assert answer.json() == {"detail": messages.UPLOAD_NOT_TAKEN}
    assert "Traceback" not in log.wait_for("Refused an upload")


@pytest.mark.parametrize("info", [None, {"message": "x"}], ids=["none", "object"])
def test_an_error_report_that_is_not_text_is_refused_without_a_traceback(server, info):
    log = Log(server.log_path)
    with tab(server) as page:
        page.send(REPORT, {"info": info, "component_stack": ""})
        assert page.toast() == REFUSED

    assert "Traceback" not in log.wait_for("Refused an event with bad arguments")


def test_an_error_report_is_logged_on_one_line_cut_short_and_a_few_a_minute(server):
    log = Log(server.log_path)
    info = f"TypeError: x is undefined\n{FORGED_LINE}\r\n\x1b[2J" + "x" * 100_000
    with tab(server) as page:
        page.send(REPORT, {"info": info, "component_stack": ""})
        written = log.wait_for("A browser reported an error")

        assert not any(line.startswith(FORGED_LINE) for line in written.splitlines())
        assert "\\n" + FORGED_LINE in written  # still there to read, on the report's line
        assert "\x1b" not in written
        assert len(written) < MAX_LOGGED_CHARS + 500

        for number in range(REPORTS_PER_MINUTE + 10):
            page.send(REPORT, {"info": f"report {number}", "component_stack": None})
        log.wait_for("the rest are not logged")
        time.sleep(1)  # anything still on its way

    written = log.written()
    assert written.count("A browser reported an error") == REPORTS_PER_MINUTE
    assert written.count("the rest are not logged") == 1
