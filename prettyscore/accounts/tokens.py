"""Token primitives: signed access tokens (JWT) and opaque secrets stored only as hashes.

Access tokens are short-lived and self-contained (ES256, signed by a key of
``keys.py`` and naming it in the ``kid`` header), but every use is also checked against
the session row, so signing out takes effect at once. Refresh tokens and recovery links
are random secrets; the database keeps their SHA-256 only, so a leaked database does not
leak live sessions.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime

import jwt
from sqlmodel import Session

from prettyscore.accounts import keys
from prettyscore.core import clock
from prettyscore.core.settings import get_settings

AUDIENCE = "authenticated"


@dataclass(frozen=True)
class AccessClaims:
    """What a valid access token says about its bearer."""

    user_id: uuid.UUID
    session_id: uuid.UUID
    email: str
    aal: str
    expires_at: int


def new_secret() -> str:
    """A fresh unguessable token (256 bits), safe in URLs and cookies."""
    return secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    """The form in which a secret is stored and looked up."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def issue_access_token(
    db: Session,
    *,
    user_id: uuid.UUID,
    session_id: uuid.UUID,
    email: str,
    aal: str,
    amr: list[dict],
    issued_at: datetime,
) -> tuple[str, int]:
    """A signed access token and its expiry (unix seconds)."""
    settings = get_settings()
    iat = int(issued_at.timestamp())
    exp = iat + settings.access_token_ttl_seconds
    claims = {
        "iss": f"{settings.public_url}/auth/v1",
        "aud": AUDIENCE,
        "sub": str(user_id),
        "email": email,
        "role": AUDIENCE,
        "aal": aal,
        "amr": amr,
        "session_id": str(session_id),
        "iat": iat,
        "exp": exp,
    }
    kid, private_key = keys.signing_key(db)
    token = jwt.encode(claims, private_key, algorithm=keys.ALGORITHM, headers={"kid": kid})
    return token, exp


def read_access_token(
    db: Session, token: str, *, verify_expiry: bool = True
) -> AccessClaims | None:
    """The claims of a token we signed, or None for anything tampered, foreign, expired,
    meant for another audience, or signed by a key we do not hold (or no longer trust)."""
    if not token:
        return None
    try:
        public_key = keys.verifying_key(db, jwt.get_unverified_header(token).get("kid"))
        if public_key is None:
            return None
        claims = jwt.decode(
            token,
            public_key,
            algorithms=[keys.ALGORITHM],
            audience=AUDIENCE,
            options={
                "verify_exp": False,
                "verify_iat": False,
                "require": ["sub", "session_id", "exp"],
            },
        )
        if not _in_its_lifetime(claims, verify_expiry=verify_expiry):
            return None
        return AccessClaims(
            user_id=uuid.UUID(claims["sub"]),
            session_id=uuid.UUID(claims["session_id"]),
            email=str(claims.get("email", "")),
            aal=str(claims.get("aal", "aal1")),
            expires_at=int(claims["exp"]),
        )
    except (jwt.PyJWTError, ValueError, TypeError, KeyError, OverflowError):
        return None


def _in_its_lifetime(claims: dict, *, verify_expiry: bool) -> bool:
    """The checks PyJWT makes of ``exp`` and ``iat``, against the app's clock: expired
    at ``exp`` itself, not yet valid before ``iat``."""
    moment = clock.now().timestamp()
    if verify_expiry and int(claims["exp"]) <= moment:
        return False
    return "iat" not in claims or int(claims["iat"]) <= moment
