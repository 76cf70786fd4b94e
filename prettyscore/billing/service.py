"""Billing rules other areas ask about: who has Premium, and cancelling it.

``is_subscriber`` is the one place that decides whether someone has Premium: the free
edit and video limits and the premium badge all ask it (the documents' check-subscription).
Payments themselves start in ``billing.checkout`` and are fulfilled by verified webhook
events in ``billing.webhooks``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, select

from prettyscore.billing import stripe_client
from prettyscore.billing.fulfilment import KIND_SUBSCRIPTION
from prettyscore.billing.models import (
    CheckoutSession,
    PaymentStatus,
    Subscription,
    SubscriptionStatus,
)
from prettyscore.core import messages
from prettyscore.core.errors import DomainError, NotFound
from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import get_settings

PREMIUM_PLAN = "premium_editing"
ACTIVE_STATUSES = (SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIALING)
ENDED_STATUS = SubscriptionStatus.CANCELED
#: Ids we make up for the built-in test checkout contain this; Stripe's never do.
LOCAL_TEST_MARK = "_test_local_"


@dataclass(frozen=True)
class SubscriptionSummary:
    """What the member's plan looks like today, for /premium and the dashboard."""

    is_premium: bool
    status: str | None = None
    plan_type: str | None = None
    renews_at: datetime | None = None
    cancel_at_period_end: bool = False


def _is_live(row: Subscription, now: datetime) -> bool:
    return row.status in ACTIVE_STATUSES and (row.expires_at is None or row.expires_at > now)


def _premium_rows(db: Session, user_id: uuid.UUID) -> list[Subscription]:
    return list(
        db.exec(
            select(Subscription).where(
                Subscription.user_id == user_id, Subscription.plan_type == PREMIUM_PLAN
            )
        ).all()
    )


def live_subscriptions(db: Session, user_id: uuid.UUID) -> list[Subscription]:
    """The member's Premium rows that are active and not expired (normally one)."""
    now = utcnow()
    return [row for row in _premium_rows(db, user_id) if _is_live(row, now)]


def is_subscriber(db: Session, user_id: uuid.UUID) -> bool:
    """Whether the member has an active Premium Editing plan that has not expired."""
    now = utcnow()
    return any(_is_live(row, now) for row in _premium_rows(db, user_id))


def current_subscription(db: Session, user_id: uuid.UUID) -> Subscription | None:
    """The member's Premium row that describes them best: a live one (the one running
    longest), else the most recently changed one."""
    now = utcnow()
    rows = _premium_rows(db, user_id)
    live = [row for row in rows if _is_live(row, now)]
    if live:
        far_future = datetime.max.replace(tzinfo=now.tzinfo)
        return max(live, key=lambda row: row.expires_at or far_future)
    return max(rows, key=lambda row: row.updated_at, default=None)


def subscription_summary(db: Session, user_id: uuid.UUID) -> SubscriptionSummary:
    """The member's plan: Premium or not, its status, renewal date and pending cancel."""
    row = current_subscription(db, user_id)
    if row is None:
        return SubscriptionSummary(is_premium=False)
    return SubscriptionSummary(
        is_premium=_is_live(row, utcnow()),
        status=row.status,
        plan_type=row.plan_type,
        renews_at=row.expires_at,
        cancel_at_period_end=row.cancel_at_period_end,
    )


def premium_checkout_started(db: Session, user_id: uuid.UUID) -> bool:
    """Whether the member has a Premium checkout that is open or paid: only then can a
    return to /premium?success=true be a payment on its way."""
    statuses = (PaymentStatus.OPEN.value, PaymentStatus.PAID.value)
    row = db.exec(
        select(CheckoutSession.id).where(
            CheckoutSession.user_id == user_id,
            CheckoutSession.kind == KIND_SUBSCRIPTION,
            CheckoutSession.status.in_(statuses),
        )
    ).first()
    return row is not None


def is_local_test_id(provider_id: str | None) -> bool:
    """Whether an id was made by the built-in test checkout (no Stripe behind it)."""
    return bool(provider_id) and LOCAL_TEST_MARK in provider_id


def cancel_subscription(db: Session, user_id: uuid.UUID) -> SubscriptionSummary:
    """Cancel the member's Premium at the end of the paid period; it stays until then.

    A Stripe subscription is changed at Stripe (``cancel_at_period_end``), whose
    webhook confirms it later; a test-checkout subscription only exists here. Cancelling
    twice changes nothing.
    """
    row = current_subscription(db, user_id)
    if row is None or not _is_live(row, utcnow()):
        raise NotFound(messages.NO_PREMIUM_TO_CANCEL)
    if row.cancel_at_period_end:
        return subscription_summary(db, user_id)
    if row.provider_subscription_id and not is_local_test_id(row.provider_subscription_id):
        if not get_settings().stripe_enabled:
            raise DomainError(messages.FAILED_TO_CANCEL_PREMIUM)
        try:
            stripe_client.cancel_at_period_end(row.provider_subscription_id)
        except stripe_client.StripeUnavailable as error:
            raise DomainError(messages.FAILED_TO_CANCEL_PREMIUM) from error
    row.cancel_at_period_end = True
    row.updated_at = utcnow()
    db.add(row)
    db.flush()
    return subscription_summary(db, user_id)
