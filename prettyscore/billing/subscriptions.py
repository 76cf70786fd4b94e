"""Premium subscriptions kept in step with the payment provider's events.

The rules that make duplicate and out-of-order delivery harmless:

- A paid Premium checkout creates the member's subscription row if no event has yet;
  it never overwrites what a subscription event already said.
- Subscription and invoice events carry Stripe's ``created`` time. The row keeps the
  time of the last one applied (``last_event_at``) and ignores anything older.
- A deleted (canceled) subscription stays ended, whatever arrives after.
"""

from __future__ import annotations

import calendar
import logging
import uuid
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, select

from prettyscore.accounts.models import User
from prettyscore.billing import fulfilment
from prettyscore.billing.models import CheckoutSession, Subscription, SubscriptionStatus
from prettyscore.billing.service import ENDED_STATUS, PREMIUM_PLAN
from prettyscore.core.model_types import utcnow

log = logging.getLogger(__name__)


def add_month(moment: datetime) -> datetime:
    """The same time one calendar month later (Jan 31 → Feb 28/29), as Stripe bills."""
    year, month = (moment.year + 1, 1) if moment.month == 12 else (moment.year, moment.month + 1)
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


def from_timestamp(value: Any) -> datetime | None:
    """A Stripe unix timestamp as an aware UTC datetime (None stays None)."""
    if value is None:
        return None
    return datetime.fromtimestamp(int(value), UTC)


def by_provider_id(db: Session, subscription_id: str | None) -> Subscription | None:
    if not subscription_id:
        return None
    return db.exec(
        select(Subscription).where(Subscription.provider_subscription_id == subscription_id)
    ).first()


# ---------------------------------------------------------------------------
# A paid Premium checkout
# ---------------------------------------------------------------------------
def fulfil_premium(db: Session, payment: CheckoutSession, session: dict[str, Any]) -> None:
    """Give the member Premium for the period just paid, unless events already did."""
    subscription_id = session.get("subscription")
    if by_provider_id(db, subscription_id) is not None:
        return
    now = utcnow()
    db.add(
        Subscription(
            user_id=payment.user_id,
            status=SubscriptionStatus.ACTIVE,
            plan_type=PREMIUM_PLAN,
            expires_at=add_month(now),
            provider_customer_id=session.get("customer"),
            provider_subscription_id=subscription_id,
            created_at=now,
            updated_at=now,
        )
    )
    db.flush()


fulfilment.register_fulfilment(fulfilment.KIND_SUBSCRIPTION, fulfil_premium)


# ---------------------------------------------------------------------------
# customer.subscription.created / updated / deleted
# ---------------------------------------------------------------------------
def _period_end(subscription: dict[str, Any]) -> datetime | None:
    """The end of the paid period: on the subscription (older API versions) or on its
    items (newer ones)."""
    if subscription.get("current_period_end"):
        return from_timestamp(subscription["current_period_end"])
    items = (subscription.get("items") or {}).get("data") or []
    ends = [item.get("current_period_end") for item in items if item.get("current_period_end")]
    return from_timestamp(max(ends)) if ends else None


def _member_of(db: Session, subscription: dict[str, Any]) -> uuid.UUID | None:
    """Whose subscription this is: our metadata, else a row with the same customer."""
    raw = (subscription.get("metadata") or {}).get("user_id")
    try:
        user_id = uuid.UUID(str(raw)) if raw else None
    except ValueError:
        user_id = None
    if user_id is not None and db.get(User, user_id) is not None:
        return user_id
    customer = subscription.get("customer")
    if customer:
        known = db.exec(
            select(Subscription).where(Subscription.provider_customer_id == customer)
        ).first()
        if known is not None:
            return known.user_id
    return None


def _is_stale(row: Subscription, event_time: datetime) -> bool:
    """Whether an event says nothing new: the row ended, or a newer event was applied."""
    if row.status == ENDED_STATUS:
        return True
    return row.last_event_at is not None and event_time < row.last_event_at


def apply_subscription_event(db: Session, event: dict[str, Any]) -> None:
    """Mirror a subscription's status, period and pending cancel from a newer event."""
    subscription = event["data"]["object"]
    event_time = from_timestamp(event.get("created")) or utcnow()
    deleted = event["type"] == "customer.subscription.deleted"
    row = by_provider_id(db, subscription.get("id"))
    if row is None:
        user_id = _member_of(db, subscription)
        if user_id is None:
            log.warning("Subscription %s belongs to no member we know", subscription.get("id"))
            return
        row = Subscription(
            user_id=user_id,
            plan_type=PREMIUM_PLAN,
            provider_subscription_id=subscription.get("id"),
        )
    elif row.status == ENDED_STATUS or (not deleted and _is_stale(row, event_time)):
        return  # ended stays ended; a deletion is final, so it applies whenever it arrives
    row.status = (
        ENDED_STATUS if deleted else str(subscription.get("status") or SubscriptionStatus.ACTIVE)
    )
    row.provider_customer_id = subscription.get("customer") or row.provider_customer_id
    row.cancel_at_period_end = bool(subscription.get("cancel_at_period_end"))
    if deleted:
        row.expires_at = from_timestamp(subscription.get("ended_at")) or event_time
    else:
        row.expires_at = _period_end(subscription) or row.expires_at
    row.last_event_at = max(event_time, row.last_event_at or event_time)
    row.updated_at = utcnow()
    db.add(row)
    db.flush()


# ---------------------------------------------------------------------------
# invoice.paid / invoice.payment_failed
# ---------------------------------------------------------------------------
def invoice_subscription_id(invoice: dict[str, Any]) -> str | None:
    """The subscription an invoice bills: a top-level field in older API versions, under
    ``parent.subscription_details`` in newer ones."""
    if invoice.get("subscription"):
        return invoice["subscription"]
    details = (invoice.get("parent") or {}).get("subscription_details") or {}
    return details.get("subscription")


def _invoice_period_end(invoice: dict[str, Any]) -> datetime | None:
    lines = (invoice.get("lines") or {}).get("data") or []
    ends = [(line.get("period") or {}).get("end") for line in lines]
    ends = [end for end in ends if end]
    return from_timestamp(max(ends)) if ends else None


def apply_invoice_event(db: Session, event: dict[str, Any]) -> None:
    """A paid renewal extends Premium to the invoice's period end; a failed one makes
    the subscription past due (no Premium) until Stripe reports it paid or ended."""
    invoice = event["data"]["object"]
    row = by_provider_id(db, invoice_subscription_id(invoice))
    if event["type"] == "invoice.paid" and row is not None:
        fulfilment.invoice_paid(db, row.user_id, invoice)  # money was taken, stale or not
    event_time = from_timestamp(event.get("created")) or utcnow()
    if row is None or _is_stale(row, event_time):
        return
    if event["type"] == "invoice.paid":
        row.status = SubscriptionStatus.ACTIVE
        period_end = _invoice_period_end(invoice)
        if period_end is not None and (row.expires_at is None or period_end > row.expires_at):
            row.expires_at = period_end
    else:
        row.status = SubscriptionStatus.PAST_DUE
    row.last_event_at = event_time
    row.updated_at = utcnow()
    db.add(row)
    db.flush()
