"""The partner programme end to end, in three browsers: a member applies and waits, an
admin approves them on Pro, a visitor follows their link and subscribes to Premium, the
partner sees the commission, the admin pays it and the partner sees it paid."""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from prettyscore.billing.checkout import format_amount
from prettyscore.core import messages
from prettyscore.core.constants import PREMIUM_MONTHLY_CENTS
from prettyscore.partners import service as partners
from prettyscore.partners.models import ConversionStatus, PartnerConversion, PartnerStatus
from prettyscore.partners.programme import (
    PRO,
    STARTER,
    commission_cents,
    share_cents,
)
from tests.e2e.flows import (
    affiliate_cookies,
    fill_partner_application,
    fill_sign_up,
    member_id,
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
SECOND_TIER_PERCENT = 5  # the setting's default, which the test server runs with
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
    admin.get_by_role("button", name=messages.PARTNER_STATUS_LABELS[PartnerStatus.PENDING]).click()
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
        query = select(PartnerConversion.partner_id).where(
            PartnerConversion.status == ConversionStatus.UNPAID
        )
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
    expect(conversion.get_by_role("cell")).to_have_text(
        [DATE, price, commission, STATUS[ConversionStatus.UNPAID]]
    )

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
    expect(conversion.get_by_role("cell").last).to_have_text(STATUS[ConversionStatus.PAID])
    open_page(admin, f"{base}/admin/payouts")
    expect(admin.get_by_test_id("payout-row").filter(has_text=code)).to_have_count(1)
    expect(owed).to_have_count(0)
    if not others_owed(app_server, partner_id):
        expect(admin.get_by_text(messages.NO_UNPAID_CONVERSIONS)).to_be_visible()


def approve_partner(app_server, address: str, code: str, promo: str = "") -> None:
    """The member with ``address`` applies with ``code`` and ``promo``, and the admin
    approves them (written to the running app's database: the admin's screens are
    walked through above)."""
    with with_app_database(app_server) as db:
        account = partners.apply(db, member_id(db, address), f"Partner {code}", code, promo)
        account.status = PartnerStatus.APPROVED


def test_a_promo_code_at_checkout_credits_the_partner_and_pays_the_second_tier(
    page, new_context, app_server
):
    base = app_server.base_url
    price = format_amount(PREMIUM_MONTHLY_CENTS)
    first_tier = format_amount(commission_cents(PREMIUM_MONTHLY_CENTS, STARTER))
    second_tier = format_amount(share_cents(PREMIUM_MONTHLY_CENTS, SECOND_TIER_PERCENT))

    # The programme page tells partners what the second tier pays.
    open_page(page, f"{base}/partners")
    rate = messages.PARTNERS_SECOND_TIER_RATE.format(percent=SECOND_TIER_PERCENT)
    expect(page.get_by_test_id("second-tier-rate")).to_have_text(rate)

    # ANNA is a partner; a member she referred through her link becomes the partner
    # PAULA, with a promo code.
    anna_code, paula_code = unique_code("AN"), unique_code("PA")
    promo = f"P{paula_code}"
    anna = new_member(page, base, "anna")
    approve_partner(app_server, anna, anna_code)
    paula_page = new_context().new_page()
    paula_page.goto(f"{base}/r/{anna_code}")
    wait_for_path(paula_page, "/")
    paula = unique_email("paula")
    open_page(paula_page, f"{base}/auth")
    fill_sign_up(paula_page, paula)
    wait_for_path(paula_page, "/dashboard")
    approve_partner(app_server, paula, paula_code, promo)

    # A member nobody referred subscribes with PAULA's code, on a phone: the field fits.
    buyer = new_context(viewport={"width": 390, "height": 800}).new_page()
    new_member(buyer, base, "promo-buyer")
    open_page(buyer, f"{base}/premium")
    field = buyer.get_by_role("textbox", name=messages.PROMO_CODE_FIELD)
    expect(field).to_be_visible()
    assert buyer.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    field.fill("NOSUCHCODE1")
    buyer.get_by_role("button", name=messages.PREMIUM_SUBSCRIBE).click()
    expect(buyer.get_by_text(messages.PROMO_CODE_UNKNOWN)).to_be_visible()
    assert urlparse(buyer.url).path == "/premium"  # no checkout started
    field.fill(promo.lower())
    expect(field).to_have_value(promo)
    buyer.get_by_role("button", name=messages.PREMIUM_SUBSCRIBE).click()
    buyer.wait_for_url(re.compile(r"/checkout/test/?\?session=\w+$"))
    applied = messages.PROMO_CODE_APPLIED.format(code=promo)
    expect(buyer.get_by_test_id("checkout-promo-code")).to_have_text(applied)
    buyer.get_by_role("button", name=messages.TEST_CHECKOUT_PAY.format(amount=price)).click()
    wait_for_path(buyer, "/premium", "?success=true")

    # PAULA's portal shows the conversion her code brought.
    open_page(paula_page, f"{base}/partners/portal")
    portal = paula_page.get_by_test_id("partner-portal")
    expect(portal.get_by_test_id("partner-conversions")).to_have_text("1")
    expect(portal.get_by_test_id("partner-earned")).to_have_text(first_tier)
    row = portal.get_by_test_id("conversion-row")
    expect(row.get_by_role("cell")).to_have_text(
        [DATE, price, first_tier, STATUS[ConversionStatus.UNPAID]]
    )

    # ANNA earns the second tier on PAULA's sale, and sees it as such.
    open_page(page, f"{base}/partners/portal")
    portal = page.get_by_test_id("partner-portal")
    expect(portal.get_by_test_id("partner-earned")).to_have_text(second_tier)
    expect(portal.get_by_test_id("partner-second-tier")).to_have_text(
        messages.PARTNER_SECOND_TIER_EARNED.format(percent=SECOND_TIER_PERCENT, amount=second_tier)
    )
    expect(portal.get_by_test_id("partner-conversions")).to_have_text("0")
    row = portal.get_by_test_id("conversion-row")
    expect(row).to_have_count(1)
    expect(row.get_by_test_id("second-tier-badge")).to_have_text(messages.PARTNER_SECOND_TIER_BADGE)
    expect(row.get_by_role("cell").nth(2)).to_have_text(second_tier)

    # On a phone, PAULA's conversion fits: its status is whole, nothing scrolls sideways.
    paula_page.set_viewport_size({"width": 390, "height": 800})
    open_page(paula_page, f"{base}/partners/portal")
    item = paula_page.get_by_test_id("conversion-item")
    status = item.get_by_text(STATUS[ConversionStatus.UNPAID], exact=True)
    expect(status).to_be_visible()
    box = status.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert paula_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # The admin counts ANNA's own sales alike on both pages, her second tier beside.
    admin = new_context().new_page()
    new_admin(admin, app_server)
    open_page(admin, f"{base}/admin/partners")
    listed = admin.locator(f'[data-testid="partner-row"][data-code="{anna_code}"]')
    expect(listed.get_by_role("cell").nth(5)).to_have_text("0")
    open_page(admin, f"{base}/admin/payouts")
    owed = admin.get_by_test_id("unpaid-row").filter(has_text=anna_code)
    expect(owed.get_by_test_id("unpaid-conversions")).to_have_text("0")
    expect(owed.get_by_test_id("unpaid-second-tier")).to_have_text(
        f"+1 {messages.PARTNER_SECOND_TIER_BADGE}"
    )
