"""Payment events, each applied exactly once: the only way a payment is ever fulfilled.

``process_event`` records the event id (unique in ``payment_events``) in the same
transaction as the event's effects: if the effects fail nothing is recorded and the
provider retries; if the id is already recorded, the event is a replay and changes
nothing. Events come from Stripe's signed webhooks (``billing.api``) or, in test mode,
from the built-in test checkout, which builds the same event shape.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from prettyscore.accounts.models import User
from prettyscore.billing import duplicates, fulfilment, subscriptions
from prettyscore.billing.models import CheckoutSession, PaymentEvent, PaymentStatus
from prettyscore.billing.service import LOCAL_TEST_MARK
from prettyscore.core.db import session_scope
from prettyscore.core.model_types import utcnow

log = logging.getLogger(__name__)

# The payment statuses (``models.PaymentStatus``) under the names billing's code uses.


def already_processed(db: Session, event_id: str) -> bool:
    return (
        db.exec(select(PaymentEvent.id).where(PaymentEvent.event_id == event_id)).first()
        is not None
    )


def find_checkout(db: Session, provider_session_id: str | None) -> CheckoutSession | None:
    if not provider_session_id:
        return None
    return db.exec(
        select(CheckoutSession).where(CheckoutSession.provider_session_id == provider_session_id)
    ).first()


# ---------------------------------------------------------------------------
# Checkout sessions and charges
# ---------------------------------------------------------------------------
def _checkout_paid(db: Session, event: dict[str, Any]) -> None:
    """A checkout was paid (at once, or later for delayed payment methods): deliver it,
    unless it had ended before (a newer checkout replaced it) or the member already has
    what it bought: then it is given back."""
    session = event["data"]["object"]
    if event["type"] == "checkout.session.completed" and session.get("payment_status") == "unpaid":
        return  # a delayed payment method: async_payment_succeeded will follow
    payment = find_checkout(db, session.get("id"))
    if payment is None:
        log.warning("Paid checkout %s is not one of ours", session.get("id"))
        return
    lock_member(db, payment.user_id)  # one payment of a member at a time, from here
    db.refresh(payment)
    if payment.status in (PaymentStatus.PAID, PaymentStatus.REFUNDED):
        return  # completed and async_payment_succeeded both arrive for delayed methods
    ended = payment.status == PaymentStatus.CANCELLED  # replaced or abandoned before paid
    now = utcnow()
    payment.status, payment.paid_at, payment.updated_at = PaymentStatus.PAID, now, now
    payment.payment_intent_id = session.get("payment_intent") or payment.payment_intent_id
    payment.invoice_id = session.get("invoice") or payment.invoice_id
    payment.duplicate = duplicates.already_bought(db, payment, session, ended=ended)
    db.add(payment)
    db.flush()
    if payment.duplicate:
        log.warning("Checkout %s paid for what its member already had: refunded", payment.id)
        if payment.test_mode:
            record_test_refund(db, payment)
        else:
            duplicates.give_back(db, payment, session)
        return
    fulfilment.fulfil(db, payment, session)


def lock_member(db: Session, user_id: uuid.UUID) -> None:
    """Hold the member's row until this transaction ends (PostgreSQL's row lock; SQLite
    already runs one writing transaction at a time), so that two payments arriving at the
    same moment are judged one after the other."""
    db.exec(select(User.id).where(User.id == user_id).with_for_update()).first()


def _checkout_ended_unpaid(db: Session, event: dict[str, Any]) -> None:
    """A checkout expired or its delayed payment failed: it stays unpaid for good."""
    payment = find_checkout(db, event["data"]["object"].get("id"))
    if payment is None or payment.status != PaymentStatus.OPEN:
        return
    expired = event["type"] == "checkout.session.expired"
    payment.status = PaymentStatus.CANCELLED if expired else PaymentStatus.FAILED
    payment.updated_at = utcnow()
    db.add(payment)


def _find_charged_checkout(db: Session, charge: dict[str, Any]) -> CheckoutSession | None:
    """The checkout a charge paid: by payment intent (one-off), invoice (subscription)
    or the checkout id we put in the metadata."""
    for column, value in (
        (CheckoutSession.payment_intent_id, charge.get("payment_intent")),
        (CheckoutSession.invoice_id, charge.get("invoice")),
    ):
        if value:
            found = db.exec(select(CheckoutSession).where(column == value)).first()
            if found is not None:
                return found
    try:
        checkout_id = uuid.UUID(str((charge.get("metadata") or {}).get("checkout_id")))
    except ValueError:
        return None
    return db.get(CheckoutSession, checkout_id)


def _charge_refunded(db: Session, event: dict[str, Any]) -> None:
    """A fully refunded charge marks its payment refunded (partial refunds change nothing)."""
    charge = event["data"]["object"]
    if not charge.get("refunded"):
        return
    payment = _find_charged_checkout(db, charge)
    if payment is None or payment.status == PaymentStatus.REFUNDED:
        return
    payment.status, payment.updated_at = PaymentStatus.REFUNDED, utcnow()
    db.add(payment)
    db.flush()
    if not payment.duplicate:  # a duplicate delivered nothing, so nothing is taken back
        fulfilment.refunded(db, payment)


HANDLERS: dict[str, Callable[[Session, dict[str, Any]], None]] = {
    "checkout.session.completed": _checkout_paid,
    "checkout.session.async_payment_succeeded": _checkout_paid,
    "checkout.session.async_payment_failed": _checkout_ended_unpaid,
    "checkout.session.expired": _checkout_ended_unpaid,
    "customer.subscription.created": subscriptions.apply_subscription_event,
    "customer.subscription.updated": subscriptions.apply_subscription_event,
    "customer.subscription.deleted": subscriptions.apply_subscription_event,
    "invoice.paid": subscriptions.apply_invoice_event,
    "invoice.payment_failed": subscriptions.apply_invoice_event,
    "charge.refunded": _charge_refunded,
}


def refunded_charge_event(payment: CheckoutSession) -> dict[str, Any]:
    """The ``charge.refunded`` event Stripe sends for a fully refunded ``payment``."""
    charge = {
        "id": f"ch{LOCAL_TEST_MARK}{secrets.token_hex(12)}",
        "object": "charge",
        "amount": payment.amount_cents,
        "amount_refunded": payment.amount_cents,
        "currency": payment.currency,
        "refunded": True,
        "payment_intent": payment.payment_intent_id,
        "metadata": {"checkout_id": str(payment.id)},
        "livemode": False,
    }
    return {
        "id": f"evt_test_{secrets.token_hex(12)}",
        "object": "event",
        "type": "charge.refunded",
        "created": int(utcnow().timestamp()),
        "livemode": False,
        "data": {"object": charge},
    }


def record_test_refund(db: Session, payment: CheckoutSession) -> None:
    """A test-checkout payment has no Stripe behind it: process the event Stripe would
    send for its refund."""
    process_event(db, refunded_charge_event(payment))


# ---------------------------------------------------------------------------
# Exactly once
# ---------------------------------------------------------------------------
def process_event(db: Session, event: dict[str, Any]) -> bool:
    """Apply ``event`` in the caller's transaction; False when it was seen before.

    Events of types we do not handle are recorded too, so their retries stop.
    """
    event_id = str(event["id"])
    if already_processed(db, event_id):
        return False
    db.add(PaymentEvent(event_id=event_id, event_type=str(event.get("type", "")), payload=event))
    db.flush()  # a concurrent delivery of the same id fails here, before any effect
    handler = HANDLERS.get(event.get("type", ""))
    if handler is not None:
        handler(db, event)
    return True


def receive_event(event: dict[str, Any], db_scope=session_scope) -> bool:
    """Process a delivered event in its own transaction; False for a replay.

    Two deliveries of one event at the same moment: the second one's insert of the
    event id fails on the unique constraint, its transaction is rolled back, and it
    answers like a replay. Any other failure propagates (the provider will retry).
    """
    try:
        with db_scope() as db:
            return process_event(db, event)
    except IntegrityError:
        with db_scope() as db:
            if already_processed(db, str(event["id"])):
                return False
        raise
