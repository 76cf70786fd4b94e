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
