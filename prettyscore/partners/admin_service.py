"""Partner administration (document 001 §2 /admin/partners, /admin/payouts; §4; §7).

Admins only: every function checks the caller's role first, so a member who forges an
event or calls a function directly is refused like a member who opens the page.

Status changes follow the documents' three transitions (approve a pending partner,
suspend an approved one, reactivate a suspended one) as one conditional UPDATE, so two
admins clicking at once cannot move a partner along a path the documents do not allow.
A payout pays the unpaid conversions the UPDATE actually turned paid and records their
sum in the same transaction: marking a partner paid twice pays nothing the second time.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import case, func, update
from sqlmodel import Session, select

from prettyscore.accounts.access import require_admin
from prettyscore.accounts.models import User
from prettyscore.core import messages
from prettyscore.core.errors import Conflict, NotFound, ValidationFailed
from prettyscore.core.model_types import utcnow
from prettyscore.partners import programme
from prettyscore.partners.models import (
    ConversionStatus,
    PartnerAccount,
    PartnerConversion,
    PartnerPayout,
    PartnerStatus,
)

# The statuses a partner may reach, and from which (document 001 §4).
ALLOWED_FROM: dict[str, tuple[str, ...]] = {
    PartnerStatus.APPROVED: (PartnerStatus.PENDING, PartnerStatus.SUSPENDED),
    PartnerStatus.SUSPENDED: (PartnerStatus.APPROVED,),
}
PAYOUT_SENT = "sent"
# The list pages hold their rows in the admin's browser state: the newest this many.
MAX_LISTED = 500
RECENT_PAYOUTS = 20


@dataclass(frozen=True)
class PartnerRow:
    """One partner as the admin table shows it; money in cents."""

    id: uuid.UUID
    display_name: str
    email: str
    code: str
    status: str
    tier: str
    commission_percent: int
    clicks: int
    conversions: int
    earned_cents: int
    created_at: datetime


@dataclass(frozen=True)
class UnpaidRow:
    """A partner who is owed commission: how many unpaid conversions (their own referred
    sales, as /admin/partners counts them), how many second-tier commissions, and the
    sum of both."""

    partner_id: uuid.UUID
    display_name: str
    email: str
    code: str
    conversions: int
    amount_cents: int
    second_tier: int = 0


@dataclass(frozen=True)
class PayoutRow:
    """A recorded payout, with the partner it went to."""

    id: uuid.UUID
    partner_id: uuid.UUID
    display_name: str
    code: str
    period_start: date
    period_end: date
    total_cents: int
    status: str
    created_at: datetime


def _partner_key(partner_id: uuid.UUID | str) -> uuid.UUID:
    try:
        return uuid.UUID(str(partner_id))
    except ValueError as error:
        raise NotFound(messages.PARTNER_NOT_FOUND) from error


def _partner(db: Session, partner_id: uuid.UUID | str) -> PartnerAccount:
    partner = db.get(PartnerAccount, _partner_key(partner_id))
    if partner is None:
        raise NotFound(messages.PARTNER_NOT_FOUND)
    return partner


def _status_filter(status: str | None) -> str | None:
    """The status to list, or None for all; anything else is refused."""
    if status in (None, "", "all"):
        return None
    if status not in programme.PARTNER_STATUSES:
        raise ValidationFailed(messages.PARTNER_STATUS_UNKNOWN)
    return status


# ---------------------------------------------------------------------------
# /admin/partners
# ---------------------------------------------------------------------------
def list_partners(db: Session, admin_id: uuid.UUID, status: str | None = None) -> list[PartnerRow]:
    """Partners, newest first, with their member's email; only ``status`` when given."""
    require_admin(db, admin_id)
    wanted = _status_filter(status)
    query = (
        select(PartnerAccount, User.email)
        .join(User, User.id == PartnerAccount.user_id)
        .order_by(PartnerAccount.created_at.desc(), PartnerAccount.id)
        .limit(MAX_LISTED)
    )
    if wanted is not None:
        query = query.where(PartnerAccount.status == wanted)
    return [
        PartnerRow(
            id=partner.id,
            display_name=partner.display_name,
            email=email,
            code=partner.code,
            status=partner.status,
            tier=partner.tier,
            commission_percent=partner.commission_percent,
            clicks=partner.total_clicks,
            conversions=partner.total_conversions,
            earned_cents=partner.total_earned,
            created_at=partner.created_at,
        )
        for partner, email in db.exec(query).all()
    ]


def set_partner_status(
    db: Session, admin_id: uuid.UUID, partner_id: uuid.UUID | str, status: str
) -> PartnerAccount:
    """Approve, suspend or reactivate a partner; any other move is refused (Conflict)."""
    require_admin(db, admin_id)
    if status not in programme.PARTNER_STATUSES:
        raise ValidationFailed(messages.PARTNER_STATUS_UNKNOWN)
    partner = _partner(db, partner_id)
    moved = db.execute(
        update(PartnerAccount)
        .where(
            PartnerAccount.id == partner.id,
            PartnerAccount.status.in_(ALLOWED_FROM.get(status, ())),
        )
        .values(status=status)
    )
    db.refresh(partner)
    if moved.rowcount != 1:
        raise Conflict(
            messages.PARTNER_TRANSITION_REFUSED.format(current=partner.status, status=status)
        )
    return partner


def set_partner_tier(
    db: Session, admin_id: uuid.UUID, partner_id: uuid.UUID | str, tier_key: str
) -> PartnerAccount:
    """Put a partner on a tier; its commission percent comes with it (document 001 §9)."""
    require_admin(db, admin_id)
    tier = programme.TIERS.get(tier_key)
    if tier is None:
        raise ValidationFailed(messages.PARTNER_TIER_UNKNOWN)
    partner = _partner(db, partner_id)
    partner.tier = tier.key
    partner.commission_percent = tier.commission_percent
    db.add(partner)
    db.flush()
    return partner


# ---------------------------------------------------------------------------
# /admin/payouts
# ---------------------------------------------------------------------------
def payout_period(today: date) -> tuple[date, date]:
    """The period a payout covers: the first day of ``today``'s month to ``today``."""
    return today.replace(day=1), today


def unpaid_by_partner(db: Session, admin_id: uuid.UUID) -> list[UnpaidRow]:
    """Partners with unpaid conversions: their count and the commission owed, most first."""
    require_admin(db, admin_id)
    owed = (
        select(
            PartnerConversion.partner_id,
            func.sum(case((PartnerConversion.level == 1, 1), else_=0)).label("conversions"),
            func.sum(case((PartnerConversion.level != 1, 1), else_=0)).label("second_tier"),
            func.sum(PartnerConversion.commission).label("amount"),
        )
        .where(PartnerConversion.status == ConversionStatus.UNPAID)
        .group_by(PartnerConversion.partner_id)
        .subquery()
    )
    query = (
        select(PartnerAccount, User.email, owed.c.conversions, owed.c.second_tier, owed.c.amount)
        .join(owed, owed.c.partner_id == PartnerAccount.id)
        .join(User, User.id == PartnerAccount.user_id)
        .order_by(owed.c.amount.desc(), PartnerAccount.display_name, PartnerAccount.id)
        .limit(MAX_LISTED)
    )
    return [
        UnpaidRow(
            partner_id=partner.id,
            display_name=partner.display_name,
            email=email,
            code=partner.code,
            conversions=int(count),
            second_tier=int(second_tier),
            amount_cents=int(amount),
        )
        for partner, email, count, second_tier, amount in db.exec(query).all()
    ]


def mark_paid(
    db: Session, admin_id: uuid.UUID, partner_id: uuid.UUID | str, *, today: date | None = None
) -> PartnerPayout:
    """Pay all of a partner's unpaid conversions at once and record the payout (status sent).

    The UPDATE turns only rows that are still unpaid, and the payout's total is the sum
    of the rows it turned, in the caller's transaction: a second click, or a second admin
    at the same moment, finds nothing unpaid and records nothing (Conflict 'No unpaid
    conversions').
    """
    require_admin(db, admin_id)
    partner = _partner(db, partner_id)
    paid = (
        db.execute(
            update(PartnerConversion)
            .where(
                PartnerConversion.partner_id == partner.id,
                PartnerConversion.status == ConversionStatus.UNPAID,
            )
            .values(status=ConversionStatus.PAID)
            .returning(PartnerConversion.commission)
        )
        .scalars()
        .all()
    )
    if not paid:
        raise Conflict(messages.NO_UNPAID_CONVERSIONS)
    start, end = payout_period(today or utcnow().date())
    payout = PartnerPayout(
        partner_id=partner.id,
        period_start=start,
        period_end=end,
        total_amount=sum(paid),
        status=PAYOUT_SENT,
    )
    db.add(payout)
    db.flush()
    return payout


def recent_payouts(
    db: Session, admin_id: uuid.UUID, limit: int = RECENT_PAYOUTS
) -> list[PayoutRow]:
    """The latest recorded payouts, newest first, with the partner's name and code."""
    require_admin(db, admin_id)
    query = (
        select(PartnerPayout, PartnerAccount.display_name, PartnerAccount.code)
        .join(PartnerAccount, PartnerAccount.id == PartnerPayout.partner_id)
        .order_by(PartnerPayout.created_at.desc(), PartnerPayout.id)
        .limit(max(1, min(int(limit), MAX_LISTED)))
    )
    return [
        PayoutRow(
            id=payout.id,
            partner_id=payout.partner_id,
            display_name=name,
            code=code,
            period_start=payout.period_start,
            period_end=payout.period_end,
            total_cents=payout.total_amount,
            status=payout.status,
            created_at=payout.created_at,
        )
        for payout, name, code in db.exec(query).all()
    ]
