"""Partner promo codes typed at checkout: a second way, beside the referral link, to
credit a partner with a member's payment.

The Promo code field beside each checkout button (Premium, a contact fee, the detailed
analysis) sends only the text typed; ``check_promo_code`` decides it before the checkout
starts (``billing.checkout`` asks it): the promo code of an approved partner is
accepted, any other text is refused with 'This promo code is not valid...' and nothing
is kept. Nobody credits themselves: as the referral link never credits a member to
their own partner account, a partner's own code is refused with its own message, and
so is the code of a partner the member referred, directly or through other partners
(the commission would come back around to them).

The accepted code is stored on the checkout; when the verified payment event arrives,
``commissions`` credits the code's partner through the same path as a referred
member's payment.
"""

from __future__ import annotations

import uuid

from sqlmodel import Session, select

from prettyscore.billing import checkout
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed
from prettyscore.core.text import storable
from prettyscore.partners.models import PartnerAccount, PartnerStatus
from prettyscore.partners.referrals import referral_chain_reaches
from prettyscore.partners.service import MAX_PROMO_CODE

UNKNOWN = "promo_code_unknown"
OWN = "promo_code_own"
OF_YOUR_REFERRAL = "promo_code_of_your_referral"


def canonical_promo_code(typed: str | None) -> str:
    """A typed promo code as partners' codes are stored: trimmed, upper case."""
    return storable(typed).strip().upper()


def approved_partner_with_promo(db: Session, code: str) -> PartnerAccount | None:
    """The approved partner whose promo code is ``code`` (as stored), if any."""
    if not code or len(code) > MAX_PROMO_CODE:
        return None
    return db.exec(
        select(PartnerAccount).where(
            PartnerAccount.promo_code == code, PartnerAccount.status == PartnerStatus.APPROVED
        )
    ).first()


def check_promo_code(db: Session, payer_id: uuid.UUID, typed: str) -> str:
    """The code as stored when it is an approved partner's, not the payer's own nor one
    the payer referred; otherwise ValidationFailed with the member's message."""
    code = canonical_promo_code(typed)
    partner = approved_partner_with_promo(db, code)
    if partner is None:
        raise ValidationFailed(messages.PROMO_CODE_UNKNOWN, code=UNKNOWN)
    if partner.user_id == payer_id:
        raise ValidationFailed(messages.PROMO_CODE_OWN, code=OWN)
    if referral_chain_reaches(db, partner, payer_id):
        raise ValidationFailed(messages.PROMO_CODE_OF_YOUR_REFERRAL, code=OF_YOUR_REFERRAL)
    return code


checkout.accept_promo_codes(check_promo_code)
