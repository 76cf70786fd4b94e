"""Referral links and who they bring: the documents' track-referral, and sign-up credit.

``/r/{code}`` (``partners.api``) calls ``track_referral``: an approved partner's code
counts one click, in one conditional UPDATE so that simultaneous clicks all count, and
the browser keeps the code in the ``affiliate_code`` cookie for 60 days. When that
browser signs up, ``credit_referrer`` (an ``after_sign_up`` listener of accounts)
credits the new member to the partner
(``profiles.referred_by_partner``), if the partner is still approved and is not the
member themselves. The cookie is read on the server; the browser never decides it.
"""

from __future__ import annotations

import uuid
from http.cookies import CookieError, SimpleCookie

from sqlalchemy import update
from sqlmodel import Session, col, select

from prettyscore.accounts import service as accounts
from prettyscore.accounts.models import Profile
from prettyscore.accounts.service import SessionTokens
from prettyscore.partners.models import PartnerAccount, PartnerStatus
from prettyscore.partners.programme import AFFILIATE_COOKIE
from prettyscore.partners.service import MAX_CODE_LENGTH, clean_code


def _canonical(code: str | None) -> str | None:
    """The code as stored (upper case), or None when it cannot be anyone's code."""
    cleaned = clean_code(code)
    if not cleaned or len(cleaned) > MAX_CODE_LENGTH or cleaned != (code or "").upper():
        return None
    return cleaned


def track_referral(db: Session, code: str | None) -> str | None:
    """Count a click on an approved partner's link; the code to remember, or None.

    None (unknown code, pending or suspended partner) is the documents' failure: nothing
    is counted and no cookie is set.
    """
    canonical = _canonical(code)
    if canonical is None:
        return None
    counted = db.execute(
        update(PartnerAccount)
        .where(
            col(PartnerAccount.code) == canonical,
            col(PartnerAccount.status) == PartnerStatus.APPROVED,
        )
        .values(total_clicks=col(PartnerAccount.total_clicks) + 1)
    )
    return canonical if counted.rowcount == 1 else None


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
    """Credit the member to ``partner`` unless a partner has them already or it is their
    own account (the referral link's rule, used by promo codes too); the partner's id,
    or None."""
    if partner.user_id == user_id:
        return None
    credited = db.execute(
        update(Profile)
        .where(col(Profile.id) == user_id, col(Profile.referred_by_partner).is_(None))
        .values(referred_by_partner=partner.id)
    )
    return partner.id if credited.rowcount == 1 else None


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
