"""Partner administration: who may use it, the status moves, tiers and payouts."""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, date, datetime

import pytest
from sqlmodel import select

from prettyscore.core import messages
from prettyscore.core.errors import Conflict, NotFound, PermissionDenied, ValidationFailed
from prettyscore.partners import admin_service as service
from prettyscore.partners import commissions, programme, referrals
from prettyscore.partners.models import (
    ConversionStatus,
    PartnerConversion,
    PartnerPayout,
    PartnerStatus,
)
from tests.fixtures.people import admin, conversion, member, partner


def payouts_of(db, account) -> list[PartnerPayout]:
    return list(db.exec(select(PartnerPayout).where(PartnerPayout.partner_id == account.id)))


def statuses_of_conversions(db, account) -> list[str]:
    query = select(PartnerConversion.status).where(PartnerConversion.partner_id == account.id)
    return sorted(db.exec(query).all())


# ---------------------------------------------------------------------------
# Who may use it
# ---------------------------------------------------------------------------
def every_admin_call(account):
    """Each public function of the partner admin service, ready to call with a caller."""
    return {
        "list_partners": lambda db, who: service.list_partners(db, who),
        "set_partner_status": lambda db, who: service.set_partner_status(
            db, who, account.id, PartnerStatus.APPROVED
        ),
        "set_partner_tier": lambda db, who: service.set_partner_tier(db, who, account.id, "elite"),
        "unpaid_by_partner": lambda db, who: service.unpaid_by_partner(db, who),
        "mark_paid": lambda db, who: service.mark_paid(db, who, account.id),
        "recent_payouts": lambda db, who: service.recent_payouts(db, who),
    }


@pytest.mark.parametrize("call", list(every_admin_call(None)))
def test_a_member_is_refused_every_call_and_nothing_changes(db, call):
    account = partner(db, PartnerStatus.PENDING)
    conversion(db, account, 500)
    for caller in (member(db), None):
        with pytest.raises(PermissionDenied) as refused:
            every_admin_call(account)[call](db, caller)
        assert refused.value.message == messages.ACCESS_DENIED_ADMIN_ONLY
    db.refresh(account)
    assert (account.status, account.tier, account.commission_percent) == (
        PartnerStatus.PENDING,
        "starter",
        15,
    )
    assert statuses_of_conversions(db, account) == ["unpaid"]
    assert payouts_of(db, account) == []


@pytest.mark.parametrize("call", list(every_admin_call(None)))
def test_an_admin_may_make_every_call(db, call):
    account = partner(db, PartnerStatus.PENDING)
    conversion(db, account, 500)
    every_admin_call(account)[call](db, admin(db))


# ---------------------------------------------------------------------------
# The partner list
# ---------------------------------------------------------------------------
def test_partners_are_listed_newest_first_with_the_members_email_and_filtered(db):
    boss = admin(db)
    old = partner(
        db, PartnerStatus.APPROVED, name="Old", minutes_ago=30, total_clicks=12, total_earned=4_500
    )
    new = partner(db, PartnerStatus.PENDING, name="New", minutes_ago=1)
    suspended = partner(db, PartnerStatus.SUSPENDED, name="Gone", minutes_ago=10)

    everyone = service.list_partners(db, boss)
    assert [row.display_name for row in everyone] == ["New", "Gone", "Old"]
    first = everyone[-1]
    assert (first.code, first.clicks, first.earned_cents) == (old.code, 12, 4_500)
    assert first.email.startswith("partner-") and first.email.endswith("@example.com")
    for status, account in (
        (PartnerStatus.PENDING, new),
        (PartnerStatus.APPROVED, old),
        (PartnerStatus.SUSPENDED, suspended),
    ):
        assert [row.id for row in service.list_partners(db, boss, status)] == [account.id]
    assert len(service.list_partners(db, boss, "all")) == 3
    with pytest.raises(ValidationFailed):
        service.list_partners(db, boss, "deleted")


# ---------------------------------------------------------------------------
# Status moves (document 001 §4)
# ---------------------------------------------------------------------------
ALLOWED_MOVES = {
    (PartnerStatus.PENDING, PartnerStatus.APPROVED),
    (PartnerStatus.APPROVED, PartnerStatus.SUSPENDED),
    (PartnerStatus.SUSPENDED, PartnerStatus.APPROVED),
}


@pytest.mark.parametrize("start", programme.PARTNER_STATUSES)
@pytest.mark.parametrize("target", programme.PARTNER_STATUSES)
def test_only_approve_suspend_and_reactivate_are_allowed(db, start, target):
    boss = admin(db)
    account = partner(db, start)
    if (start, target) in ALLOWED_MOVES:
        assert service.set_partner_status(db, boss, account.id, target).status == target
    else:
        with pytest.raises(Conflict) as refused:
            service.set_partner_status(db, boss, account.id, target)
        assert refused.value.message == messages.PARTNER_TRANSITION_REFUSED.format(
            current=start, status=target
        )
    db.refresh(account)
    assert account.status == (target if (start, target) in ALLOWED_MOVES else start)


def test_an_unknown_status_or_partner_is_refused(db):
    boss = admin(db)
    account = partner(db, PartnerStatus.PENDING)
    with pytest.raises(ValidationFailed):
        service.set_partner_status(db, boss, account.id, "deleted")
    for unknown in ("not-a-uuid", "00000000-0000-0000-0000-000000000000"):
        with pytest.raises(NotFound):
            service.set_partner_status(db, boss, unknown, PartnerStatus.APPROVED)


# ---------------------------------------------------------------------------
# Tiers (document 001 §9)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(("tier", "percent"), [("starter", 15), ("pro", 20), ("elite", 30)])
def test_a_tier_change_sets_the_tiers_commission_percent(db, tier, percent):
    account = partner(db, PartnerStatus.APPROVED, tier="elite" if tier != "elite" else "starter")
    updated = service.set_partner_tier(db, admin(db), account.id, tier)
    db.refresh(account)
    assert (updated.tier, account.tier, account.commission_percent) == (tier, tier, percent)


def test_an_unknown_tier_is_refused_and_the_commission_stays(db):
    account = partner(db, PartnerStatus.APPROVED)
    with pytest.raises(ValidationFailed) as refused:
        service.set_partner_tier(db, admin(db), account.id, "platinum")
    assert refused.value.message == messages.PARTNER_TIER_UNKNOWN
    db.refresh(account)
    assert (account.tier, account.commission_percent) == ("starter", 15)


# ---------------------------------------------------------------------------
# Payouts
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("today", "start"),
    [
        (date(2026, 11, 21), date(2026, 11, 1)),
        (date(2026, 12, 1), date(2026, 12, 1)),
        (date(2028, 2, 29), date(2028, 2, 1)),
    ],
)
def test_the_payout_period_runs_from_the_first_of_the_month_to_today(today, start):
    assert service.payout_period(today) == (start, today)


def test_unpaid_conversions_are_counted_and_summed_per_partner(db):
    boss = admin(db)
    big, small, settled = (
        partner(db, PartnerStatus.APPROVED, name=n) for n in ("Big", "Small", "Settled")
    )
    for commission in (1_500, 2_000, 333):
        conversion(db, big, commission)
    conversion(db, big, 9_999, status=ConversionStatus.PAID)
    conversion(db, small, 150)
    conversion(db, settled, 700, status=ConversionStatus.PAID)

    rows = service.unpaid_by_partner(db, boss)
    assert [(row.display_name, row.conversions, row.amount_cents) for row in rows] == [
        ("Big", 3, 3_833),
        ("Small", 1, 150),
    ]
    assert rows[0].code == big.code and rows[0].email.endswith("@example.com")


def test_mark_as_paid_pays_every_unpaid_conversion_and_records_one_sent_payout(db):
    boss = admin(db)
    account, other = partner(db, PartnerStatus.APPROVED), partner(db, PartnerStatus.APPROVED)
    for commission in (1_500, 2_000, 333):
        conversion(db, account, commission)
    conversion(db, account, 9_999, status=ConversionStatus.PAID)
    conversion(db, other, 400)

    payout = service.mark_paid(db, boss, account.id)
    today = datetime.now(UTC).date()
    assert (payout.period_start, payout.period_end) == (today.replace(day=1), today)
    assert (payout.total_amount, payout.status) == (3_833, "sent")
    assert statuses_of_conversions(db, account) == ["paid"] * 4
    assert statuses_of_conversions(db, other) == ["unpaid"]
    assert [row.partner_id for row in service.unpaid_by_partner(db, boss)] == [other.id]
    recent = service.recent_payouts(db, boss)
    assert [(row.display_name, row.total_cents, row.status) for row in recent] == [
        (account.display_name, 3_833, "sent")
    ]


def test_marking_paid_twice_pays_nothing_the_second_time(db):
    boss = admin(db)
    account = partner(db, PartnerStatus.APPROVED)
    conversion(db, account, 1_000)
    service.mark_paid(db, boss, account.id)
    with pytest.raises(Conflict) as refused:
        service.mark_paid(db, boss, account.id)
    assert refused.value.message == messages.NO_UNPAID_CONVERSIONS
    assert [payout.total_amount for payout in payouts_of(db, account)] == [1_000]

    conversion(db, account, 250)  # a new sale after the payout: paid on its own next time
    assert service.mark_paid(db, boss, account.id).total_amount == 250


def test_a_payout_is_one_transaction_with_the_conversions_it_pays(db_factory):
    with db_factory() as db:
        boss, account = admin(db), partner(db, PartnerStatus.APPROVED)
        conversion(db, account, 1_200)
    with pytest.raises(RuntimeError), db_factory() as db:
        service.mark_paid(db, boss, account.id)
        raise RuntimeError("the request fails before its transaction commits")
    with db_factory() as db:
        assert statuses_of_conversions(db, account) == ["unpaid"]
        assert payouts_of(db, account) == []


def test_two_admins_marking_the_same_partner_at_once_pay_it_once(db_factory):
    with db_factory() as db:
        bosses, account = (admin(db), admin(db)), partner(db, PartnerStatus.APPROVED)
        for commission in (700, 800):
            conversion(db, account, commission)
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def pay(boss):
        start.wait()
        try:
            with db_factory() as db:
                service.mark_paid(db, boss, account.id)
            outcomes.append("paid")
        except Conflict:
            outcomes.append("nothing to pay")

    threads = [threading.Thread(target=pay, args=(boss,)) for boss in bosses]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["nothing to pay", "paid"]
    with db_factory() as db:
        assert [payout.total_amount for payout in payouts_of(db, account)] == [1_500]


def test_both_admin_pages_count_a_partners_own_sales_and_owe_the_second_tier_beside(db):
    boss = admin(db)
    upline = partner(db, PartnerStatus.APPROVED, name="Upline")
    downline = partner(db, PartnerStatus.APPROVED, name="Downline")
    referrals.attribute_referral(db, downline.user_id, upline.code)
    for number in range(2):
        buyer = member(db, f"buyer{number}")
        referrals.attribute_referral(db, buyer, downline.code)
        commissions.record_conversion(db, buyer, 10_000, f"pay_{uuid.uuid4().hex}")

    listed = {row.display_name: row.conversions for row in service.list_partners(db, boss)}
    owed = {row.display_name: row for row in service.unpaid_by_partner(db, boss)}
    assert listed["Downline"] == owed["Downline"].conversions == 2
    assert owed["Downline"].second_tier == 0
    # The upline referred no sale itself: no conversion on either page, two commissions owed.
    assert listed["Upline"] == owed["Upline"].conversions == 0
    assert owed["Upline"].second_tier == 2
    assert owed["Upline"].amount_cents > 0
