"""Accounts in a real browser: sign-up, sign-out, remembered email, sign-in, guards, recovery."""

from __future__ import annotations

import email
import time

import jwt
import pytest
from playwright.sync_api import expect

from prettyscore.core import messages
from tests.e2e.flows import open_page, sign_in_form, sign_up, unique_email, wait_for_path

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

    page.reload()  # the session survives a reload: tokens live in the browser
    expect(page.get_by_test_id("dashboard-email")).to_have_text(address)
    page.goto(f"{base}/auth")  # having a session, /auth goes on to the dashboard
    wait_for_path(page, "/dashboard")


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


def test_tampered_tokens_are_treated_as_signed_out_without_an_error_page(page, app_server):
    base = app_server.base_url
    sign_up(page, base, unique_email("tamper"))
    wait_for_path(page, "/dashboard")
    cookies = {c["name"]: c for c in page.context.cookies()}
    for name in ("ps_access_token", "ps_refresh_token"):
        cookie = cookies[name]
        page.context.add_cookies([{**cookie, "value": cookie["value"][:-4] + "abcd"}])
    page.goto(f"{base}/dashboard")
    wait_for_path(page, "/auth", "?next=/dashboard")
    expect(page.get_by_text(messages.AUTH_SUBTITLE)).to_be_visible()


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

    mails = [
        email.message_from_bytes(path.read_bytes())
        for path in sorted((app_server.data_dir / "outbox").glob("*.eml"))
    ]
    mine = [m for m in mails if m["To"] == address]
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


def test_an_expired_access_token_is_renewed_silently_with_the_refresh_token(page, app_server):
    base = app_server.base_url
    address = unique_email("renew")
    sign_up(page, base, address)
    wait_for_path(page, "/dashboard")
    cookies = {c["name"]: c for c in page.context.cookies()}
    old_access, old_refresh = cookies["ps_access_token"], cookies["ps_refresh_token"]
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
    assert renewed["ps_refresh_token"] != old_refresh["value"]
    renewed_claims = jwt.decode(renewed["ps_access_token"], options={"verify_signature": False})
    assert renewed_claims["exp"] > time.time()
    assert renewed_claims["session_id"] == claims["session_id"]
