"""A tab's token is never a credential: only the browser a tab serves drives it.

The token names a tab in the event socket's address (proxies log it) and in the
``Reflex-Client-Token`` header of ``POST /_upload``. Here a member signs in on a tab of
their browser, against the backend as production serves it
(``tests/helpers/backend_server.py``), and someone who learnt the tab's token tries it:

* an upload naming the tab, without the browser's key (or with another browser's),
  must not run on the member's tab: the answer carries nothing of the member (their
  email, their unsaved photos' key), and the member's tab is not sent to /upload with
  the stranger's picture; the member's own upload, with the browser's key, still runs;
* the key the browser held before signing in (a key planted in it, say) opens nothing
  once the tab that signed in with it is closed: a socket presenting it with the
  tab's token gets none of the member's state.
"""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator

import httpx
import pytest
from PIL import Image
from reflex_base.utils.form import FORM_DATA_ENTRIES_KEY
from reflex_base.utils.format import format_event_handler
from skimage import data as skdata

from prettyscore.accounts.form_state import AuthFormState
from prettyscore.accounts.state import AuthState
from prettyscore.core import routes
from prettyscore.scoring.state import ScoreState
from prettyscore.web.browser_key import BROWSER_COOKIE, RENEW_PATH
from tests.helpers.app_server import AppServer
from tests.helpers.backend_server import SERVERS, backing_services, running_backend
from tests.helpers.browser_keys import ticket_in
from tests.helpers.event_socket_client import EventSocket

# One test process starts the two servers for the whole file.
pytestmark = pytest.mark.xdist_group("security_tab_token")

ADDRESS = "127.0.0.1"
PASSWORD = "secret-tab-12"
SIGN_IN = format_event_handler(AuthFormState.event_handlers["submit_sign_in"])
LOAD_SESSION = format_event_handler(AuthState.event_handlers["load_session"])
UPLOAD_FROM_HOME = format_event_handler(ScoreState.event_handlers["upload_from_home"])


@pytest.fixture(scope="module", params=SERVERS)
def server(request, tmp_path_factory) -> Iterator[AppServer]:
    run_dir = tmp_path_factory.mktemp(f"tab-token-{request.param}")
    with (
        backing_services(request, request.param) as (database_url, redis),
        running_backend(request.param, run_dir, database_url=database_url, redis_url=redis) as up,
    ):
        yield up


def new_key(server: AppServer) -> str:
    """A browser key the server signed, as any of its answers gives a new browser."""
    answer = httpx.get(f"{server.base_url}/ping", timeout=30)
    return answer.cookies[BROWSER_COOKIE]


def new_member(server: AppServer) -> str:
    email = f"tab-{uuid.uuid4().hex[:8]}@example.com"
    answer = httpx.post(
        f"{server.base_url}/auth/v1/signup",
        json={"email": email, "password": PASSWORD},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    return email


def signed_in_tab(server: AppServer, email: str, key: str) -> tuple[EventSocket, str]:
    """An open tab of the member's browser (key ``key``), signed in; and the ticket the
    server handed the page for the browser's next key."""
    tab = EventSocket(server.base_url, source=ADDRESS, cookie=f"{BROWSER_COOKIE}={key}")
    tab.__enter__()
    form = {FORM_DATA_ENTRIES_KEY: [["email", email], ["password", PASSWORD]]}
    tab.send(SIGN_IN, {"form": form}, path=routes.AUTH)
    update = tab.update_where(lambda update: bool(ticket_of(update)))
    return tab, ticket_of(update)


def ticket_of(update: dict) -> str:
    tickets = [ticket_in(event["name"], event["payload"]) for event in update.get("events", [])]
    return next((ticket for ticket in tickets if ticket), "")


def renewed(server: AppServer, key: str, ticket: str) -> str:
    """What the page does with the ticket: the browser's new key."""
    answer = httpx.post(
        f"{server.base_url}{RENEW_PATH}",
        content=ticket,
        headers={"origin": server.base_url, "cookie": f"{BROWSER_COOKIE}={key}"},
        timeout=30,
    )
    assert answer.status_code == 204
    return answer.cookies[BROWSER_COOKIE]


def photo_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(skdata.astronaut()).save(buffer, "JPEG", quality=85)
    return buffer.getvalue()


def upload(server: AppServer, token: str, cookie: str) -> str:
    """``POST /_upload`` as the page's XHR sends it, to Home's photo picker; the answer."""
    headers = {"reflex-client-token": token, "reflex-event-handler": UPLOAD_FROM_HOME}
    if cookie:
        headers["cookie"] = cookie
    answer = httpx.post(
        f"{server.base_url}/_upload",
        headers=headers,
        files={"files": ("photo.jpg", photo_bytes(), "image/jpeg")},
        timeout=60,
    )
    assert answer.status_code == 200
    return answer.text


def sent_to_upload(update: dict) -> bool:
    return any(
        event["name"] == "_redirect" and event["payload"].get("path") == routes.UPLOAD
        for event in update.get("events", [])
    )


@pytest.mark.parametrize("stranger", ["no key", "another browser's key"])
def test_an_upload_naming_a_members_tab_runs_only_with_the_browsers_key(server, stranger):
    email, key = new_member(server), new_key(server)
    tab, ticket = signed_in_tab(server, email, key)
    try:
        current = renewed(server, key, ticket)
        cookie = "" if stranger == "no key" else f"{BROWSER_COOKIE}={new_key(server)}"

        answer = upload(server, tab.token, cookie)

        assert email not in answer
        assert "signed_in" not in answer and "visitor_secret" not in answer
        assert not [line for line in answer.splitlines() if json.loads(line).get("delta")]
        with pytest.raises(TimeoutError):
            tab.update_where(sent_to_upload, timeout=3)

        own = upload(server, tab.token, f"{BROWSER_COOKIE}={current}")

        assert any(json.loads(line).get("delta") for line in own.splitlines())
        tab.update_where(sent_to_upload, timeout=30)
    finally:
        tab.close()


def test_the_key_replaced_at_sign_in_opens_nothing_from_another_socket(server):
    email, planted = new_member(server), new_key(server)
    tab, _ = signed_in_tab(server, email, planted)
    tab.send(LOAD_SESSION, {}, path=routes.DASHBOARD)
    assert email in json.dumps(tab.update_where(lambda update: email in json.dumps(update)))
    tab.close()

    stranger = EventSocket(server.base_url, source=ADDRESS, cookie=f"{BROWSER_COOKIE}={planted}")
    stranger.token = tab.token
    with stranger:
        stranger.send(LOAD_SESSION, {}, path=routes.DASHBOARD)
        stranger.update_where(lambda update: "session_checked" in json.dumps(update))

    assert email not in json.dumps(stranger.updates)
