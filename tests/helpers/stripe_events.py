"""Stripe-shaped webhook events for tests, and signing them with Stripe's own scheme."""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

import stripe


def event(event_type: str, obj: dict[str, Any], *, created: int | None = None) -> dict:
    """An event as Stripe delivers it, with a fresh id."""
    return {
        "id": f"evt_{secrets.token_hex(10)}",
        "object": "event",
        "api_version": "2025-03-31.basil",
        "type": event_type,
        "created": created if created is not None else int(time.time()),
        "livemode": False,
        "data": {"object": obj},
    }


def checkout_completed(
    session_id: str, user_id, *, subscription: str | None = None, payment_intent=None, **extra
) -> dict:
    """checkout.session.completed for one of our checkout sessions, paid."""
    return event(
        "checkout.session.completed",
        {
            "id": session_id,
            "object": "checkout.session",
            "mode": "subscription" if subscription else "payment",
            "status": "complete",
            "payment_status": "paid",
            "client_reference_id": str(user_id),
            "customer": "cus_standin",
            "subscription": subscription,
            "payment_intent": payment_intent,
            "metadata": {"user_id": str(user_id)},
            **extra,
        },
    )


def subscription_event(
    event_type: str,
    subscription_id: str,
    user_id,
    *,
    created: int,
    status: str = "active",
    period_end: int | None = None,
    cancel_at_period_end: bool = False,
) -> dict:
    """customer.subscription.created / updated / deleted (period end on the items, as
    newer API versions put it)."""
    period_end = period_end if period_end is not None else created + 30 * 86400
    return event(
        f"customer.subscription.{event_type}",
        {
            "id": subscription_id,
            "object": "subscription",
            "customer": "cus_standin",
            "status": status,
            "cancel_at_period_end": cancel_at_period_end,
            "ended_at": created if event_type == "deleted" else None,
            "metadata": {"user_id": str(user_id)},
            "items": {"data": [{"current_period_end": period_end}]},
        },
        created=created,
    )


def invoice_event(event_type: str, subscription_id: str, *, created: int, period_end: int) -> dict:
    """invoice.paid / invoice.payment_failed for a subscription (newer API shape)."""
    return event(
        f"invoice.{event_type}",
        {
            "id": f"in_{secrets.token_hex(6)}",
            "object": "invoice",
            "parent": {"subscription_details": {"subscription": subscription_id}},
            "lines": {"data": [{"period": {"start": created, "end": period_end}}]},
        },
        created=created,
    )


def charge_refunded(payment_intent: str, amount: int, *, refunded: bool = True) -> dict:
    """charge.refunded for the charge of a payment intent."""
    return event(
        "charge.refunded",
        {
            "id": f"ch_{secrets.token_hex(6)}",
            "object": "charge",
            "payment_intent": payment_intent,
            "amount": amount,
            "amount_refunded": amount if refunded else amount // 2,
            "refunded": refunded,
        },
    )


def signed(payload_event: dict, secret: str, *, timestamp: int | None = None) -> tuple[str, dict]:
    """(body, headers) of a delivery signed the way Stripe signs it."""
    body = json.dumps(payload_event)
    header = stripe.WebhookSignature.generate_signature_header(body, secret, timestamp=timestamp)
    return body, {"Stripe-Signature": header, "Content-Type": "application/json"}


WEBHOOK_PATH = "/api/stripe/webhook"


def deliver(base_url: str, payload_event: dict, secret: str, *, timestamp: int | None = None):
    """Post the event, signed, to the app's webhook as Stripe would; the response."""
    import httpx

    body, headers = signed(payload_event, secret, timestamp=timestamp)
    return httpx.post(f"{base_url}{WEBHOOK_PATH}", content=body, headers=headers, timeout=30)
