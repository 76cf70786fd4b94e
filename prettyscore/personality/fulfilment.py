"""What a detailed analysis's payment events do to it: paid, or (refunded) unpaid again.

Registered with the payments area when the ``prettyscore.personality`` package is
imported (the app imports it for its page, and its table is imported with every model),
so a payment event never finds the personality kind without its handler. The handler
runs inside the verified event's transaction, so each payment marks its analysis once.
This module imports only tables and the quiz constants, so importing it is cheap.
"""

from __future__ import annotations

import logging
import uuid

from sqlmodel import Session, select

from prettyscore.billing import fulfilment
from prettyscore.billing.models import CheckoutSession
from prettyscore.personality.models import PersonalityResult
from prettyscore.personality.quiz import DETAILED

log = logging.getLogger(__name__)


def _analysis_for_payment(db: Session, payment: CheckoutSession) -> PersonalityResult | None:
    """The member's detailed analysis the payment names, if it is one."""
    try:
        result = db.get(PersonalityResult, uuid.UUID(str(payment.reference_id)))
    except ValueError:
        result = None
    if result is None or result.user_id != payment.user_id or result.quiz_type != DETAILED:
        log.warning("Payment %s names no detailed analysis of its payer", payment.id)
        return None
    return result


def mark_paid(db: Session, payment: CheckoutSession, _session_object: dict) -> None:
    """A paid detailed analysis: the member may now read it."""
    result = _analysis_for_payment(db, payment)
    if result is not None:
        result.paid = True
        db.add(result)


def has_paid_analysis(db: Session, payment: CheckoutSession) -> bool:
    """Whether the payer already has a paid detailed analysis of the same answers as the
    one this payment names (what is bought is the analysis of these answers)."""
    result = _analysis_for_payment(db, payment)
    if result is None:
        return False
    paid = db.exec(
        select(PersonalityResult).where(
            PersonalityResult.user_id == result.user_id,
            PersonalityResult.quiz_type == DETAILED,
            PersonalityResult.paid,
            PersonalityResult.id != result.id,
        )
    ).all()
    return any(row.answers == result.answers for row in paid)


def mark_refunded(db: Session, payment: CheckoutSession) -> None:
    """A refunded detailed analysis is no longer the member's to read."""
    if payment.kind != fulfilment.KIND_PERSONALITY_ANALYSIS:
        return
    result = _analysis_for_payment(db, payment)
    if result is not None:
        result.paid = False
        db.add(result)


fulfilment.register_fulfilment(fulfilment.KIND_PERSONALITY_ANALYSIS, mark_paid)
fulfilment.register_already_bought(fulfilment.KIND_PERSONALITY_ANALYSIS, has_paid_analysis)
fulfilment.on_refund(mark_refunded)
