"""The few Stripe calls PrettyScore makes, through the official ``stripe`` library.

Only this module talks to Stripe. It uses a ``StripeClient`` built from the settings
(secret key, and ``STRIPE_API_BASE`` when set, e.g. a local stand-in in tests) instead of
the library's global configuration, so nothing else in the process is affected.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import stripe

from prettyscore.core.settings import Settings, get_settings

#: Seconds a signed webhook stays acceptable (the library's default: replay protection).
WEBHOOK_TOLERANCE_SECONDS = 300


class StripeUnavailable(RuntimeError):
    """Stripe could not be reached or refused the call."""


class InvalidWebhook(ValueError):
    """A webhook whose signature does not match, is missing, or is too old."""


@dataclass(frozen=True)
class HostedCheckout:
    """A Stripe Checkout session: its id and the page the member pays on."""

    session_id: str
    url: str | None


def _client(settings: Settings) -> stripe.StripeClient:
    if not settings.stripe_secret_key:
        raise StripeUnavailable("Stripe is not configured")
    base = {"api": settings.stripe_api_base} if settings.stripe_api_base else None
    return stripe.StripeClient(
        settings.stripe_secret_key, base_addresses=base, max_network_retries=1
    )


def create_checkout_session(params: dict[str, Any], *, idempotency_key: str) -> HostedCheckout:
    """Create a Checkout session; the idempotency key makes a retried request safe."""
    client = _client(get_settings())
    try:
        session = client.v1.checkout.sessions.create(
            params=params, options={"idempotency_key": idempotency_key}
        )
    except stripe.StripeError as error:
        raise StripeUnavailable(str(error)) from error
    return HostedCheckout(session_id=session.id, url=session.url)


def cancel_at_period_end(subscription_id: str) -> None:
    """Ask Stripe to end the subscription when the paid period runs out."""
    client = _client(get_settings())
    try:
        client.v1.subscriptions.update(subscription_id, params={"cancel_at_period_end": True})
    except stripe.StripeError as error:
        raise StripeUnavailable(str(error)) from error


def verify_webhook(payload: bytes, signature_header: str | None) -> None:
    """Check the ``Stripe-Signature`` header of a raw webhook body against our secret.

    Raises InvalidWebhook when the secret is not configured, the signature does not
    match, or the signed timestamp is older than the tolerance.
    """
    secret = get_settings().stripe_webhook_secret
    if not secret:
        raise InvalidWebhook("No webhook signing secret is configured")
    try:
        stripe.WebhookSignature.verify_header(
            payload, signature_header, secret, WEBHOOK_TOLERANCE_SECONDS
        )
    except (stripe.SignatureVerificationError, ValueError) as error:  # bad UTF-8 too
        raise InvalidWebhook(str(error)) from error


def refund_payment_intent(payment_intent_id: str, *, idempotency_key: str) -> str:
    """Refund a one-off payment in full; returns Stripe's refund id.

    Stripe then sends ``charge.refunded``, which marks the payment refunded here.
    """
    client = _client(get_settings())
    try:
        refund = client.v1.refunds.create(
            params={"payment_intent": payment_intent_id},
            options={"idempotency_key": idempotency_key},
        )
    except stripe.StripeError as error:
        raise StripeUnavailable(str(error)) from error
    return refund.id


def expire_checkout_session(session_id: str) -> None:
    """End an open Checkout session so it can no longer be paid (a newer one replaces it).

    Stripe refuses for a session already completed: its payment is then on its way, and
    the caller must not open another one.
    """
    client = _client(get_settings())
    try:
        client.v1.checkout.sessions.expire(session_id)
    except stripe.StripeError as error:
        raise StripeUnavailable(str(error)) from error


def cancel_subscription_now(subscription_id: str) -> None:
    """End a subscription at once (a second one a member should never have had)."""
    client = _client(get_settings())
    try:
        if client.v1.subscriptions.retrieve(subscription_id).status == "canceled":
            return  # a retried webhook: done the first time
        client.v1.subscriptions.cancel(subscription_id)
    except stripe.StripeError as error:
        raise StripeUnavailable(str(error)) from error


def refund_invoice(invoice_id: str, *, idempotency_key: str) -> str:
    """Refund what an invoice took in full; returns Stripe's refund id.

    The invoice names its payment directly in older API versions (``payment_intent`` or
    ``charge``), through its invoice payments in newer ones.
    """
    client = _client(get_settings())
    try:
        invoice = client.v1.invoices.retrieve(invoice_id)
        target = _invoice_payment(client, invoice)
        refund = client.v1.refunds.create(
            params=target, options={"idempotency_key": idempotency_key}
        )
    except stripe.StripeError as error:
        raise StripeUnavailable(str(error)) from error
    return refund.id


def _invoice_payment(client: stripe.StripeClient, invoice: Any) -> dict[str, str]:
    fields = invoice.to_dict()
    for field in ("payment_intent", "charge"):
        value = fields.get(field)
        if value:
            return {field: value if isinstance(value, str) else value["id"]}
    payments = client.v1.invoice_payments.list(params={"invoice": invoice.id})
    for entry in payments.data:
        payment = entry.to_dict().get("payment") or {}
        for field in ("payment_intent", "charge"):
            if payment.get(field):
                return {field: payment[field]}
    raise StripeUnavailable(f"Invoice {invoice.id} names no payment to refund")
