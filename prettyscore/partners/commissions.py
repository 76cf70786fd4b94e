"""Commission on referred members' payments: one conversion per payment, never two.

Listens to the payments area (registered when ``prettyscore.partners`` is imported):
every fulfilled checkout (Premium's first payment, a contact fee, the detailed analysis)
and every paid Premium invoice (renewals) of a member whom an approved partner referred
becomes one conversion worth ``amount × the partner's commission percent``. The payment
is the key: ``payment_ref`` is unique and the insert ignores a payment already counted,
so a replayed webhook, or Premium's first invoice arriving both as the checkout and as
``invoice.paid``, counts once. The partner's totals move in the same transaction, by
relative UPDATEs, so simultaneous payments never overwrite each other's sums.

A refund reverses the payment's conversion while it is unpaid (status ``reversed``, the
totals back); one already paid out stays as it was paid.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from sqlalchemy import update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from prettyscore.accounts.models import Profile
from prettyscore.billing import fulfilment
from prettyscore.billing.models import CheckoutSession
from prettyscore.core.model_types import utcnow
from prettyscore.partners.models import PartnerAccount, PartnerConversion
from prettyscore.partners.programme import APPROVED, REVERSED, UNPAID, commission_cents
from prettyscore.partners.service import account_terms

log = logging.getLogger(__name__)

# Stripe's reason on a subscription's first invoice, which its checkout already paid.
FIRST_INVOICE_REASON = "subscription_create"
_INSERTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


def checkout_payment_ref(payment: CheckoutSession) -> str:
    """The key of a checkout's payment: its invoice (Premium), else its payment intent,
    else the checkout itself."""
    return payment.invoice_id or payment.payment_intent_id or f"checkout:{payment.id}"


def _referrer(db: Session, payer_id: uuid.UUID) -> PartnerAccount | None:
    """The approved partner who referred the payer (never the payer themselves)."""
    partner_id = db.exec(select(Profile.referred_by_partner).where(Profile.id == payer_id)).first()
    if partner_id is None:
        return None
    partner = db.get(PartnerAccount, partner_id)
    if partner is None or partner.status != APPROVED or partner.user_id == payer_id:
        return None
    return partner


def _insert_once(db: Session, conversion: PartnerConversion) -> bool:
    """Insert the conversion unless its payment has one already; True when inserted."""
    insert = _INSERTS[db.get_bind().dialect.name]
    statement = (
        insert(PartnerConversion)
        .values(**conversion.model_dump())
        .on_conflict_do_nothing(index_elements=["payment_ref"])
        .returning(col(PartnerConversion.id))  # no row when the payment was counted
    )
    return db.execute(statement).first() is not None


def _move_totals(db: Session, partner_id: uuid.UUID, conversions: int, earned: int) -> None:
    db.execute(
        update(PartnerAccount)
        .where(col(PartnerAccount.id) == partner_id)
        .values(
            total_conversions=col(PartnerAccount.total_conversions) + conversions,
            total_earned=col(PartnerAccount.total_earned) + earned,
        )
    )


def record_conversion(
    db: Session, payer_id: uuid.UUID, amount_cents: int, payment_ref: str
) -> PartnerConversion | None:
    """Credit the payer's referring partner with commission on one payment.

    Returns the new conversion, or None when nobody earns on it (no approved referrer,
    nothing paid) or the payment was counted before.
    """
    if amount_cents <= 0:
        return None
    partner = _referrer(db, payer_id)
    if partner is None:
        return None
    conversion = PartnerConversion(
        partner_id=partner.id,
        payment_ref=payment_ref,
        amount=amount_cents,
        commission=commission_cents(amount_cents, account_terms(partner)),
        status=UNPAID,
        created_at=utcnow(),
    )
    if not _insert_once(db, conversion):
        return None
    _move_totals(db, partner.id, 1, conversion.commission)
    db.expire(partner)
    return conversion


def reverse_conversion(db: Session, payment_refs: list[str]) -> PartnerConversion | None:
    """Reverse the unpaid conversion of a refunded payment; the conversion, or None."""
    conversion = db.exec(
        select(PartnerConversion).where(col(PartnerConversion.payment_ref).in_(payment_refs))
    ).first()
    if conversion is None:
        return None
    reversed_now = db.execute(
        update(PartnerConversion)
        .where(col(PartnerConversion.id) == conversion.id, col(PartnerConversion.status) == UNPAID)
        .values(status=REVERSED)
    )
    if reversed_now.rowcount != 1:
        log.info("Conversion %s of a refunded payment is no longer unpaid", conversion.id)
        return None
    _move_totals(db, conversion.partner_id, -1, -conversion.commission)
    db.expire(conversion)
    return conversion


# ---------------------------------------------------------------------------
# The payments area's listeners
# ---------------------------------------------------------------------------
def credit_checkout(db: Session, payment: CheckoutSession) -> None:
    """A fulfilled checkout of any kind."""
    record_conversion(db, payment.user_id, payment.amount_cents, checkout_payment_ref(payment))


def credit_invoice(db: Session, user_id: uuid.UUID, invoice: dict[str, Any]) -> None:
    """A paid Premium invoice: renewals earn; the first one was its checkout's payment."""
    if invoice.get("billing_reason") == FIRST_INVOICE_REASON or not invoice.get("id"):
        return
    record_conversion(db, user_id, int(invoice.get("amount_paid") or 0), str(invoice["id"]))


def reverse_refund(db: Session, payment: CheckoutSession) -> None:
    """A refunded checkout."""
    candidates = (payment.invoice_id, payment.payment_intent_id, f"checkout:{payment.id}")
    reverse_conversion(db, [ref for ref in candidates if ref])


fulfilment.on_payment(credit_checkout)
fulfilment.on_invoice_paid(credit_invoice)
fulfilment.on_refund(reverse_refund)
