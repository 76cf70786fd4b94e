"""A tab's server state serves only the browser it was made for: a socket that presents
the state's token but not that browser's key (an HttpOnly cookie) gets no member."""

from __future__ import annotations

import pytest
from reflex.istate.data import HeaderData, RouterData
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from prettyscore.accounts.state import AuthState
from prettyscore.core.browser_key import BROWSER_COOKIE, browser_key_from, give_browser_key
from tests.admin.conftest import app_database
from tests.admin.handlers import as_user, call
from tests.admin.people import member_session

__all__ = ["app_database"]


def from_socket(state, cookie: str) -> None:
    """The next event arrives on a socket whose handshake carried ``cookie``."""
    state.router = RouterData(headers=HeaderData(cookie=cookie))


@pytest.fixture
def member_tab(db_factory, app_database):
    """A member's tab: its state holds their tokens and has served their browser once."""
    with db_factory() as db:
        tokens = member_session(db)
    state = as_user(AuthState, tokens)
    assert call(state, "require_user").redirects == []  # signed in, bound to the browser
    return state


@pytest.mark.parametrize(
    "cookie", ["", f"{BROWSER_COOKIE}=another-browser", "ps_access_token=x"], ids=str
)
def test_a_socket_without_the_browsers_key_gets_no_member(member_tab, cookie):
    from_socket(member_tab, cookie)
    reply = call(member_tab, "require_user")
    assert reply.redirects == ["/auth?next=/"]
    assert (member_tab.access_token, member_tab.refresh_token) == ("", "")  # wiped


def test_the_browser_itself_keeps_its_member(member_tab):
    assert call(member_tab, "require_user").redirects == []
    assert member_tab.signed_in


def page(_request):
    return PlainTextResponse("page")


def test_every_browser_gets_a_key_scripts_cannot_read():
    client = TestClient(give_browser_key(Starlette(routes=[Route("/", page)]), secure=True))
    given = client.get("/").headers["set-cookie"]
    assert given.startswith(f"{BROWSER_COOKIE}=")
    for attribute in ("HttpOnly", "SameSite=Lax", "Secure", "Path=/"):
        assert attribute in given
    key = browser_key_from(given.split(";", 1)[0])
    assert len(key) >= 40
    again = client.get("/", headers={"Cookie": f"{BROWSER_COOKIE}={key}"})
    assert "set-cookie" not in again.headers  # kept, not replaced


def html(_request):
    return PlainTextResponse("<p>page</p>", media_type="text/html")


def test_pages_are_revalidated_so_the_key_always_arrives_with_them():
    client = TestClient(give_browser_key(Starlette(routes=[Route("/", html)]), secure=False))
    assert client.get("/").headers["cache-control"] == "no-cache"
