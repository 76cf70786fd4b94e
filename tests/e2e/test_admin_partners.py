"""Partner administration in a browser: approve, set a tier, pay, and who may do it."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from prettyscore.accounts import service as accounts
from prettyscore.core import messages
from prettyscore.partners.models import PartnerAccount, PartnerConversion
from tests.e2e.flows import (
    expect_on_load_notice,
    new_admin,
    new_member,
    open_page,
    unique_email,
    wait_for_path,
    with_app_database,
)

pytestmark = pytest.mark.e2e


def pending_partner(app_server, commissions: tuple[int, ...]) -> PartnerAccount:
    """A member's pending partner account with unpaid conversions worth ``commissions``
    cents: what an application and referred sales leave behind."""
    with with_app_database(app_server) as db:
        owner = accounts.sign_up(db, unique_email("partner"), "secret12")
        account = PartnerAccount(
            user_id=owner.user_id,
            display_name=f"Partner {uuid.uuid4().hex[:4]}",
            code=uuid.uuid4().hex[:8].upper(),
            total_clicks=10 * len(commissions),
            total_conversions=len(commissions),
            total_earned=sum(commissions),
        )
        db.add(account)
        db.flush()
        for commission in commissions:
            db.add(
                PartnerConversion(
                    partner_id=account.id,
                    payment_ref=f"pay_{uuid.uuid4().hex}",
                    amount=commission * 100 // 15,
                    commission=commission,
                )
            )
        return account


def conversion_statuses(app_server, account: PartnerAccount) -> list[str]:
    with with_app_database(app_server) as db:
        query = select(PartnerConversion.status).where(PartnerConversion.partner_id == account.id)
        return sorted(db.exec(query).all())


def test_an_admin_approves_a_partner_sets_pro_and_pays_them(page, app_server):
    base = app_server.base_url
    account = pending_partner(app_server, (1_500, 2_250))
    new_admin(page, app_server)

    open_page(page, f"{base}/admin/partners")
    expect(page.get_by_role("heading", name=messages.ADMIN_PARTNERS_TITLE)).to_be_visible()
    page.get_by_role("button", name=messages.PARTNER_STATUS_LABELS["pending"]).click()
    row = page.locator(f'[data-testid="partner-row"][data-partner-id="{account.id}"]')
    expect(row.get_by_test_id("status-badge")).to_have_text("Pending")
    row.get_by_role("button", name=messages.PARTNER_APPROVE).click()
    expect(
        page.get_by_text(messages.PARTNER_STATUS_CHANGED.format(status="approved"))
    ).to_be_visible()
    expect(row).to_have_count(0)  # no longer pending

    page.get_by_role("button", name=messages.PARTNER_STATUS_LABELS["approved"]).click()
    expect(row.get_by_test_id("status-badge")).to_have_text("Approved")
    expect(row.get_by_role("button", name=messages.PARTNER_SUSPEND)).to_be_visible()
    row.get_by_role("combobox", name="Tier").click()
    page.get_by_role("option", name="Pro").click()
    expect(page.get_by_text(messages.TIER_UPDATED.format(tier="Pro"))).to_be_visible()
    expect(row.get_by_test_id("commission")).to_have_text("20%")

    page.get_by_role("link", name=messages.VIEW_PAYOUTS).click()
    wait_for_path(page, "/admin/payouts")
    owed = page.locator(f'[data-testid="unpaid-row"][data-partner-id="{account.id}"]')
    expect(owed).to_contain_text("$37.50")
    owed.get_by_role("button", name=messages.MARK_AS_PAID).click()
    expect(page.get_by_text(messages.PAYOUT_MARKED_SENT)).to_be_visible()
    expect(owed).to_have_count(0)
    recorded = page.get_by_test_id("payout-row").filter(has_text=account.code)
    expect(recorded).to_have_count(1)
    expect(recorded).to_contain_text("$37.50")
    expect(recorded).to_contain_text("sent")
    assert conversion_statuses(app_server, account) == ["paid", "paid"]


def test_a_member_opening_partner_management_is_refused_and_sees_no_partner(page, app_server):
    base = app_server.base_url
    account = pending_partner(app_server, (500,))
    new_member(page, base)
    page.goto(f"{base}/admin/partners")
    expect_on_load_notice(page, messages.ACCESS_DENIED_ADMIN_ONLY)
    wait_for_path(page, "/")
    expect(page.get_by_text(account.code)).to_have_count(0)
    assert conversion_statuses(app_server, account) == ["unpaid"]
