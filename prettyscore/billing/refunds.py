"""Giving a one-off payment back in full (e.g. a contact fee the contestant declined).

A Stripe payment is refunded at Stripe; its ``charge.refunded`` webhook then marks the
payment refunded and tells the refund listeners, like any refund made in Stripe's
dashboard. A test-checkout payment has no Stripe behind it: the event Stripe would send
is built and processed the same way (``webhooks.record_test_refund``), as the test
checkout does for payments.
"""

from __future__ import annotations

from sqlmodel import Session

from prettyscore.billing import stripe_client
from prettyscore.billing.models import CheckoutSession, PaymentStatus
from prettyscore.billing.webhooks import record_test_refund
from prettyscore.core.errors import DomainError
from prettyscore.core.settings import get_settings


class RefundFailed(DomainError):
    """The payment could not be refunded (Stripe failed or is not configured)."""


def refund_payment(db: Session, payment: CheckoutSession, *, failure_text: str = "") -> None:
    """Refund a paid one-off ``payment`` in full; refunding twice changes nothing.

    Raises RefundFailed (with ``failure_text``) when Stripe cannot do it.
    """
    if payment.status == PaymentStatus.REFUNDED:
        return
    if payment.status != PaymentStatus.PAID or payment.invoice_id:
        raise RefundFailed(failure_text or "Only a paid one-off payment can be refunded")
    if payment.test_mode:
        record_test_refund(db, payment)
        return
    if not get_settings().stripe_enabled or not payment.payment_intent_id:
        raise RefundFailed(failure_text or "Stripe is not configured")
    try:
        stripe_client.refund_payment_intent(
            payment.payment_intent_id, idempotency_key=f"refund-{payment.id}"
        )
    except stripe_client.StripeUnavailable as error:
        raise RefundFailed(failure_text or str(error)) from error
