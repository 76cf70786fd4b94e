"""The partner programme in a real browser: a visitor reads /partners and the partner
leaderboard; a member applies and sees their pending portal; once approved, a visitor
who follows their link, signs up and subscribes shows up in the partner's portal."""

from __future__ import annotations

import re
import time
import uuid

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from prettyscore.accounts.models import Profile, User
from prettyscore.core import messages
from prettyscore.partners.models import PartnerAccount, PartnerStatus
from prettyscore.partners.programme import TIERS
from tests.e2e.flows import (
    affiliate_cookies,
    expect_on_load_notice,
    fill_partner_application,
    fill_sign_up,
    member_id,
    new_member,
    open_page,
    subscribe_to_premium,
    unique_code,
    unique_email,
    wait_for_path,
    wait_until_ready,
    with_app_database,
)

pytestmark = pytest.mark.e2e

SIXTY_DAYS = 60 * 24 * 60 * 60


def test_a_visitor_reads_the_programme_and_the_leaderboard(page, app_server):
    base = app_server.base_url
    open_page(page, f"{base}/partners")
    expect(page.get_by_role("heading", name=messages.TITLE_PARTNERS, exact=True)).to_be_visible()
    for tier in TIERS.values():
        card = page.get_by_test_id(f"tier-{tier.key}")
        expect(card).to_contain_text(tier.name)
        expect(card).to_contain_text(f"{tier.commission_percent}% commission")
    for title, body in messages.PARTNERS_BENEFITS:
        expect(page.get_by_text(title, exact=True)).to_be_visible()
        expect(page.get_by_text(body, exact=True)).to_be_visible()
    expect(page.get_by_test_id("sub-affiliate")).to_contain_text("2 tiers")
    expect(page.get_by_role("link", name=messages.PARTNERS_APPLY_NOW).first).to_be_visible()

    with with_app_database(app_server) as db:
        nobody_approved = (
            db.exec(
                select(PartnerAccount).where(PartnerAccount.status == PartnerStatus.APPROVED)
            ).first()
            is None
        )
    page.get_by_role("link", name=messages.PARTNERS_VIEW_LEADERBOARD).first.click()
    wait_for_path(page, "/partners/leaderboard")
    wait_until_ready(page)
    if nobody_approved:  # other browser tests on this server may have approved partners
        expect(page.get_by_text(messages.NO_PARTNERS_ON_LEADERBOARD)).to_be_visible()

    # Twelve approved partners earning more than anyone else: the ten best are listed.
    names = [f"Top Partner {uuid.uuid4().hex[:6]}" for _ in range(12)]
    with with_app_database(app_server) as db:
        for index, name in enumerate(names):
            visitor = new_database_member(db)
            db.add(
                PartnerAccount(
                    user_id=visitor,
                    display_name=name,
                    code=unique_code("TOP"),
                    status=PartnerStatus.APPROVED,
                    tier="elite" if index == 11 else "pro",
                    commission_percent=30 if index == 11 else 20,
                    total_earned=2_000_000_000 + index * 100,  # $20M: above any real partner
                )
            )
    open_page(page, f"{base}/partners/leaderboard")
    rows = page.get_by_test_id("leader-row")
    expect(rows).to_have_count(10)
    expected = list(reversed(names))[:10]
    expect(page.get_by_test_id("leader-name")).to_have_text(expected)
    expect(rows.first).to_have_attribute("data-first", "true")
    expect(rows.nth(1)).to_have_attribute("data-first", "false")
    expect(rows.first).to_contain_text("Elite")
    expect(rows.first.get_by_test_id("leader-earned")).to_have_text("$20,000,011.00")
    expect(rows.nth(1)).to_contain_text("Pro")


def new_database_member(db) -> uuid.UUID:
    user = User(email=unique_email("partner"), password_hash="x")
    db.add(user)
    db.flush()
    return user.id


def test_a_visitor_is_asked_to_sign_in_to_apply(page, app_server):
    page.goto(f"{app_server.base_url}/partners/apply")
    expect_on_load_notice(page, messages.SIGN_IN_TO_APPLY)
    wait_for_path(page, "/auth", "?next=/partners/apply")


def test_a_member_applies_is_pending_then_earns_from_a_referral(page, new_context, app_server):
    base = app_server.base_url
    partner_email = new_member(page, base, "partner")
    code = unique_code("ME")
    typed = code[:3].lower() + "-" + code[3:].lower() + "!X"  # lower case, symbols, too long
    fill_partner_application(page, base, "Anna Partner", typed, "summer")
    form = page.get_by_test_id("partner-application-form")
    expect(form.get_by_label(messages.PARTNER_SHORT_CODE)).to_have_value(code)
    promo = "SUMMER" + uuid.uuid4().hex[:6].upper()
    form.get_by_label(messages.PARTNER_PROMO_CODE).fill(promo.lower())
    expect(form.get_by_label(messages.PARTNER_PROMO_CODE)).to_have_value(promo)
    form.get_by_role("button", name=messages.PARTNER_SUBMIT_APPLICATION).click()

    expect(page.get_by_text(messages.APPLICATION_SUBMITTED)).to_be_visible()
    wait_for_path(page, "/partners/portal")
    portal = page.get_by_test_id("partner-portal")
    badge = portal.get_by_test_id("partner-status")
    expect(badge).to_have_text("Pending")
    expect(badge).to_have_attribute("data-colour", "yellow")
    expect(portal.get_by_text(messages.APPLICATION_UNDER_REVIEW)).to_be_visible()
    expect(portal.get_by_test_id("referral-link")).to_have_text(f"{base}/r/{code}")
    expect(portal.get_by_test_id("promo-code")).to_have_text(promo)
    expect(portal.get_by_test_id("partner-tier")).to_have_text("Starter")
    expect(portal.get_by_test_id("partner-commission")).to_have_text("15% commission")
    expect(portal.get_by_text(messages.PARTNER_NO_CONVERSIONS)).to_be_visible()

    # One account per member: applying again leads back to the portal.
    open_page(page, f"{base}/partners/apply")
    expect(page.get_by_text(messages.ALREADY_PARTNER)).to_be_visible()
    wait_for_path(page, "/partners/portal")

    # A pending partner's link counts nothing and leaves no cookie.
    visitor = new_context().new_page()
    visitor.goto(f"{base}/r/{code}")
    wait_for_path(visitor, "/")
    assert not affiliate_cookies(visitor.context)

    with with_app_database(app_server) as db:  # the admin approves the application
        account = db.exec(select(PartnerAccount).where(PartnerAccount.code == code)).one()
        assert account.user_id == member_id(db, partner_email)
        assert account.total_clicks == 0
        account.status = PartnerStatus.APPROVED
        db.add(account)

    visitor.goto(f"{base}/r/{code.lower()}")
    wait_for_path(visitor, "/")
    (cookie,) = affiliate_cookies(visitor.context)
    assert (cookie["value"], cookie["path"], cookie["httpOnly"]) == (code, "/", True)
    assert abs(cookie["expires"] - (time.time() + SIXTY_DAYS)) < 120
    open_page(visitor, f"{base}/auth")
    buyer = unique_email("referred")
    fill_sign_up(visitor, buyer)
    wait_for_path(visitor, "/dashboard")
    with with_app_database(app_server) as db:
        referred_by = db.get(Profile, member_id(db, buyer)).referred_by_partner
        assert referred_by == account.id

    # The referred member subscribes (test checkout): the partner earns 15% of $9.99, $1.50.
    subscribe_to_premium(visitor, base)

    open_page(page, f"{base}/partners/portal")
    expect(badge).to_have_text("Approved")
    expect(badge).to_have_attribute("data-colour", "green")
    expect(portal.get_by_text(messages.APPLICATION_UNDER_REVIEW)).to_have_count(0)
    expect(portal.get_by_test_id("partner-clicks")).to_have_text("1")
    expect(portal.get_by_test_id("partner-conversions")).to_have_text("1")
    expect(portal.get_by_test_id("partner-earned")).to_have_text("$1.50")
    row = portal.get_by_test_id("conversion-row")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("$9.99")
    expect(row).to_contain_text("$1.50")
    expect(row).to_contain_text("Unpaid")
    expect(row).to_contain_text(re.compile(r"[A-Z][a-z]{2} \d{1,2}, \d{4}"))

    portal.get_by_role("button", name=messages.PARTNER_COPY_LINK).click()
    expect(page.get_by_text(messages.REFERRAL_LINK_COPIED)).to_be_visible()
    portal.get_by_role("button", name=messages.PARTNER_COPY_PROMO).click()
    expect(page.get_by_text(messages.PROMO_CODE_COPIED)).to_be_visible()
