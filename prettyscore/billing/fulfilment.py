"""What happens when a payment succeeds or is refunded, by kind of thing bought.

Each paid area registers a handler for its kind once, at import:

    register_fulfilment(KIND_CONTACT_REQUEST, mark_contact_request_paid)

A handler receives the database session, the ``CheckoutSession`` row (user, amount,
``reference_id``) and the provider's checkout session object, and runs inside the same
transaction that records the webhook event, so it runs exactly once per payment.
``on_payment`` listeners (e.g. partner commissions) run after any kind's handler,
``on_invoice_paid`` listeners for each paid invoice of a known subscription (renewals,
and the first invoice again: a listener tells them apart by the invoice id, which the
first payment's checkout carries too), and ``on_refund`` listeners when a payment is
refunded. An area whose thing can be bought under several names registers how to tell
that the payer has it already (``register_already_bought``): such a payment is then a
duplicate, given back (``billing.duplicates``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

from sqlmodel import Session

from prettyscore.billing.models import CheckoutSession

log = logging.getLogger(__name__)

KIND_SUBSCRIPTION = "subscription"
KIND_CONTACT_REQUEST = "contact_request"
KIND_PERSONALITY_ANALYSIS = "personality_analysis"
KINDS = (KIND_SUBSCRIPTION, KIND_CONTACT_REQUEST, KIND_PERSONALITY_ANALYSIS)

Handler = Callable[[Session, CheckoutSession, dict[str, Any]], None]
Listener = Callable[[Session, CheckoutSession], None]
#: ``check(db, payment)``: whether the payer already has, by another payment, what
#: ``payment`` buys (the same thing paid by another checkout is always checked).
OwnershipCheck = Callable[[Session, CheckoutSession], bool]
InvoiceListener = Callable[[Session, uuid.UUID, dict[str, Any]], None]

_handlers: dict[str, Handler] = {}
_payment_listeners: list[Listener] = []
_refund_listeners: list[Listener] = []
_invoice_listeners: list[InvoiceListener] = []
_ownership_checks: dict[str, OwnershipCheck] = {}


def register_fulfilment(kind: str, handler: Handler) -> None:
    """Make ``handler`` deliver what a paid checkout of ``kind`` bought (one per kind)."""
    if kind not in KINDS:
        raise ValueError(f"Unknown payment kind: {kind}")
    _handlers[kind] = handler


def register_already_bought(kind: str, check: OwnershipCheck) -> None:
    """Make ``check`` also decide whether a payment of ``kind`` buys what the payer has."""
    if kind not in KINDS:
        raise ValueError(f"Unknown payment kind: {kind}")
    _ownership_checks[kind] = check


def owns_already(db: Session, payment: CheckoutSession) -> bool:
    """What the kind's registered check says of ``payment`` (False without one)."""
    check = _ownership_checks.get(payment.kind)
    return check is not None and check(db, payment)


def on_payment(listener: Listener) -> Listener:
    """Call ``listener`` after every successful payment (usable as a decorator)."""
    if listener not in _payment_listeners:
        _payment_listeners.append(listener)
    return listener


def on_refund(listener: Listener) -> Listener:
    """Call ``listener`` when a payment is refunded (usable as a decorator)."""
    if listener not in _refund_listeners:
        _refund_listeners.append(listener)
    return listener


def on_invoice_paid(listener: InvoiceListener) -> InvoiceListener:
    """Call ``listener(db, member id, invoice)`` for every paid subscription invoice."""
    if listener not in _invoice_listeners:
        _invoice_listeners.append(listener)
    return listener


def fulfil(db: Session, payment: CheckoutSession, session_object: dict[str, Any]) -> None:
    """Deliver a paid checkout: its kind's handler, then every payment listener."""
    handler = _handlers.get(payment.kind)
    if handler is None:
        # Recorded as paid all the same; the area delivers once it registers its handler.
        log.warning("No fulfilment handler for %s (checkout %s)", payment.kind, payment.id)
    else:
        handler(db, payment, session_object)
    for listener in _payment_listeners:
        listener(db, payment)


def refunded(db: Session, payment: CheckoutSession) -> None:
    """Tell the refund listeners that ``payment`` was refunded."""
    for listener in _refund_listeners:
        listener(db, payment)


def invoice_paid(db: Session, user_id: uuid.UUID, invoice: dict[str, Any]) -> None:
    """Tell the invoice listeners that the member paid ``invoice``."""
    for listener in _invoice_listeners:
        listener(db, user_id, invoice)
