"""Two-factor sign-in in a real browser: a member adds an authenticator app on
/account/security, and from then on the password alone no longer signs them in."""

from __future__ import annotations

import time

import pyotp
import pytest
from playwright.sync_api import expect

from prettyscore.core import messages
from tests.e2e.flows import (
    new_member,
    open_page,
    sign_in,
    sign_in_form,
    wait_for_path,
    wait_until_ready,
)
from tests.fixtures.totp import fresh_code, wrong_code

pytestmark = pytest.mark.e2e


def code_field(page):
    return page.get_by_placeholder(messages.MFA_CODE_LABEL)


def test_an_authenticator_app_guards_the_sign_in(page, app_server):
    base = app_server.base_url
    address = new_member(page, base, "totp")

    # Enrol from the account menu's Security page: QR code, secret, first code.
    page.get_by_role("button", name=messages.MY_ACCOUNT, exact=True).click()
    page.get_by_role("menuitem", name=messages.NAV_SECURITY).click()
    wait_for_path(page, "/account/security")
    wait_until_ready(page)
    expect(page.get_by_text(messages.SECURITY_NO_FACTORS)).to_be_visible()
    page.get_by_placeholder(messages.SECURITY_FACTOR_NAME_LABEL).fill("My phone")
    page.get_by_role("button", name=messages.SECURITY_ADD_FACTOR).click()
    expect(page.get_by_role("img", name=messages.SECURITY_QR_ALT)).to_be_visible()
    secret = page.get_by_test_id("totp-secret").inner_text().strip()
    enrolment_step = pyotp.TOTP(secret).timecode(time.time())
    code_field(page).fill(fresh_code(secret))
    page.get_by_role("button", name=messages.MFA_VERIFY).click()
    expect(page.get_by_text(messages.SECURITY_FACTOR_ADDED)).to_be_visible()
    factor = page.get_by_test_id("security-factor")
    expect(factor).to_contain_text("My phone")
    expect(factor).to_contain_text(messages.SECURITY_STATUS_LABELS["verified"])
    expect(page.get_by_test_id("totp-secret")).to_have_count(0)
    enrolment_step = max(enrolment_step, pyotp.TOTP(secret).timecode(time.time()))

    # Sign out, then the password alone only leads to the second step.
    page.get_by_role("button", name=messages.MY_ACCOUNT, exact=True).click()
    page.get_by_role("menuitem", name=messages.SIGN_OUT).click()
    wait_for_path(page, "/auth")
    wait_until_ready(page)
    sign_in(page, address)
    expect(page.get_by_role("heading", name=messages.MFA_STEP_HEADING, exact=True)).to_be_visible()
    expect(code_field(page)).to_have_attribute("autocomplete", "one-time-code")
    expect(code_field(page)).to_have_attribute("inputmode", "numeric")
    assert sign_in_form(page).count() == 0
    assert not [c for c in page.context.cookies() if c["name"] == "ps_access_token" and c["value"]]
    open_page(page, f"{base}/dashboard")  # not signed in yet: back to /auth
    wait_for_path(page, "/auth", "?next=/dashboard")
    expect(page.get_by_role("heading", name=messages.MFA_STEP_HEADING, exact=True)).to_be_visible()

    # A wrong code is refused and may be retried; the right one lands on the dashboard.
    code_field(page).fill(wrong_code(secret))
    page.get_by_role("button", name=messages.MFA_VERIFY).click()
    expect(page.get_by_text(messages.MFA_INVALID_CODE)).to_be_visible()
    expect(page.get_by_role("heading", name=messages.MFA_STEP_HEADING, exact=True)).to_be_visible()
    code_field(page).fill(fresh_code(secret, after_step=enrolment_step))
    page.get_by_role("button", name=messages.MFA_VERIFY).click()
    expect(page.get_by_text(messages.WELCOME_BACK)).to_be_visible()
    wait_for_path(page, "/dashboard")
    expect(page.get_by_test_id("dashboard-email")).to_have_text(address)


def test_cancelling_the_second_step_goes_back_to_the_password(page, app_server):
    base = app_server.base_url
    address = new_member(page, base, "totp-cancel")
    open_page(page, f"{base}/account/security")
    page.get_by_role("button", name=messages.SECURITY_ADD_FACTOR).click()
    secret = page.get_by_test_id("totp-secret").inner_text().strip()
    code_field(page).fill(fresh_code(secret))
    page.get_by_role("button", name=messages.MFA_VERIFY).click()
    expect(page.get_by_text(messages.SECURITY_FACTOR_ADDED)).to_be_visible()
    page.context.clear_cookies()

    open_page(page, f"{base}/auth")
    sign_in(page, address)
    expect(page.get_by_role("heading", name=messages.MFA_STEP_HEADING, exact=True)).to_be_visible()
    page.get_by_role("button", name=messages.MFA_CANCEL).click()

    expect(sign_in_form(page)).to_be_visible()
    expect(page.get_by_role("heading", name=messages.MFA_STEP_HEADING, exact=True)).to_have_count(0)


def test_removing_the_authenticator_turns_the_second_step_off(page, app_server):
    base = app_server.base_url
    address = new_member(page, base, "totp-remove")
    open_page(page, f"{base}/account/security")
    page.get_by_role("button", name=messages.SECURITY_ADD_FACTOR).click()
    secret = page.get_by_test_id("totp-secret").inner_text().strip()
    code_field(page).fill(fresh_code(secret))
    page.get_by_role("button", name=messages.MFA_VERIFY).click()
    expect(page.get_by_text(messages.SECURITY_FACTOR_ADDED)).to_be_visible()

    page.get_by_test_id("security-factor").get_by_role(
        "button", name=messages.SECURITY_REMOVE
    ).click()

    expect(page.get_by_text(messages.SECURITY_FACTOR_REMOVED)).to_be_visible()
    expect(page.get_by_text(messages.SECURITY_NO_FACTORS)).to_be_visible()
    page.context.clear_cookies()
    open_page(page, f"{base}/auth")
    sign_in(page, address)
    wait_for_path(page, "/dashboard")
    expect(page.get_by_test_id("dashboard-email")).to_have_text(address)
