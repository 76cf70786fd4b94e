"""A tab's stored state goes only to the browser it serves, and is dropped at sign-out.

Reflex keeps each tab's state on the server under the tab's token, and answers the
hydrate a page sends on every (re)connect with all of it, before any handler of ours
runs. The token travels in the socket's address, so it can leak (a proxy's log, a
shared screen). Here a member's tab shows My Photos, then the tab is closed; a socket
of another browser (another key, or none) names the tab's token and asks for the
tab's state: it must get none of the member's email or photo addresses. After a
sign-out, even the same browser's reload of the tab shows nothing of the member.

Runs on both servers: SQLite with the in-memory state manager, PostgreSQL with Redis.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest
from reflex_base.utils.form import FORM_DATA_ENTRIES_KEY

from prettyscore.accounts import service as accounts
from prettyscore.accounts.form_state import AuthFormState
from prettyscore.accounts.state import AuthState
from prettyscore.chat.state import ChatState
from prettyscore.photos.models import Photo
from prettyscore.web.browser_key import issue_browser_key
from tests.fixtures.event_socket import (
    EventSockets,
    Socket,
    browser_cookie,
    event_sockets,
    redirects,
    seen,
)

PASSWORD = "secret12"


@pytest.fixture
def member(db_factory, app_database) -> tuple[str, str]:
    """A member with one private photo: their email and the photo's address."""
    with db_factory() as db:
        tokens = accounts.sign_up(db, f"tab-{uuid.uuid4().hex[:8]}@example.com", PASSWORD)
        photo = Photo(
            user_id=tokens.user_id,
            original_image_url=f"/media/m/{tokens.user_id}/{uuid.uuid4().hex}.jpg",
            score=7.2,
            rating_label="Stunning",
            breakdown={"symmetry": 9.0},
        )
        db.add(photo)
    return tokens.email, photo.original_image_url


def sign_in_form(email: str) -> dict:
    """The Sign In form as the browser's ``getFormData`` sends it."""
    return {"form": {FORM_DATA_ENTRIES_KEY: [["email", email], ["password", PASSWORD]]}}


async def my_photos_tab(app: EventSockets, email: str, photo_url: str) -> Socket:
    """A tab of the member's browser, signed in on /auth, then showing My Photos."""
    tab = app.socket(browser_cookie(issue_browser_key()), path="/auth")
    await tab.connect()
    signed_in = await tab.send(AuthFormState, "submit_sign_in", sign_in_form(email))
    assert redirects(signed_in) == ["/dashboard"]
    shown = seen(await tab.open("/dashboard"))
    assert email in shown and photo_url in shown
    return tab


@pytest.mark.parametrize(
    "elsewhere", ["a browser without a key", "another browser", "an event before the hydrate"]
)
def test_a_closed_tabs_token_reads_nothing_of_its_member(member, state_manager_url, elsewhere):
    email, photo_url = member
    cookie = "" if elsewhere == "a browser without a key" else browser_cookie(issue_browser_key())

    async def scenario() -> str:
        async with event_sockets(state_manager_url) as app:
            tab = await my_photos_tab(app, email, photo_url)
            borrowed = app.socket(cookie, token=tab.token, path="/dashboard")
            sent = []
            if elsewhere == "an event before the hydrate":  # loads another branch of the tab
                sent += await borrowed.send(ChatState, "set_draft", {"value": "hello"})
            return seen(sent + await borrowed.connect())

    shown = asyncio.run(scenario())
    assert "is_hydrated" in shown  # the hydrate was answered, with a state
    assert email not in shown
    assert photo_url not in shown


def test_signing_out_drops_the_members_state(member, state_manager_url):
    email, photo_url = member

    async def scenario() -> str:
        async with event_sockets(state_manager_url) as app:
            tab = await my_photos_tab(app, email, photo_url)
            assert redirects(await tab.send(AuthState, "sign_out")) == ["/auth"]
            # The same browser reloads the tab (someone else at the same computer).
            reloaded = app.socket(tab.cookie, token=tab.token, path="/auth")
            return seen(await reloaded.connect())

    shown = asyncio.run(scenario())
    assert "is_hydrated" in shown
    assert email not in shown
    assert photo_url not in shown
