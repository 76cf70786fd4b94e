"""A second payment for something a member already has: recognised, and given back.

One open checkout per thing (``checkout.start_checkout``) keeps members from paying
twice through us; Stripe can still deliver a second payment (a checkout paid in another
tab just before it was replaced, a retried payment). ``already_bought`` tells such a
payment by what it bought; ``give_back`` refunds it in full, and for Premium also ends
the second subscription at once. The payment stays recorded, marked ``duplicate``.

A payment on a checkout that had already ended (replaced by a newer one, or abandoned)
is a duplicate too: what it was for has moved on. An area whose thing can be bought
under several names (a contact request per contestant, an analysis per set of answers)
registers how to tell that its member already has it (``fulfilment.register_already_bought``).
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from prettyscore.billing import fulfilment, stripe_client
from prettyscore.billing.fulfilment import KIND_SUBSCRIPTION
from prettyscore.billing.models import CheckoutSession, PaymentStatus
from prettyscore.billing.service import live_subscriptions


def already_bought(
    db: Session, payment: CheckoutSession, session: dict[str, Any], *, ended: bool = False
) -> bool:
    """Whether ``payment`` buys nothing new: its checkout had ``ended`` before it was paid,
    or the member already has what it buys (Premium from another subscription; the same
    thing paid by another checkout; what the kind's registered check says)."""
    if ended:
        return True
    if payment.kind == KIND_SUBSCRIPTION:
        this_one = session.get("subscription")
        return any(
            row.provider_subscription_id != this_one or not this_one
            for row in live_subscriptions(db, payment.user_id)
        )
    earlier = db.exec(
        select(CheckoutSession.id).where(
            CheckoutSession.user_id == payment.user_id,
            CheckoutSession.kind == payment.kind,
            CheckoutSession.reference_id == payment.reference_id,
            CheckoutSession.status == PaymentStatus.PAID,
            CheckoutSession.duplicate.is_(False),
            CheckoutSession.id != payment.id,
        )
    ).first()
    if earlier is not None:
        return True
    return fulfilment.owns_already(db, payment)


def give_back(db: Session, payment: CheckoutSession, session: dict[str, Any]) -> None:
    """Refund a duplicate Stripe payment in full (Stripe's ``charge.refunded`` then marks
    it refunded, as for any refund); a second subscription is cancelled at once. (A
    test-checkout duplicate has no Stripe behind it: ``webhooks`` records its refund.)

    A Stripe failure propagates: the event is not recorded and Stripe delivers it again,
    and the refund's idempotency key makes the retry safe.
    """
    if payment.kind == KIND_SUBSCRIPTION:
        stripe_client.refund_invoice(payment.invoice_id, idempotency_key=f"refund-{payment.id}")
        stripe_client.cancel_subscription_now(session["subscription"])
        return
    stripe_client.refund_payment_intent(
        payment.payment_intent_id, idempotency_key=f"refund-{payment.id}"
    )
