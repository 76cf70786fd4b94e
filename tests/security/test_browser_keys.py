"""The browser's key (``ps_browser``) cannot be planted: keys come from the server only,
signed, and are replaced at every sign-in and sign-out; on https the cookie is
``__Host-`` prefixed and Secure.

The reported attack: a page on another port of the same host set ``ps_browser`` in the
victim's browser; the victim signed in; a second browser holding the same value opened
the victim's dashboard. Here the attacker even gets a genuine key from the server
first, plants it, and the victim signs in through the real event socket: the planted key
opens nothing afterwards, while the victim's browser, handed its new key, stays signed
in. Runs on both servers (SQLite with in-memory tab states, PostgreSQL with Redis).
"""

from __future__ import annotations

import asyncio
import uuid
from http.cookies import SimpleCookie

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from prettyscore.accounts import service as accounts
from prettyscore.accounts.form_state import AuthFormState
from prettyscore.accounts.state import AuthState
from prettyscore.core.db import session_scope
from prettyscore.core.settings import get_settings
from prettyscore.web.browser_key import (
    BROWSER_COOKIE,
    RENEW_PATH,
    RENEWAL_SECONDS,
    SECURE_BROWSER_COOKIE,
    browser_key_from,
    give_browser_key,
    issue_browser_key,
    replacement,
)
from prettyscore.web.security_headers import origin_of
from tests.fixtures.event_socket import (
    EventSockets,
    browser_cookie,
    event_sockets,
    handed_ticket,
    redirects,
    seen,
)
from tests.security.test_tab_state_owner import sign_in_form

PASSWORD = "secret12"


def page(_request):
    return PlainTextResponse("page")


def site(*, secure: bool = False) -> TestClient:
    """The app's HTTP side as the browser key's wrapper serves it."""
    return TestClient(give_browser_key(Starlette(routes=[Route("/", page)]), secure=secure))


def given_cookie(response) -> tuple[str, str, str]:
    """(name, value, the whole Set-Cookie header) of the key the answer gave."""
    header = response.headers["set-cookie"]
    (morsel,) = SimpleCookie(header).values()
    return morsel.key, morsel.value, header


def own_origin() -> dict[str, str]:
    """The Origin header of the site's own pages."""
    return {"Origin": origin_of(get_settings().public_url)}


def hand_over(ticket: str, key: str, **headers: str):
    """What the page does with a ticket: post it, with the browser's cookies."""
    return site().post(
        RENEW_PATH,
        content=ticket,
        headers={"Cookie": browser_cookie(key), **own_origin(), **headers},
    )


def test_a_key_the_server_did_not_make_is_refused_and_replaced():
    planted = f"{BROWSER_COOKIE}=planted-by-a-page-on-another-port"
    name, value, _ = given_cookie(site().get("/", headers={"Cookie": planted}))
    assert name == BROWSER_COOKIE
    assert value != "planted-by-a-page-on-another-port"
    assert browser_key_from(f"{BROWSER_COOKIE}={value}") == value  # signed by the server
    assert browser_key_from(planted) == ""
    # A key the server made is kept.
    assert "set-cookie" not in site().get("/", headers={"Cookie": browser_cookie(value)}).headers


def test_on_https_the_key_is_a_secure_host_only_cookie():
    name, value, header = given_cookie(site(secure=True).get("/"))
    assert name == SECURE_BROWSER_COOKIE
    attributes = [part.strip() for part in header.split(";")]
    for attribute in ("Secure", "HttpOnly", "Path=/", "SameSite=Lax"):
        assert attribute in attributes
    assert not [part for part in attributes if part.lower().startswith("domain")]
    # The plain name, which any page of the host may set, is not read on https.
    plain = site(secure=True).get("/", headers={"Cookie": f"{BROWSER_COOKIE}={value}"})
    assert given_cookie(plain)[0] == SECURE_BROWSER_COOKIE
    # On plain http (a developer's machine) browsers refuse Secure cookies: plain name.
    assert given_cookie(site(secure=False).get("/"))[0] == BROWSER_COOKIE


@pytest.fixture
def victim(app_database) -> str:
    with session_scope() as db:
        return accounts.sign_up(db, f"victim-{uuid.uuid4().hex[:8]}@example.com", PASSWORD).email


async def dashboard(app: EventSockets, key: str) -> tuple[list[str], str]:
    """A new tab of the browser holding ``key`` opens /dashboard: its redirects, and
    everything it was sent."""
    sent = await app.socket(browser_cookie(key), path="/dashboard").connect()
    return redirects(sent), seen(sent)


def test_a_key_planted_before_sign_in_opens_nothing_after_it(victim, state_manager_url):
    _, planted, _ = given_cookie(site().get("/"))  # a genuine key the attacker asked for

    async def scenario() -> dict:
        async with event_sockets(state_manager_url) as app:
            tab = app.socket(browser_cookie(planted), path="/auth")
            await tab.connect()
            signed_in = await tab.send(AuthFormState, "submit_sign_in", sign_in_form(victim))
            assert redirects(signed_in) == ["/dashboard"]
            attacker = await dashboard(app, planted)
            handed = hand_over(handed_ticket(signed_in), planted)
            renewed = given_cookie(handed)[1] if handed.status_code == 204 else ""
            return {
                "attacker": attacker,
                "handed": handed,
                "renewed": renewed,
                "victim": await dashboard(app, renewed) if renewed else None,
            }

    outcome = asyncio.run(scenario())
    redirected, shown = outcome["attacker"]
    assert redirected == ["/auth?next=/dashboard"]
    assert victim not in shown
    with session_scope() as db:
        assert accounts.browser_member(db, planted) is None  # photos, pages served by HTTP
    # The victim's browser was handed its new key, which keeps it signed in.
    assert outcome["handed"].status_code == 204
    assert "HttpOnly" in outcome["handed"].headers["set-cookie"]
    assert outcome["renewed"] not in ("", planted)
    redirected, shown = outcome["victim"]
    assert redirected == [] and victim in shown


def test_signing_out_replaces_the_key(victim, state_manager_url):
    async def scenario() -> tuple[str, str, object]:
        async with event_sockets(state_manager_url) as app:
            key = issue_browser_key()
            tab = app.socket(browser_cookie(key), path="/auth")
            await tab.connect()
            signed_in = await tab.send(AuthFormState, "submit_sign_in", sign_in_form(victim))
            key = given_cookie(hand_over(handed_ticket(signed_in), key))[1]
            reloaded = app.socket(browser_cookie(key), token=tab.token, path="/dashboard")
            await reloaded.connect()
            signed_out = await reloaded.send(AuthState, "sign_out")
            assert redirects(signed_out) == ["/auth"]
            handed = hand_over(handed_ticket(signed_out), key)
            return key, handed, await dashboard(app, key)

    signed_in_key, handed, old_key_opens = asyncio.run(scenario())
    assert handed.status_code == 204
    assert given_cookie(handed)[1] not in ("", signed_in_key)
    assert old_key_opens[0] == ["/auth?next=/dashboard"]


def test_a_ticket_gives_the_new_key_only_to_its_browser_in_time_and_from_the_sites_pages(
    clock,
):
    key = issue_browser_key()
    new_key, ticket = replacement(key)
    another_port = origin_of(get_settings().public_url).rsplit(":", 1)[0] + ":8081"
    refused = [
        hand_over(ticket, issue_browser_key()),  # another browser's key
        hand_over(ticket, key, Origin=another_port),  # a page on another port
        hand_over("made.up.ticket", key),
        site().get(RENEW_PATH, headers={"Cookie": browser_cookie(key)}),
    ]
    for answer in refused:
        assert answer.status_code == 403 and "set-cookie" not in answer.headers
    answer = hand_over(ticket, key)
    assert answer.status_code == 204 and given_cookie(answer)[1] == new_key
    clock.advance(seconds=RENEWAL_SECONDS + 1)
    late = hand_over(ticket, key)
    assert late.status_code == 403 and "set-cookie" not in late.headers
