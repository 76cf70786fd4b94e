"""Referral links and who they bring: the documents' track-referral, and sign-up credit.

``/r/{code}`` (``partners.api``) and the track-referral function call
``track_referral``: an approved partner's code counts one click, in one conditional
UPDATE so that simultaneous clicks all count, and the browser keeps the code in the
``affiliate_code`` cookie for 60 days. When that browser signs up, ``credit_referrer``
(an ``after_sign_up`` listener of accounts) credits the new member to the partner
(``profiles.referred_by_partner``), if the partner is still approved and is not the
member themselves. The cookie is read on the server; the browser never decides it.

Clicks count people, not calls: a browser's clicks on one partner's link count once a
day (a browser that shows no key counts by its address), and one address may call for
one partner's code only so often (``core.rate_limits``, shared by every worker), so
nobody inflates a partner's clicks by calling again.

Referrals never form a loop: a member is not credited to their own partner account nor
to one they referred, directly or through other partners (``referral_chain_reaches``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie

from sqlalchemy import update
from sqlmodel import Session, col, select

from prettyscore.accounts import service as accounts
from prettyscore.accounts.models import Profile
from prettyscore.accounts.service import SessionTokens
from prettyscore.core import messages
from prettyscore.core.rate_limits import get_rate_limiter
from prettyscore.partners.models import PartnerAccount, PartnerStatus
from prettyscore.partners.programme import AFFILIATE_COOKIE
from prettyscore.partners.service import MAX_CODE_LENGTH, clean_code

#: A browser's clicks on one partner's link count once in this window.
ONE_CLICK_PER_BROWSER = "1 per day"
#: Calls for one partner's code from one address; beyond, 'Request rate limit reached'.
#: Room for a household or an office behind one address, not for a script.
CALLS_PER_ADDRESS = "20 per hour"


@dataclass(frozen=True)
class Clicker:
    """Who follows a referral link: the caller's address, and the browser's key (""
    when the browser has none yet, or is a script that sends none)."""

    address: str
    browser: str = ""

    def counted_as(self) -> str:
        """Whose click it is: the browser, or its address when it shows no key."""
        return f"browser:{self.browser}" if self.browser else f"address:{self.address}"


def _canonical(code: str | None) -> str | None:
    """The code as stored (upper case), or None when it cannot be anyone's code."""
    cleaned = clean_code(code)
    if not cleaned or len(cleaned) > MAX_CODE_LENGTH or cleaned != (code or "").upper():
        return None
    return cleaned


def track_referral(db: Session, code: str | None, clicker: Clicker) -> str | None:
    """Count ``clicker``'s click on an approved partner's link (once a day per browser);
    the code to remember, or None.

    None (unknown code, pending or suspended partner) is the documents' failure: nothing
    is counted and no cookie is set. Raises ``RateLimited`` when the address has called
    for this partner's code too often: nothing is counted either.
    """
    canonical = _canonical(code)
    partner_id = _approved_partner_id(db, canonical) if canonical else None
    if partner_id is None:
        return None
    limiter, partner_key = get_rate_limiter(), str(partner_id)
    limiter.enforce(
        CALLS_PER_ADDRESS,
        "referral-calls-address",
        partner_key,
        clicker.address,
        message=messages.OVER_REQUEST_RATE_LIMIT,
    )
    if not limiter.hit(ONE_CLICK_PER_BROWSER, "referral-click", partner_key, clicker.counted_as()):
        return canonical  # this browser's click counted already today
    counted = db.execute(
        update(PartnerAccount)
        .where(
            col(PartnerAccount.id) == partner_id,
            col(PartnerAccount.status) == PartnerStatus.APPROVED,
        )
        .values(total_clicks=col(PartnerAccount.total_clicks) + 1)
    )
    return canonical if counted.rowcount == 1 else None


def _approved_partner_id(db: Session, code: str) -> uuid.UUID | None:
    return db.exec(
        select(PartnerAccount.id).where(
            PartnerAccount.code == code, PartnerAccount.status == PartnerStatus.APPROVED
        )
    ).first()


def referral_code_from_cookies(cookie_header: str | None) -> str | None:
    """The ``affiliate_code`` cookie's value in a Cookie header, if there is one."""
    if not cookie_header:
        return None
    jar = SimpleCookie()
    try:
        jar.load(cookie_header)
    except CookieError:
        return None
    morsel = jar.get(AFFILIATE_COOKIE)
    return morsel.value if morsel is not None and morsel.value else None


def attribute_referral(db: Session, user_id: uuid.UUID, code: str | None) -> uuid.UUID | None:
    """Credit the member to the approved partner with ``code``; the partner's id, or None.

    Nobody refers themselves, and a member credited once stays with that partner.
    """
    canonical = _canonical(code)
    if canonical is None:
        return None
    partner = db.exec(
        select(PartnerAccount).where(
            PartnerAccount.code == canonical, PartnerAccount.status == PartnerStatus.APPROVED
        )
    ).first()
    if partner is None:
        return None
    return credit_member(db, user_id, partner)


def credit_member(db: Session, user_id: uuid.UUID, partner: PartnerAccount) -> uuid.UUID | None:
    """Credit the member to ``partner`` unless a partner has them already, or it is their
    own account or one they referred (``referral_chain_reaches``: the referral link's
    rule, used by promo codes too); the partner's id, or None."""
    if referral_chain_reaches(db, partner, user_id):
        return None
    credited = db.execute(
        update(Profile)
        .where(col(Profile.id) == user_id, col(Profile.referred_by_partner).is_(None))
        .values(referred_by_partner=partner.id)
    )
    return partner.id if credited.rowcount == 1 else None


def referral_chain_reaches(db: Session, partner: PartnerAccount, member_id: uuid.UUID) -> bool:
    """Whether ``partner`` is the member's own account or one the member referred,
    directly or through other partners: its owner, the owner of the partner who referred
    them, and so on up, include the member.

    Such a partner must not earn on the member's purchases, nor take the member as a
    referral: the commission would come back around to the member (a sock-puppet partner
    on its owner's purchases), and two partners would become each other's second tier.
    """
    seen: set[uuid.UUID] = set()
    step: uuid.UUID | None = partner.id
    while step is not None and step not in seen:
        seen.add(step)
        row = db.exec(
            select(PartnerAccount.user_id, Profile.referred_by_partner)
            .join(Profile, col(Profile.id) == col(PartnerAccount.user_id), isouter=True)
            .where(PartnerAccount.id == step)
        ).first()
        if row is None:
            return False
        owner_id, step = row
        if owner_id == member_id:
            return True
    return False


def sign_up_with_referral(
    db: Session,
    email: str | None,
    password: str | None,
    *,
    user_agent: str | None = None,
    referral_code: str | None = None,
    user_metadata: dict | None = None,
) -> SessionTokens:
    """Sign up (``accounts.service.sign_up``) and credit the referring partner, if any."""
    tokens = accounts.sign_up(
        db, email, password, user_agent=user_agent, user_metadata=user_metadata
    )
    attribute_referral(db, tokens.user_id, referral_code)
    return tokens


@accounts.after_sign_up
def credit_referrer(db: Session, user_id: uuid.UUID, cookies: str | None) -> None:
    """A new member whose browser came through a partner's link is that partner's."""
    attribute_referral(db, user_id, referral_code_from_cookies(cookies))
