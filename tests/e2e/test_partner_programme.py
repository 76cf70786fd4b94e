"""The partner programme end to end, in three browsers: a member applies and waits, an
admin approves them on Pro, a visitor follows their link and subscribes to Premium, the
partner sees the commission, the admin pays it and the partner sees it paid."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from prettyscore.billing.checkout import format_amount
from prettyscore.core import messages
from prettyscore.core.constants import PREMIUM_MONTHLY_CENTS
from prettyscore.partners.models import PartnerConversion
from prettyscore.partners.programme import PAID, PENDING, PRO, UNPAID, commission_cents
from tests.e2e.flows import (
    affiliate_cookies,
    fill_partner_application,
    fill_sign_up,
    new_admin,
    new_member,
    open_page,
    subscribe_to_premium,
    unique_code,
    unique_email,
    wait_for_path,
    with_app_database,
)

pytestmark = pytest.mark.e2e

STATUS = messages.PARTNER_CONVERSION_STATUS_LABELS
DATE = re.compile(r"^[A-Z][a-z]{2} \d{1,2}, \d{4}$")


def apply_with_code(page, base: str, code: str) -> None:
    """As a signed-in member: apply with ``code`` and wait for the pending portal."""
    fill_partner_application(page, base, "Paula Partner", code, "")
    form = page.get_by_test_id("partner-application-form")
    form.get_by_role("button", name=messages.PARTNER_SUBMIT_APPLICATION).click()
    expect(page.get_by_text(messages.APPLICATION_SUBMITTED)).to_be_visible()
    wait_for_path(page, "/partners/portal")


def approve_on_pro(admin, base: str, code: str) -> str:
    """As an admin on /admin/partners: approve the pending partner with ``code`` and put
    them on Pro; the partner's id, as the table holds it."""
    open_page(admin, f"{base}/admin/partners")
    admin.get_by_role("button", name=messages.PARTNER_STATUS_LABELS[PENDING]).click()
    row = admin.locator(f'[data-testid="partner-row"][data-code="{code}"]')
    expect(row.get_by_test_id("status-badge")).to_have_text("Pending")
    partner_id = row.get_attribute("data-partner-id")
    row.get_by_role("button", name=messages.PARTNER_APPROVE).click()
    approved = messages.PARTNER_STATUS_CHANGED.format(status="approved")
    expect(admin.get_by_text(approved)).to_be_visible()
    expect(row).to_have_count(0)  # the Pending filter no longer lists them

    admin.get_by_role("button", name=messages.PARTNER_STATUS_LABELS["approved"]).click()
    expect(row.get_by_test_id("status-badge")).to_have_text("Approved")
    row.get_by_role("combobox", name="Tier").click()
    admin.get_by_role("option", name=PRO.name).click()
    expect(admin.get_by_text(messages.TIER_UPDATED.format(tier=PRO.name))).to_be_visible()
    expect(row.get_by_test_id("commission")).to_have_text(f"{PRO.commission_percent}%")
    return partner_id


def others_owed(app_server, partner_id: str) -> bool:
    """Whether partners other than this one still have unpaid conversions (other browser
    tests on this server may leave some)."""
    with with_app_database(app_server) as db:
        query = select(PartnerConversion.partner_id).where(PartnerConversion.status == UNPAID)
        return any(str(owner) != partner_id for owner in db.exec(query).all())


def test_a_referred_subscription_earns_a_pro_partner_commission_that_is_paid_out(
    page, new_context, app_server
):
    base = app_server.base_url
    price = format_amount(PREMIUM_MONTHLY_CENTS)
    commission = format_amount(commission_cents(PREMIUM_MONTHLY_CENTS, PRO))

    # A member applies with their own code and waits for review.
    new_member(page, base, "partner")
    code = unique_code("PP")
    apply_with_code(page, base, code)
    portal = page.get_by_test_id("partner-portal")
    expect(portal.get_by_test_id("partner-status")).to_have_text("Pending")
    expect(portal.get_by_text(messages.APPLICATION_UNDER_REVIEW)).to_be_visible()
    link = portal.get_by_test_id("referral-link")
    expect(link).to_have_text(f"{base}/r/{code}")

    # An admin approves them and puts them on Pro.
    admin = new_context().new_page()
    new_admin(admin, app_server)
    partner_id = approve_on_pro(admin, base, code)

    # A visitor follows the partner's link, signs up and subscribes to Premium.
    visitor = new_context().new_page()
    visitor.goto(link.inner_text())
    wait_for_path(visitor, "/")
    assert [cookie["value"] for cookie in affiliate_cookies(visitor.context)] == [code]
    open_page(visitor, f"{base}/auth")
    fill_sign_up(visitor, unique_email("referred"))
    wait_for_path(visitor, "/dashboard")
    subscribe_to_premium(visitor, base)

    # The partner sees the click, the conversion and 20% of Premium's price.
    open_page(page, f"{base}/partners/portal")
    expect(portal.get_by_test_id("partner-status")).to_have_text("Approved")
    expect(portal.get_by_test_id("partner-tier")).to_have_text(PRO.name)
    expect(portal.get_by_test_id("partner-clicks")).to_have_text("1")
    expect(portal.get_by_test_id("partner-conversions")).to_have_text("1")
    expect(portal.get_by_test_id("partner-earned")).to_have_text(commission)
    conversion = portal.get_by_test_id("conversion-row")
    expect(conversion).to_have_count(1)
    expect(conversion.get_by_role("cell")).to_have_text([DATE, price, commission, STATUS[UNPAID]])

    # The admin pays the partner what they are owed.
    open_page(admin, f"{base}/admin/payouts")
    owed = admin.locator(f'[data-testid="unpaid-row"][data-partner-id="{partner_id}"]')
    expect(owed).to_contain_text(code)
    expect(owed.get_by_role("cell").nth(2)).to_have_text(commission)
    owed.get_by_role("button", name=messages.MARK_AS_PAID).click()
    expect(admin.get_by_text(messages.PAYOUT_MARKED_SENT)).to_be_visible()
    expect(owed).to_have_count(0)
    payout = admin.get_by_test_id("payout-row").filter(has_text=code)
    expect(payout).to_have_count(1)
    expect(payout.get_by_role("cell").nth(2)).to_have_text(commission)

    # The partner sees the conversion paid; nothing is left to pay them.
    open_page(page, f"{base}/partners/portal")
    expect(conversion.get_by_role("cell").last).to_have_text(STATUS[PAID])
    open_page(admin, f"{base}/admin/payouts")
    expect(admin.get_by_test_id("payout-row").filter(has_text=code)).to_have_count(1)
    expect(owed).to_have_count(0)
    if not others_owed(app_server, partner_id):
        expect(admin.get_by_text(messages.NO_UNPAID_CONVERSIONS)).to_be_visible()
