"""A tab's server state serves only the browser it was made for: a socket that presents
the state's token but not that browser's key (an HttpOnly cookie) gets no member. The
session's refresh token never reaches the browser: it is bound to that key on the
server, which renews the browser's access token."""

from __future__ import annotations

import pytest
from reflex.istate.data import HeaderData, RouterData
from sqlmodel import select
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from prettyscore.accounts import service, tokens
from prettyscore.accounts.form_state import AuthFormState
from prettyscore.accounts.models import RefreshToken
from prettyscore.accounts.state import AuthState
from prettyscore.core import messages
from prettyscore.core.db import session_scope
from prettyscore.web.browser_key import (
    BROWSER_COOKIE,
    SECURE_BROWSER_COOKIE,
    browser_key_from,
    give_browser_key,
)
from tests.fixtures.handlers import a_browser, as_user, call
from tests.fixtures.people import member_session


def from_socket(state, cookie: str) -> None:
    """The next event arrives on a socket whose handshake carried ``cookie``."""
    state.router = RouterData(headers=HeaderData(cookie=cookie))


@pytest.fixture
def member_tab(db_factory, app_database):
    """A member's tab: its browser holds their session and it has served it once."""
    with db_factory() as db:
        session = member_session(db)
    state = as_user(AuthState, session)
    assert call(state, "require_user").redirects == []  # signed in, bound to the browser
    return state


def another_tab(browser: HeaderData, access_token: str = "") -> AuthState:
    """A new tab (or the same tab after the server restarted) in the same browser: a new
    state, holding at most the browser's access token cookie."""
    state = AuthState()
    state.router = RouterData(headers=browser)
    state.access_token = access_token
    return state


@pytest.mark.parametrize(
    "cookie", ["", f"{BROWSER_COOKIE}=another-browser", "ps_access_token=x"], ids=str
)
def test_a_socket_without_the_browsers_key_gets_no_member(member_tab, cookie):
    browser = member_tab.router.headers
    from_socket(member_tab, cookie)
    reply = call(member_tab, "require_user")
    assert reply.redirects == ["/auth?next=/"]
    assert member_tab.access_token == ""  # wiped
    # and the member's own browser is still signed in
    assert call(another_tab(browser), "require_user").redirects == []


def test_the_browser_itself_keeps_its_member(member_tab):
    assert call(member_tab, "require_user").redirects == []
    assert member_tab.signed_in


def test_without_its_access_token_the_browser_is_still_signed_in_by_its_key(member_tab):
    """An expired or cleared access token, a new tab, a restarted server: the key that
    scripts cannot read renews the session."""
    browser = member_tab.router.headers
    tab = another_tab(browser)
    assert call(tab, "require_user").redirects == []
    assert tab.signed_in and tab.user_email == member_tab.user_email
    assert tab.access_token and tab.access_token != member_tab.access_token
    assert call(another_tab(browser, "expired-or-garbled"), "require_user").redirects == []


def test_two_tabs_of_one_browser_both_renew(member_tab):
    browser = member_tab.router.headers
    first, second = another_tab(browser), another_tab(browser)
    assert call(first, "require_user").redirects == []
    assert call(second, "require_user").redirects == []
    assert first.signed_in and second.signed_in


def test_another_browser_without_an_access_token_gets_nobody(member_tab):
    stranger = AuthState()
    stranger.router = RouterData(headers=a_browser())
    assert call(stranger, "require_user").redirects == ["/auth?next=/"]
    assert not stranger.signed_in


def test_signing_out_unbinds_the_browser(member_tab):
    reply = call(member_tab, "sign_out")
    assert reply.toasts == [("success", messages.SIGNED_OUT)]
    assert member_tab.access_token == ""
    assert call(another_tab(member_tab.router.headers), "require_user").redirects == [
        "/auth?next=/"
    ]


def test_a_forged_sign_out_from_another_socket_leaves_the_members_session(member_tab):
    browser = member_tab.router.headers
    from_socket(member_tab, f"{BROWSER_COOKIE}=another-browser")
    call(member_tab, "sign_out")
    assert call(another_tab(browser), "require_user").redirects == []


def refresh_token_hashes() -> set[str]:
    with session_scope() as db:
        return set(db.exec(select(RefreshToken.token_hash)).all())


def test_signing_in_leaves_no_refresh_token_in_what_the_browser_receives(app_database):
    with session_scope() as db:
        service.sign_up(db, "eve@example.com", "secret12")
    page = AuthFormState()
    page.router = RouterData(headers=a_browser())
    call(page, "open_page")
    reply = call(page, "submit_sign_in", {"email": "eve@example.com", "password": "secret12"})
    assert ("success", messages.WELCOME_BACK) in reply.toasts and page.signed_in
    # every public var of the page's states, as the browser receives them
    public = {name for cls in type(page).__mro__ for name in getattr(cls, "vars", {})}
    sent = set(_strings([getattr(page, name) for name in public]))
    assert page.access_token in sent  # the short-lived access token is what it keeps
    assert not {tokens.hash_secret(value) for value in sent} & refresh_token_hashes()
    assert "refresh_token" not in AuthState.get_fields()


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def test_a_refresh_token_left_in_the_old_cookie_moves_to_the_server_and_the_cookie_goes(
    db_factory, app_database
):
    with db_factory() as db:
        earlier = member_session(db)
    tab = AuthState()
    tab.router = RouterData(headers=a_browser())
    tab.retired_refresh_token = earlier.refresh_token  # what the browser sends on hydrate
    assert call(tab, "require_user").redirects == []
    assert tab.signed_in and tab.retired_refresh_token == ""
    # bound to the browser's key: a new tab of that browser is signed in too
    assert call(another_tab(tab.router.headers), "require_user").redirects == []


def page(_request):
    return PlainTextResponse("page")


def test_every_browser_gets_a_key_scripts_cannot_read():
    client = TestClient(give_browser_key(Starlette(routes=[Route("/", page)]), secure=True))
    given = client.get("/").headers["set-cookie"]
    assert given.startswith(f"{SECURE_BROWSER_COOKIE}=")
    for attribute in ("HttpOnly", "SameSite=Lax", "Secure", "Path=/"):
        assert attribute in given
    key = browser_key_from(given.split(";", 1)[0], secure=True)
    assert len(key) >= 40
    again = client.get("/", headers={"Cookie": f"{SECURE_BROWSER_COOKIE}={key}"})
    assert "set-cookie" not in again.headers  # kept, not replaced


def html(_request):
    return PlainTextResponse("<p>page</p>", media_type="text/html")


def test_pages_are_revalidated_so_the_key_always_arrives_with_them():
    client = TestClient(give_browser_key(Starlette(routes=[Route("/", html)]), secure=False))
    assert client.get("/").headers["cache-control"] == "no-cache"
