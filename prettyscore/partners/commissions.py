"""Commission on referred members' payments: one conversion per payment, never two.

Listens to the payments area (registered when ``prettyscore.partners`` is imported):
every fulfilled checkout (Premium's first payment, a contact fee, the detailed analysis)
and every paid Premium invoice (renewals) of a member whom an approved partner referred
becomes one conversion worth ``amount × the partner's commission percent``. The payment
is the key: ``payment_ref`` is unique and the insert ignores a payment already counted,
so a replayed webhook, or Premium's first invoice arriving both as the checkout and as
``invoice.paid``, counts once. The partner's totals move in the same transaction, by
relative UPDATEs, so simultaneous payments never overwrite each other's sums.

A checkout paid with a partner's promo code (``partners.promo``, accepted when the
checkout started and stored on it) credits that partner instead, through the same path;
the member, if no partner referred them yet, is then credited to that partner as the
referral link would, so Premium's renewals earn for them too.

Second tier (sub-affiliates): when the partner who earns a conversion was themselves
referred by an approved partner, that partner earns ``PARTNER_SECOND_TIER_PERCENT`` of
the same payment as a second conversion (``level`` 2, key ``SECOND_TIER_PREFIX`` + the
payment's). It is made only together with the first tier's, in the same transaction and
just as once: a replayed payment pays neither tier twice. Two tiers, never more; the
payer never earns on their own payment, and nobody earns around a loop of referrals: a
partner whose chain of referrers leads back to the payer (a sock puppet the payer
brought in) earns nothing on the payer's payments, and a referrer whose own chain leads
back to the partner earns no second tier on them (``referrals.referral_chain_reaches``).
Second-tier conversions add to the partner's total earned but not to their conversion
count (those are their own referrals' sales).

A refund reverses the payment's conversions while they are unpaid (status ``reversed``,
the totals back); one already paid out stays as it was paid.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from prettyscore.accounts.models import Profile
from prettyscore.billing import fulfilment
from prettyscore.billing.models import CheckoutSession
from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import get_settings
from prettyscore.partners import promo
from prettyscore.partners.models import (
    ConversionStatus,
    PartnerAccount,
    PartnerConversion,
    PartnerStatus,
)
from prettyscore.partners.programme import (
    commission_cents,
    share_cents,
)
from prettyscore.partners.referrals import referral_chain_reaches
from prettyscore.partners.service import SECOND_TIER_LEVEL, account_terms

log = logging.getLogger(__name__)

# Stripe's reason on a subscription's first invoice, which its checkout already paid.
FIRST_INVOICE_REASON = "subscription_create"
_INSERTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}
FIRST_TIER, SECOND_TIER = 1, SECOND_TIER_LEVEL
SECOND_TIER_PREFIX = "tier2:"


def checkout_payment_ref(payment: CheckoutSession) -> str:
    """The key of a checkout's payment: its invoice (Premium), else its payment intent,
    else the checkout itself."""
    return payment.invoice_id or payment.payment_intent_id or f"checkout:{payment.id}"


def _referrer(db: Session, payer_id: uuid.UUID) -> PartnerAccount | None:
    """The approved partner who referred the payer, if it may earn on them."""
    partner_id = db.exec(select(Profile.referred_by_partner).where(Profile.id == payer_id)).first()
    if partner_id is None:
        return None
    partner = db.get(PartnerAccount, partner_id)
    return partner if _may_earn_on(db, partner, payer_id) else None


def _may_earn_on(db: Session, partner: PartnerAccount | None, payer_id: uuid.UUID) -> bool:
    """Whether ``partner`` may earn on the payer's payment: approved, and neither the
    payer's own account nor one whose chain of referrers leads back to the payer."""
    return (
        partner is not None
        and partner.status == PartnerStatus.APPROVED
        and not referral_chain_reaches(db, partner, payer_id)
    )


def _upline(db: Session, partner: PartnerAccount, payer_id: uuid.UUID) -> PartnerAccount | None:
    """The approved partner who referred ``partner``'s owner: the second tier (never
    the payer, never the partner themselves, nor one whose own chain of referrers leads
    back to the partner)."""
    upline = _referrer(db, partner.user_id)
    if upline is None or upline.id == partner.id or upline.user_id == payer_id:
        return None
    return upline


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


def _credit(
    db: Session,
    partner: PartnerAccount,
    conversion: PartnerConversion,
    counted: int,
) -> bool:
    """Insert ``conversion`` once and move ``partner``'s totals; False when its payment
    was counted before."""
    if not _insert_once(db, conversion):
        return False
    _move_totals(db, partner.id, counted, conversion.commission)
    db.expire(partner)
    return True


def record_conversion(
    db: Session,
    payer_id: uuid.UUID,
    amount_cents: int,
    payment_ref: str,
    partner: PartnerAccount | None = None,
) -> PartnerConversion | None:
    """Credit one payment: to ``partner`` (the promo code's) when given, else to the
    payer's referring partner; and the second tier to whoever referred that partner.

    Returns the new first-tier conversion, or None when nobody earns on it (no approved
    partner, nothing paid) or the payment was counted before.
    """
    if amount_cents <= 0:
        return None
    if not _may_earn_on(db, partner, payer_id):
        partner = _referrer(db, payer_id)
    if partner is None:
        return None
    now = utcnow()
    conversion = PartnerConversion(
        partner_id=partner.id,
        payment_ref=payment_ref,
        amount=amount_cents,
        commission=commission_cents(amount_cents, account_terms(partner)),
        level=FIRST_TIER,
        status=ConversionStatus.UNPAID,
        created_at=now,
    )
    if not _credit(db, partner, conversion, 1):
        return None
    _record_second_tier(db, partner, payer_id, amount_cents, payment_ref, now)
    return conversion


def _record_second_tier(
    db: Session,
    partner: PartnerAccount,
    payer_id: uuid.UUID,
    amount_cents: int,
    payment_ref: str,
    when: datetime,
) -> PartnerConversion | None:
    """The second tier of a payment ``partner`` just earned on, if anyone referred them."""
    percent = get_settings().partner_second_tier_percent
    upline = _upline(db, partner, payer_id) if percent > 0 else None
    if upline is None:
        return None
    conversion = PartnerConversion(
        partner_id=upline.id,
        payment_ref=SECOND_TIER_PREFIX + payment_ref,
        amount=amount_cents,
        commission=share_cents(amount_cents, percent),
        level=SECOND_TIER,
        status=ConversionStatus.UNPAID,
        created_at=when,
    )
    return conversion if _credit(db, upline, conversion, 0) else None


def reverse_conversion(db: Session, payment_refs: list[str]) -> PartnerConversion | None:
    """Reverse the unpaid conversions (both tiers) of a refunded payment; the first
    tier's conversion, or None when it was not reversed now."""
    keys = [*payment_refs, *(SECOND_TIER_PREFIX + ref for ref in payment_refs)]
    rows = db.exec(
        select(PartnerConversion)
        .where(col(PartnerConversion.payment_ref).in_(keys))
        .order_by(col(PartnerConversion.level))
    ).all()
    first: PartnerConversion | None = None
    for conversion in rows:
        reversed_now = db.execute(
            update(PartnerConversion)
            .where(
                col(PartnerConversion.id) == conversion.id,
                col(PartnerConversion.status) == ConversionStatus.UNPAID,
            )
            .values(status=ConversionStatus.REVERSED)
        )
        if reversed_now.rowcount != 1:
            log.info("Conversion %s of a refunded payment is no longer unpaid", conversion.id)
            continue
        counted = 1 if conversion.level == FIRST_TIER else 0
        _move_totals(db, conversion.partner_id, -counted, -conversion.commission)
        db.expire(conversion)
        if conversion.level == FIRST_TIER:
            first = conversion
    return first


# ---------------------------------------------------------------------------
# The payments area's listeners
# ---------------------------------------------------------------------------
def credit_checkout(db: Session, payment: CheckoutSession) -> None:
    """A fulfilled checkout of any kind: its promo code's partner, if it still may earn,
    else the member's referrer. A promo code credits this purchase only: who referred the
    member (a link, for good) is left as it is, so later payments without a code go to
    that referrer, or to nobody."""
    partner = promo.approved_partner_with_promo(db, payment.promo_code)
    if partner is not None and partner.user_id == payment.user_id:
        partner = None
    record_conversion(
        db, payment.user_id, payment.amount_cents, checkout_payment_ref(payment), partner
    )


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
