"""Starting a payment: Stripe Checkout when keys are set, else the built-in test checkout.

Every paid thing starts here with ``start_checkout``: Premium (a monthly subscription),
a contact request fee (the contact area computes the amount on the server and passes
it), the detailed personality analysis. Prices of fixed-price things come from the
settings, never from the browser. The payment is delivered only by a payment event
(``billing.webhooks``); the success page delivers nothing.

Without Stripe keys, ``/checkout/test?session=<id>`` shows what is bought and lets the
member Pay or Cancel. Pay builds the event Stripe would send for a completed checkout,
with a fresh id, and processes it exactly like a webhook event.

A partner's promo code typed beside the checkout button is decided here, before any
checkout starts, by the check the partner programme registers (``accept_promo_codes``):
an unknown code (or the member's own) is refused with its message and nothing is kept.
An accepted code is stored on the checkout and sent in its metadata, so the verified
payment event credits that partner. Stripe's own promotion codes are discounts on
Stripe coupons; a partner code gives no discount, so Checkout's promotion-code field
does not fit and the code travels in the metadata instead.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import quote

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from prettyscore.billing import stripe_client, webhooks
from prettyscore.billing.fulfilment import (
    KIND_CONTACT_REQUEST,
    KIND_PERSONALITY_ANALYSIS,
    KIND_SUBSCRIPTION,
    KINDS,
)
from prettyscore.billing.models import CheckoutSession, PaymentStatus
from prettyscore.billing.service import LOCAL_TEST_MARK, is_subscriber
from prettyscore.core import messages, routes
from prettyscore.core.errors import DomainError, NotFound
from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import Settings, get_settings

#: Open checkouts a member may have at once (one per thing bought); opening one more
#: ends the oldest, so abandoned checkouts never pile up.
MAX_OPEN_CHECKOUTS = 5

#: Where the member returns after paying or cancelling, unless the caller says otherwise.
RETURN_PATHS: dict[str, tuple[str, str]] = {
    KIND_SUBSCRIPTION: (f"{routes.PREMIUM}?success=true", routes.PREMIUM),
    KIND_CONTACT_REQUEST: (f"{routes.LEADERBOARD}?payment=success", routes.LEADERBOARD),
    KIND_PERSONALITY_ANALYSIS: (
        f"{routes.PERSONALITY_TEST}?payment=success",
        routes.PERSONALITY_TEST,
    ),
}


#: The longest promo code a checkout keeps (``CheckoutSession.promo_code``).
PROMO_CODE_MAX_LENGTH = 32
#: ``check(db, payer id, typed code)``: the code as stored, or a DomainError to show.
PromoCheck = Callable[[Session, uuid.UUID, str], str]
_promo_checks: list[PromoCheck] = []


def accept_promo_codes(check: PromoCheck) -> PromoCheck:
    """Make ``check`` decide the promo codes members type at checkout (one check; the
    partner programme registers it at import)."""
    _promo_checks[:] = [check]
    return check


def checked_promo_code(db: Session, payer_id: uuid.UUID, typed: str | None) -> str:
    """The promo code as stored ("" when none was typed), or the check's DomainError;
    with no check registered every code is unknown."""
    if not isinstance(typed, str) or not typed.strip():
        return ""
    if not _promo_checks:
        raise DomainError(messages.PROMO_CODE_UNKNOWN, code="promo_code_unknown")
    return _promo_checks[0](db, payer_id, typed)


class Payer(Protocol):
    """Who pays: the signed-in user (``CurrentUser``) or a ``User`` row."""

    id: uuid.UUID
    email: str


class CheckoutFailed(DomainError):
    """The payment provider could not start a checkout."""


@dataclass(frozen=True)
class CheckoutPreview:
    """What the test checkout page shows."""

    session_id: str
    kind: str
    description: str
    amount: str  # formatted, e.g. "$9.99"
    recurring: bool
    promo_code: str = ""


def format_amount(cents: int, currency: str = "usd") -> str:
    """Integer cents as people read them: "$9.99" (other currencies: "9.99 EUR")."""
    value = f"{cents // 100:,}.{cents % 100:02d}"
    return f"${value}" if currency.lower() == "usd" else f"{value} {currency.upper()}"


def price_of(kind: str, amount_cents: int | None, settings: Settings) -> int:
    """The amount to charge: fixed prices from settings; a contact fee as computed."""
    if kind not in KINDS:
        raise ValueError(f"Unknown payment kind: {kind}")
    fixed = {
        KIND_SUBSCRIPTION: settings.premium_monthly_cents,
        KIND_PERSONALITY_ANALYSIS: settings.detailed_personality_cents,
    }
    if kind in fixed:
        if amount_cents is not None:
            raise ValueError(f"{kind} has a fixed price; do not pass an amount")
        return fixed[kind]
    if not isinstance(amount_cents, int) or amount_cents <= 0:
        raise ValueError("A contact request fee needs a positive amount in cents")
    return amount_cents


def start_checkout(
    db: Session,
    user: Payer,
    kind: str,
    *,
    amount_cents: int | None = None,
    reference_id: str | None = None,
    description: str,
    success_path: str | None = None,
    cancel_path: str | None = None,
    promo_code: str | None = None,
) -> str:
    """Open a checkout for ``user`` buying ``kind``; returns the URL to send them to.

    ``promo_code`` is what the member typed in the Promo code field: checked first
    (``checked_promo_code``), so a refused code starts nothing.

    A thing bought (``reference_id``; Premium is named by its kind) has one open
    checkout at a time: the built-in test checkout gives the open one again; with Stripe
    the open one is expired first and a new one replaces it. Raises CheckoutFailed (with
    the documents' text) when Stripe fails, and DomainError when a member with Premium
    tries to subscribe again.
    """
    settings = get_settings()
    amount = price_of(kind, amount_cents, settings)
    promo = checked_promo_code(db, user.id, promo_code)
    if kind == KIND_SUBSCRIPTION and is_subscriber(db, user.id):
        raise DomainError(messages.ALREADY_PREMIUM)
    thing = reference_id or kind
    earlier = open_checkout(db, user.id, kind, thing)
    if earlier is not None and earlier.test_mode and not settings.stripe_enabled:
        if earlier.promo_code != promo:  # the code typed this time is the one that counts
            earlier.promo_code, earlier.updated_at = promo, utcnow()
            db.add(earlier)
            db.flush()
        return test_checkout_url(earlier)
    if earlier is not None:
        _retire(earlier)
    for oldest in _over_the_cap(db, user.id):
        _retire(oldest)
    default_success, default_cancel = RETURN_PATHS[kind]
    payment = CheckoutSession(
        user_id=user.id,
        kind=kind,
        amount_cents=amount,
        currency=settings.payment_currency,
        description=description,
        reference_id=thing,
        provider_session_id=f"cs{LOCAL_TEST_MARK}{secrets.token_hex(12)}",
        test_mode=not settings.stripe_enabled,
        promo_code=promo,
        success_path=success_path or default_success,
        cancel_path=cancel_path or default_cancel,
    )
    winner = _insert_only_open(db, payment)
    if not settings.stripe_enabled:
        return test_checkout_url(winner)
    try:
        url = _open_stripe_checkout(payment, user.email, settings)
    except CheckoutFailed:
        db.delete(payment)  # nothing is kept of a checkout that did not start
        db.flush()
        raise
    db.add(payment)
    db.flush()
    return url


def open_checkout(db: Session, user_id: uuid.UUID, kind: str, thing: str) -> CheckoutSession | None:
    """The member's open checkout for ``thing``, if any."""
    return db.exec(
        select(CheckoutSession).where(
            CheckoutSession.user_id == user_id,
            CheckoutSession.kind == kind,
            CheckoutSession.reference_id == thing,
            CheckoutSession.status == PaymentStatus.OPEN,
        )
    ).first()


def end_open_checkout(db: Session, user_id: uuid.UUID, kind: str, thing: str) -> None:
    """End the member's open checkout for ``thing`` (no longer for sale), at Stripe too:
    CheckoutFailed when Stripe will not end it because it was paid a moment ago."""
    earlier = open_checkout(db, user_id, kind, thing)
    if earlier is not None:
        _retire(earlier)
        db.add(earlier)
        db.flush()


def _over_the_cap(db: Session, user_id: uuid.UUID) -> list[CheckoutSession]:
    """The member's oldest open checkouts that one more would put over the cap."""
    still_open = db.exec(
        select(CheckoutSession)
        .where(CheckoutSession.user_id == user_id, CheckoutSession.status == PaymentStatus.OPEN)
        .order_by(CheckoutSession.created_at.desc(), CheckoutSession.id)
    ).all()
    return list(still_open[MAX_OPEN_CHECKOUTS - 1 :])


def test_checkout_url(payment: CheckoutSession) -> str:
    return f"{routes.TEST_CHECKOUT}?session={quote(payment.provider_session_id)}"


def _retire(payment: CheckoutSession) -> None:
    """End an open checkout that a new one replaces; at Stripe too, so that it can no
    longer be paid (Stripe refuses when it was just paid: then no new one opens)."""
    if not payment.test_mode:
        try:
            stripe_client.expire_checkout_session(payment.provider_session_id)
        except stripe_client.StripeUnavailable as error:
            raise CheckoutFailed(messages.FAILED_TO_START_CHECKOUT) from error
    payment.status, payment.updated_at = PaymentStatus.CANCELLED, utcnow()


def _insert_only_open(db: Session, payment: CheckoutSession) -> CheckoutSession:
    """Store the new open checkout, or find the one another request opened for the same
    thing a moment ago: a test checkout is then shared; a Stripe one cannot be (its
    page is Stripe's), so this request fails as a checkout that could not start."""
    try:
        with db.begin_nested():
            db.add(payment)
            db.flush()
        return payment
    except IntegrityError as error:
        if payment in db:
            db.expunge(payment)
        winner = open_checkout(db, payment.user_id, payment.kind, payment.reference_id)
        if winner is None or not (winner.test_mode and payment.test_mode):
            raise CheckoutFailed(messages.FAILED_TO_START_CHECKOUT) from error
        return winner


def _metadata(payment: CheckoutSession) -> dict[str, str]:
    """What ties a provider object back to us (Stripe metadata values are strings)."""
    values = {
        "user_id": str(payment.user_id),
        "kind": payment.kind,
        "checkout_id": str(payment.id),
        "reference_id": payment.reference_id,
        "promo_code": payment.promo_code,
    }
    return {key: value for key, value in values.items() if value}


def stripe_checkout_params(
    payment: CheckoutSession, email: str, settings: Settings
) -> dict[str, Any]:
    """The Checkout session Stripe should create for ``payment``."""
    recurring = payment.kind == KIND_SUBSCRIPTION
    price_data: dict[str, Any] = {
        "currency": payment.currency,
        "unit_amount": payment.amount_cents,
        "product_data": {"name": payment.description},
    }
    if recurring:
        price_data["recurring"] = {"interval": "month"}
    metadata = _metadata(payment)
    params: dict[str, Any] = {
        "mode": "subscription" if recurring else "payment",
        "line_items": [{"price_data": price_data, "quantity": 1}],
        "client_reference_id": str(payment.user_id),
        "customer_email": email,
        "metadata": metadata,
        "success_url": settings.public_url + payment.success_path,
        "cancel_url": settings.public_url + payment.cancel_path,
    }
    # The subscription's (or payment's) own events then name the member too.
    if recurring:
        params["subscription_data"] = {"metadata": metadata}
    else:
        params["payment_intent_data"] = {"metadata": metadata}
    return params


def _open_stripe_checkout(payment: CheckoutSession, email: str, settings: Settings) -> str:
    params = stripe_checkout_params(payment, email, settings)
    try:
        hosted = stripe_client.create_checkout_session(
            params, idempotency_key=f"checkout-{payment.id}"
        )
    except stripe_client.StripeUnavailable as error:
        raise CheckoutFailed(messages.FAILED_TO_START_CHECKOUT) from error
    if not hosted.url:
        raise CheckoutFailed(messages.NO_CHECKOUT_URL)
    payment.provider_session_id = hosted.session_id
    return hosted.url


# ---------------------------------------------------------------------------
# The built-in test checkout (no Stripe keys)
# ---------------------------------------------------------------------------
def _open_test_checkout(db: Session, user_id: uuid.UUID, session_id: str) -> CheckoutSession:
    """The member's own open test checkout, or NotFound (also for anyone else's)."""
    payment = webhooks.find_checkout(db, session_id)
    if (
        payment is None
        or payment.user_id != user_id
        or not payment.test_mode
        or payment.status != PaymentStatus.OPEN
    ):
        raise NotFound(messages.CHECKOUT_NOT_FOUND)
    return payment


@dataclass(frozen=True)
class WayBack:
    """Where a checkout that is no longer open sends its member: back to what it was for."""

    label: str
    path: str


WAYS_BACK = {
    KIND_CONTACT_REQUEST: WayBack(messages.CONTACT_SEE_SENT, f"{routes.CONTESTANT_REQUESTS}#sent"),
    KIND_PERSONALITY_ANALYSIS: WayBack(messages.TITLE_PERSONALITY_TEST, routes.PERSONALITY_TEST),
    KIND_SUBSCRIPTION: WayBack(messages.TITLE_PREMIUM, routes.PREMIUM),
}


def way_back_from(db: Session, user_id: uuid.UUID, session_id: str) -> WayBack:
    """The way back from the member's checkout ``session_id`` that is paid, cancelled or
    replaced: to the thing it was for (a contact fee: the Sent requests). Anyone else's
    checkout, or none, tells nothing of itself: Premium."""
    payment = webhooks.find_checkout(db, session_id) if session_id else None
    kind = payment.kind if payment is not None and payment.user_id == user_id else None
    return WAYS_BACK.get(kind, WAYS_BACK[KIND_SUBSCRIPTION])


def describe_test_checkout(db: Session, user_id: uuid.UUID, session_id: str) -> CheckoutPreview:
    """What the test checkout page shows for one of the member's open test checkouts."""
    payment = _open_test_checkout(db, user_id, session_id)
    return CheckoutPreview(
        session_id=payment.provider_session_id,
        kind=payment.kind,
        description=payment.description,
        amount=format_amount(payment.amount_cents, payment.currency),
        recurring=payment.kind == KIND_SUBSCRIPTION,
        promo_code=payment.promo_code,
    )


def completed_checkout_event(payment: CheckoutSession) -> dict[str, Any]:
    """The event Stripe sends when ``payment`` is paid (fields our fulfilment reads)."""
    recurring = payment.kind == KIND_SUBSCRIPTION

    def local_id(prefix: str) -> str:
        return f"{prefix}{LOCAL_TEST_MARK}{secrets.token_hex(12)}"

    session = {
        "id": payment.provider_session_id,
        "object": "checkout.session",
        "mode": "subscription" if recurring else "payment",
        "status": "complete",
        "payment_status": "paid",
        "amount_total": payment.amount_cents,
        "currency": payment.currency,
        "client_reference_id": str(payment.user_id),
        "metadata": _metadata(payment),
        "customer": local_id("cus"),
        "subscription": local_id("sub") if recurring else None,
        "invoice": local_id("in") if recurring else None,
        "payment_intent": None if recurring else local_id("pi"),
        "livemode": False,
    }
    return {
        "id": f"evt_test_{secrets.token_hex(12)}",
        "object": "event",
        "type": "checkout.session.completed",
        "created": int(utcnow().timestamp()),
        "livemode": False,
        "data": {"object": session},
    }


def pay_test_checkout(db: Session, user_id: uuid.UUID, session_id: str) -> str:
    """Pay a test checkout through the webhook fulfilment; returns the success path."""
    payment = _open_test_checkout(db, user_id, session_id)
    webhooks.process_event(db, completed_checkout_event(payment))
    return payment.success_path


def cancel_test_checkout(db: Session, user_id: uuid.UUID, session_id: str) -> str:
    """Abandon a test checkout; returns the path to go back to."""
    payment = _open_test_checkout(db, user_id, session_id)
    payment.status, payment.updated_at = PaymentStatus.CANCELLED, utcnow()
    db.add(payment)
    return payment.cancel_path
