"""The JSON shapes of the authentication API: GoTrue's user, identity, factor and session.

Written once here so every auth route (sign-up, token, verify, MFA) answers with the same
objects the Supabase client libraries parse. Times are ISO 8601 in UTC.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from prettyscore.accounts.models import MfaFactor, User
from prettyscore.accounts.service import SessionTokens

AUDIENCE = "authenticated"


def iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def factor_json(factor: MfaFactor) -> dict:
    """A factor as GoTrue lists it (never its secret)."""
    return {
        "id": str(factor.id),
        "friendly_name": factor.friendly_name or "",
        "factor_type": factor.factor_type,
        "status": factor.status,
        "created_at": iso(factor.created_at),
        "updated_at": iso(factor.updated_at),
    }


def identity_json(user: User) -> dict:
    """The member's one identity: their email (no other providers are enabled here)."""
    return {
        "identity_id": str(user.id),
        "id": str(user.id),
        "user_id": str(user.id),
        "identity_data": {
            "email": user.email,
            "email_verified": user.email_confirmed_at is not None,
            "phone_verified": False,
            "sub": str(user.id),
        },
        "provider": "email",
        "email": user.email,
        "last_sign_in_at": iso(user.last_sign_in_at),
        "created_at": iso(user.created_at),
        "updated_at": iso(user.updated_at),
    }


def user_json(db: Session, user: User) -> dict:
    """The user object of GoTrue, with its identities and MFA factors."""
    factors = db.exec(
        select(MfaFactor).where(MfaFactor.user_id == user.id).order_by(MfaFactor.created_at)
    ).all()
    return {
        "id": str(user.id),
        "aud": AUDIENCE,
        "role": AUDIENCE,
        "email": user.email,
        "phone": user.phone or "",
        "email_confirmed_at": iso(user.email_confirmed_at),
        "confirmed_at": iso(user.email_confirmed_at),
        "last_sign_in_at": iso(user.last_sign_in_at),
        "app_metadata": {"provider": "email", "providers": ["email"]},
        "user_metadata": dict(user.user_metadata or {}),
        "identities": [identity_json(user)],
        "factors": [factor_json(factor) for factor in factors],
        "created_at": iso(user.created_at),
        "updated_at": iso(user.updated_at),
        "is_anonymous": False,
    }


def session_json(db: Session, tokens: SessionTokens) -> dict:
    """A session as GoTrue returns it from /token and /verify: tokens plus the user."""
    user = db.get(User, tokens.user_id)
    return {
        "access_token": tokens.access_token,
        "token_type": tokens.token_type,
        "expires_in": tokens.expires_in,
        "expires_at": tokens.expires_at,
        "refresh_token": tokens.refresh_token,
        "user": user_json(db, user),
    }
