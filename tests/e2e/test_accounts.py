"""Accounts in a real browser: sign-up, sign-out, remembered email, sign-in, guards, recovery."""

from __future__ import annotations

import email
import re
import time

import jwt
import pytest
from playwright.sync_api import expect
from sqlmodel import select

from prettyscore.accounts import service, tokens
from prettyscore.accounts.models import RefreshToken
from prettyscore.core import messages
from prettyscore.web.browser_key import BROWSER_COOKIE
from tests.e2e.flows import (
    open_page,
    sign_in_form,
    sign_up,
    unique_email,
    wait_for_path,
    with_app_database,
)
from tests.e2e.test_no_lost_click import HeldClicks

pytestmark = pytest.mark.e2e


def test_sign_up_sign_out_remembered_email_and_sign_in(page, app_server):
    base = app_server.base_url
    address = unique_email("ada")
    page.goto(f"{base}/auth")
    expect(page.get_by_text(messages.AUTH_HEADING, exact=True)).to_be_visible()
    expect(page.get_by_text(messages.AUTH_SUBTITLE)).to_be_visible()

    sign_up(page, base, address)
    expect(page.get_by_text(messages.ACCOUNT_CREATED)).to_be_visible()
    wait_for_path(page, "/dashboard")
    expect(page.get_by_test_id("dashboard-email")).to_have_text(address)
    # Wait, as a person would, for the dashboard to finish loading: a sign-out clicked
    # before its on_load ran would be followed by that on_load's own "sign in to come
    # back here" redirect (/auth?next=/dashboard).
    expect(page.get_by_text("You haven't saved any photos yet.")).to_be_visible()

    page.get_by_role("button", name=messages.SIGN_OUT).first.click()
    expect(page.get_by_text(messages.SIGNED_OUT)).to_be_visible()
    wait_for_path(page, "/auth")
    email_field = sign_in_form(page).get_by_placeholder(messages.EMAIL_PLACEHOLDER)
    expect(email_field).to_have_value(address)
    assert address in (page.evaluate("localStorage.getItem('lastLoginEmail')") or "")

    sign_in_form(page).get_by_placeholder(messages.PASSWORD_PLACEHOLDER, exact=True).fill(
        "secret12"
    )
    sign_in_form(page).get_by_role("button", name=messages.SIGN_IN).click()
    expect(page.get_by_text(messages.WELCOME_BACK)).to_be_visible()
    wait_for_path(page, "/dashboard")
    expect(page.get_by_test_id("dashboard-email")).to_have_text(address)

    page.reload()  # the session survives a reload
    expect(page.get_by_test_id("dashboard-email")).to_have_text(address)
    page.goto(f"{base}/auth")  # having a session, /auth goes on to the dashboard
    wait_for_path(page, "/dashboard")


def _prefill_of(address: str) -> str:
    return r'sign_in_email[^"]*":\s*"' + re.escape(address)


def test_the_remembered_email_never_lands_in_what_the_visitor_is_typing(page, app_server):
    """A browser that remembers one email, and a visitor who starts typing another just
    as the page finishes loading: what they typed stays, and is what is sent."""
    remembered, typed = unique_email("remembered"), unique_email("typed")
    page.add_init_script(f"localStorage.setItem('lastLoginEmail', {remembered!r})")
    # The server's frames from one that would put the remembered address in the field.
    prefill = HeldClicks("(no page event)", holding=False, answers=_prefill_of(remembered))
    page.route_web_socket(re.compile(r"/_event"), prefill.route)
    open_page(page, f"{app_server.base_url}/auth")
    form = sign_in_form(page)
    email_field = form.get_by_placeholder(messages.EMAIL_PLACEHOLDER)
    email_field.fill("")
    email_field.focus()
    prefill.release_answers()  # whatever the page had still to say arrives as the typing starts
    page.wait_for_timeout(500)
    page.keyboard.insert_text(typed)
    form.get_by_placeholder(messages.PASSWORD_PLACEHOLDER, exact=True).fill("wrong-password")
    form.get_by_role("button", name=messages.SIGN_IN).click()
    expect(page.get_by_text(messages.INVALID_CREDENTIALS)).to_be_visible()
    expect(email_field).to_have_value(typed)


def test_the_dashboard_sends_a_visitor_to_sign_in_and_back(page, app_server):
    base = app_server.base_url
    page.goto(f"{base}/dashboard")
    wait_for_path(page, "/auth", "?next=/dashboard")
    expect(page.get_by_text(messages.AUTH_SUBTITLE)).to_be_visible()


def test_duplicate_email_and_wrong_password_show_their_messages(page, new_context, app_server):
    base = app_server.base_url
    address = unique_email("dup")
    sign_up(page, base, address)
    wait_for_path(page, "/dashboard")
    page = new_context().new_page()  # someone else, in another browser

    sign_up(page, base, address.upper())
    expect(page.get_by_text(messages.USER_ALREADY_REGISTERED)).to_be_visible()
    assert page.url.startswith(f"{base}/auth")

    open_page(page, f"{base}/auth")
    sign_in_form(page).get_by_placeholder(messages.EMAIL_PLACEHOLDER).fill(address)
    sign_in_form(page).get_by_placeholder(messages.PASSWORD_PLACEHOLDER, exact=True).fill(
        "wrong-pw"
    )
    sign_in_form(page).get_by_role("button", name=messages.SIGN_IN).click()
    expect(page.get_by_text(messages.INVALID_CREDENTIALS)).to_be_visible()
    assert page.url.startswith(f"{base}/auth")
    assert not [c for c in page.context.cookies() if c["name"] == "ps_access_token" and c["value"]]


def tamper(page, name: str) -> None:
    (cookie,) = [c for c in page.context.cookies() if c["name"] == name]
    page.context.add_cookies([{**cookie, "value": cookie["value"][:-4] + "abcd"}])


def test_tampered_tokens_are_treated_as_signed_out_without_an_error_page(page, app_server):
    base = app_server.base_url
    address = unique_email("tamper")
    sign_up(page, base, address)
    wait_for_path(page, "/dashboard")
    tamper(page, "ps_access_token")  # worth nothing: the browser's key renews the session
    open_page(page, f"{base}/dashboard")
    expect(page.get_by_test_id("dashboard-email")).to_have_text(address)
    tamper(page, BROWSER_COOKIE)  # another key: another browser, signed in to nothing
    tamper(page, "ps_access_token")
    page.goto(f"{base}/dashboard")
    wait_for_path(page, "/auth", "?next=/dashboard")
    expect(page.get_by_text(messages.AUTH_SUBTITLE)).to_be_visible()


def mails_to(app_server, address: str, seconds: float = 10.0) -> list:
    """The mail the app wrote to ``address``: the server sends it while it answers, so
    it may land a moment after the page said it was sent."""
    deadline = time.monotonic() + seconds
    while True:
        mails = [
            email.message_from_bytes(path.read_bytes())
            for path in sorted((app_server.data_dir / "outbox").glob("*.eml"))
        ]
        mine = [mail for mail in mails if mail["To"] == address]
        if mine or time.monotonic() > deadline:
            return mine
        time.sleep(0.1)


def test_forgot_password_mails_a_link_that_signs_in_with_the_new_password(
    page, new_context, app_server
):
    base = app_server.base_url
    address = unique_email("forgot")
    sign_up(page, base, address)
    wait_for_path(page, "/dashboard")
    page = new_context().new_page()  # later, on another device

    open_page(page, f"{base}/auth")
    page.get_by_role("link", name=messages.FORGOT_PASSWORD).click()
    wait_for_path(page, "/auth/forgot")
    expect(page.get_by_role("heading", name=messages.FORGOT_PASSWORD)).to_be_visible()
    page.locator("form").get_by_placeholder(messages.EMAIL_PLACEHOLDER).fill(address)
    page.get_by_role("button", name="Send reset link").click()
    expect(page.get_by_text(messages.RECOVERY_EMAIL_SENT)).to_be_visible()
    wait_for_path(page, "/auth")

    mine = mails_to(app_server, address)
    assert len(mine) == 1
    body = mine[0].get_payload(decode=True).decode()
    link = next(line for line in body.splitlines() if "/auth/reset?token=" in line).strip()

    open_page(page, link)
    page.get_by_placeholder(messages.SIGNUP_PASSWORD_PLACEHOLDER).fill("a-new-password")
    page.get_by_role("button", name="Save new password").click()
    expect(page.get_by_text(messages.PASSWORD_UPDATED)).to_be_visible()
    wait_for_path(page, "/dashboard")

    page = new_context().new_page()
    open_page(page, link)  # the link works once
    page.get_by_placeholder(messages.SIGNUP_PASSWORD_PLACEHOLDER).fill("third-password")
    page.get_by_role("button", name="Save new password").click()
    expect(page.get_by_text(messages.RECOVERY_LINK_INVALID)).to_be_visible()


def test_an_expired_access_token_is_renewed_silently_by_the_browsers_key(page, app_server):
    base = app_server.base_url
    address = unique_email("renew")
    sign_up(page, base, address)
    wait_for_path(page, "/dashboard")
    cookies = {c["name"]: c for c in page.context.cookies()}
    old_access = cookies["ps_access_token"]
    claims = jwt.decode(old_access["value"], options={"verify_signature": False})
    expired = jwt.encode(
        dict(claims, iat=claims["iat"] - 7200, exp=claims["iat"] - 3600),
        app_server.env["SECRET_KEY"],
        algorithm="HS256",
    )
    page.context.add_cookies([{**old_access, "value": expired}])

    open_page(page, f"{base}/dashboard")
    expect(page.get_by_test_id("dashboard-email")).to_have_text(address)
    renewed = {c["name"]: c["value"] for c in page.context.cookies()}
    renewed_claims = jwt.decode(renewed["ps_access_token"], options={"verify_signature": False})
    assert renewed_claims["exp"] > time.time()
    assert renewed_claims["session_id"] == claims["session_id"]


def refresh_token_hashes(app_server) -> set[str]:
    with with_app_database(app_server) as db:
        return set(db.exec(select(RefreshToken.token_hash)).all())


def test_no_script_can_read_the_refresh_token_and_the_key_keeps_the_member_signed_in(
    page, app_server
):
    base = app_server.base_url
    address = unique_email("httponly")
    sign_up(page, base, address)
    wait_for_path(page, "/dashboard")
    expect(page.get_by_test_id("dashboard-email")).to_have_text(address)

    cookies = page.context.cookies()
    held = {c["value"] for c in cookies if c["value"]}
    readable = page.evaluate("document.cookie")
    # No cookie holds a refresh token, readable by scripts or not: the server keeps it.
    assert not {tokens.hash_secret(value) for value in held} & refresh_token_hashes(app_server)
    assert not [c for c in cookies if c["name"] == "ps_refresh_token" and c["value"]]
    # What scripts can read of the session is the short-lived access token alone.
    session_cookies = [c for c in cookies if c["name"] in ("ps_access_token", BROWSER_COOKIE)]
    assert {c["name"] for c in session_cookies if not c["httpOnly"]} == {"ps_access_token"}
    assert BROWSER_COOKIE not in readable and "ps_access_token=" in readable
    (access,) = [c for c in session_cookies if c["name"] == "ps_access_token"]
    assert access["sameSite"] == "Lax"
    claims = jwt.decode(access["value"], options={"verify_signature": False})
    assert access["expires"] <= claims["exp"] + 60  # gone with the token, not kept for days

    # The access token expires or is cleared: on reload the member is still signed in.
    page.context.clear_cookies(name="ps_access_token")
    page.reload()
    expect(page.get_by_test_id("dashboard-email")).to_have_text(address)
    renewed = renewed_access_token(page, access["value"])
    assert renewed and renewed != access["value"]
    # A second tab of the same browser shares the session.
    other_tab = page.context.new_page()
    open_page(other_tab, f"{base}/dashboard")
    expect(other_tab.get_by_test_id("dashboard-email")).to_have_text(address)


def renewed_access_token(page, old: str, seconds: float = 10.0) -> str:
    """The access token cookie once the browser has stored a new one (the page may show
    the member a moment before the new cookie's delta is written), or "" if none came."""
    deadline = time.monotonic() + seconds
    while True:
        value = next(
            (c["value"] for c in page.context.cookies() if c["name"] == "ps_access_token"), ""
        )
        if (value and value != old) or time.monotonic() > deadline:
            return value
        page.wait_for_timeout(100)


def test_a_refresh_token_left_in_the_old_cookie_keeps_the_member_and_the_cookie_goes(
    page, app_server
):
    """A browser signed in before the refresh token moved to the server."""
    base = app_server.base_url
    address = unique_email("earlier")
    with with_app_database(app_server) as db:
        earlier = service.sign_up(db, address, "secret12")
    page.context.add_cookies(
        [{"name": "ps_refresh_token", "value": earlier.refresh_token, "url": base}]
    )
    open_page(page, f"{base}/dashboard")
    expect(page.get_by_test_id("dashboard-email")).to_have_text(address)
    assert not [c for c in page.context.cookies() if c["name"] == "ps_refresh_token"]
    page.context.clear_cookies(name="ps_access_token")
    page.reload()  # the session now lives on the server, bound to the browser's key
    expect(page.get_by_test_id("dashboard-email")).to_have_text(address)
