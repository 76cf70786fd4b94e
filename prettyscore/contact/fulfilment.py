"""What a contact fee's payment events do to its request: paid, or refunded.

Registered with the payments area when the ``prettyscore.contact`` package is imported
(the app imports it for its pages, and its tables are imported with every model), so a
payment event never finds the contact kind without its handler. This module imports only
tables, so importing it from the models is cheap.
"""

from __future__ import annotations

import uuid

from sqlmodel import Session, select

from prettyscore.billing import fulfilment
from prettyscore.billing.models import CheckoutSession
from prettyscore.contact.models import ContactPaymentStatus, ContactRequest, ContactStatus


def _request_for_payment(db: Session, payment: CheckoutSession) -> ContactRequest | None:
    try:
        return db.get(ContactRequest, uuid.UUID(str(payment.reference_id)))
    except ValueError:
        return None


def mark_paid(db: Session, payment: CheckoutSession, _session_object: dict) -> None:
    """A paid contact fee: the request now reaches the contestant."""
    request = _request_for_payment(db, payment)
    if request is None:
        return
    request.paid, request.payment_status = True, ContactPaymentStatus.PAID
    db.add(request)


def has_paid_open_request(db: Session, payment: CheckoutSession) -> bool:
    """Whether the payer already has a paid, open request to the contestant this payment's
    request is for: one contestant, one paid request at a time, whichever request a
    payment names (an older, replaced one included)."""
    request = _request_for_payment(db, payment)
    if request is None:
        return False
    other = db.exec(
        select(ContactRequest.id).where(
            ContactRequest.requester_id == request.requester_id,
            ContactRequest.contestant_id == request.contestant_id,
            ContactRequest.id != request.id,
            ContactRequest.paid,
            ContactRequest.status.in_((ContactStatus.PENDING, ContactStatus.APPROVED)),
        )
    ).first()
    return other is not None


def mark_refunded(db: Session, payment: CheckoutSession) -> None:
    """A refunded fee: the request is no longer paid, so it leaves the contestant's inbox
    (denying refunds it; so does a refund made in Stripe's dashboard)."""
    if payment.kind != fulfilment.KIND_CONTACT_REQUEST:
        return
    request = _request_for_payment(db, payment)
    if request is not None:
        request.paid, request.payment_status = False, ContactPaymentStatus.REFUNDED
        db.add(request)


fulfilment.register_fulfilment(fulfilment.KIND_CONTACT_REQUEST, mark_paid)
fulfilment.register_already_bought(fulfilment.KIND_CONTACT_REQUEST, has_paid_open_request)
fulfilment.on_refund(mark_refunded)
