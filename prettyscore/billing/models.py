"""Billing tables: subscriptions, checkouts and processed payment events."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import Index, false, text
from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import (
    created_at_field,
    foreign_key,
    id_field,
    json_field,
    timestamp_field,
)


class SubscriptionStatus(StrEnum):
    """The Premium row's state (``Subscription.status``): Stripe's subscription statuses,
    stored as Stripe sends them; these are the ones the app itself writes or reads."""

    ACTIVE = "active"
    TRIALING = "trialing"
    PAST_DUE = "past_due"
    CANCELED = "canceled"  # Stripe's spelling: ended


class Subscription(SQLModel, table=True):
    """A plan a member pays for; premium_editing while active and not expired."""

    __tablename__ = "subscriptions"

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id")
    status: str = Field(default=SubscriptionStatus.ACTIVE.value, max_length=24)
    plan_type: str = Field(default="premium_editing", max_length=24)
    expires_at: datetime | None = timestamp_field()
    cancel_at_period_end: bool = Field(default=False)
    provider_customer_id: str | None = Field(default=None, max_length=255)
    provider_subscription_id: str | None = Field(default=None, max_length=255, unique=True)
    # Stripe's ``created`` time of the last subscription event applied: older ones that
    # arrive late are ignored, so delivery order never decides the end state.
    last_event_at: datetime | None = timestamp_field()
    created_at: datetime = created_at_field()
    updated_at: datetime = created_at_field()


class PaymentStatus(StrEnum):
    """Where a checkout stands (``CheckoutSession.status``)."""

    OPEN = "open"
    PAID = "paid"
    CANCELLED = "cancelled"
    REFUNDED = "refunded"
    FAILED = "failed"


class CheckoutSession(SQLModel, table=True):
    """One payment a member started: what is bought, for how much, and how it ended.

    Every paid thing (Premium, a contact request fee, the detailed personality analysis)
    goes through one of these; ``reference_id`` names the thing bought (e.g. the contact
    request's id; for Premium, the kind itself) and ``provider_session_id`` the Stripe
    (or test) checkout session. A thing has at most one open checkout (the index below);
    a second payment for a thing already paid is refunded and marked ``duplicate``.
    """

    __tablename__ = "checkout_sessions"

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id")
    kind: str = Field(max_length=32)
    amount_cents: int
    currency: str = Field(default="usd", max_length=3)
    description: str = Field(max_length=255)
    reference_id: str | None = Field(default=None, max_length=64, index=True)
    provider_session_id: str = Field(max_length=255, unique=True)
    payment_intent_id: str | None = Field(default=None, max_length=255, index=True)
    invoice_id: str | None = Field(default=None, max_length=255, index=True)
    status: str = Field(default=PaymentStatus.OPEN.value, max_length=16)
    duplicate: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    # A partner's promo code the member gave at checkout (as stored, upper case; "" for
    # none), accepted when the checkout started; the payment credits that partner.
    promo_code: str = Field(default="", max_length=32, sa_column_kwargs={"server_default": ""})
    test_mode: bool = Field(default=False)
    success_path: str = Field(max_length=255)
    cancel_path: str = Field(max_length=255)
    created_at: datetime = created_at_field()
    paid_at: datetime | None = timestamp_field()
    updated_at: datetime = created_at_field()


# One open checkout per member and thing bought: a second one is refused by the database
# even when two requests race (``checkout.start_checkout`` then reuses or replaces it).
Index(
    "uq_checkout_sessions_one_open",
    CheckoutSession.user_id,
    CheckoutSession.kind,
    CheckoutSession.reference_id,
    unique=True,
    sqlite_where=text("status = 'open'"),
    postgresql_where=text("status = 'open'"),
)


class PaymentEvent(SQLModel, table=True):
    """A payment provider event we have processed; the unique id makes fulfilment once-only."""

    __tablename__ = "payment_events"

    id: uuid.UUID = id_field()
    event_id: str = Field(max_length=255, unique=True)
    event_type: str = Field(max_length=100)
    payload: dict = json_field()
    processed_at: datetime = created_at_field()
