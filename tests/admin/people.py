"""Members, admins and partner accounts for the admin and verification tests.

Partner accounts and conversions are written straight through the models: what the
partner application and a referred payment leave behind.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from sqlmodel import Session

from prettyscore.accounts import service as accounts
from prettyscore.accounts.service import SessionTokens
from prettyscore.core.model_types import utcnow
from prettyscore.partners import programme
from prettyscore.partners.models import PartnerAccount, PartnerConversion


def member_session(db: Session, name: str = "member") -> SessionTokens:
    """A new member, signed in: the tokens their browser holds."""
    return accounts.sign_up(db, f"{name}-{uuid.uuid4().hex[:6]}@example.com", "secret1")


def admin_session(db: Session) -> SessionTokens:
    """A new member with the admin role, signed in."""
    tokens = member_session(db, "admin")
    accounts.grant_role(db, tokens.email)
    return tokens


def member(db: Session, name: str = "member") -> uuid.UUID:
    return member_session(db, name).user_id


def admin(db: Session) -> uuid.UUID:
    return admin_session(db).user_id


def partner(
    db: Session,
    status: str = programme.PENDING,
    *,
    name: str = "Partner",
    minutes_ago: int = 0,
    **fields,
) -> PartnerAccount:
    account = PartnerAccount(
        user_id=member(db, "partner"),
        display_name=name,
        code=uuid.uuid4().hex[:8].upper(),
        status=status,
        created_at=utcnow() - timedelta(minutes=minutes_ago),
        **fields,
    )
    db.add(account)
    db.flush()
    return account


def conversion(
    db: Session, account: PartnerAccount, commission: int, status: str = programme.UNPAID
) -> PartnerConversion:
    row = PartnerConversion(
        partner_id=account.id,
        payment_ref=f"pay_{uuid.uuid4().hex}",
        amount=commission * 100 // account.commission_percent,
        commission=commission,
        status=status,
    )
    db.add(row)
    db.flush()
    return row
