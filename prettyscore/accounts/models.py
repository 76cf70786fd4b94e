"""Accounts tables: users, sessions with rotating refresh tokens, recovery, roles, profiles.

The documents' Session entity (access_token, refresh_token, expires_at, ...) is what API
clients hold; here we keep what the server needs to trust it: the session row (revoked
on sign-out) and the hashes of its refresh tokens, never the tokens themselves. A
browser holds only the access token: its refresh token stays here, found by the hash of
the browser's HttpOnly key (``BrowserSession``).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import (
    created_at_field,
    foreign_key,
    id_field,
    json_field,
    timestamp_field,
)


class User(SQLModel, table=True):
    """A member. Emails are stored lower-cased, so uniqueness ignores case."""

    __tablename__ = "users"

    id: uuid.UUID = id_field()
    email: str = Field(max_length=255, unique=True, index=True)
    phone: str | None = Field(default=None, max_length=32, unique=True)
    password_hash: str = Field(max_length=255)
    user_metadata: dict = json_field()
    email_confirmed_at: datetime | None = timestamp_field()
    last_sign_in_at: datetime | None = timestamp_field()
    created_at: datetime = created_at_field()
    updated_at: datetime = created_at_field()


class AuthSession(SQLModel, table=True):
    """One signed-in device. Revoking it ends every token it ever issued."""

    __tablename__ = "auth_sessions"

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id")
    aal: str = Field(default="aal1", max_length=8)
    user_agent: str | None = Field(default=None, max_length=512)
    created_at: datetime = created_at_field()
    refreshed_at: datetime | None = timestamp_field()
    revoked_at: datetime | None = timestamp_field()
    revoked_reason: str | None = Field(default=None, max_length=32)
    # How the user proved who they are in this session, oldest first, as the access
    # token's ``amr`` claim shows it: [{"method": "password", "timestamp": 1700000000}].
    amr: list = json_field(default_factory=list)
    factor_id: uuid.UUID | None = foreign_key(
        "mfa_factors.id", nullable=True, index=False, ondelete="SET NULL"
    )


class RefreshToken(SQLModel, table=True):
    """A refresh token, by its SHA-256. Each use rotates it: the old one is marked used.

    Presenting a used token again means it was stolen or replayed, and the whole session
    (the token family) is revoked.
    """

    __tablename__ = "refresh_tokens"

    id: uuid.UUID = id_field()
    session_id: uuid.UUID = foreign_key("auth_sessions.id")
    token_hash: str = Field(max_length=64, unique=True)
    parent_id: uuid.UUID | None = foreign_key("refresh_tokens.id", nullable=True, index=False)
    used_at: datetime | None = timestamp_field()
    expires_at: datetime = timestamp_field(nullable=False)
    created_at: datetime = created_at_field()


class BrowserSession(SQLModel, table=True):
    """The session a browser is signed in to: its current refresh token, found by the
    SHA-256 of the browser's key (``web.browser_key``, an HttpOnly cookie).

    The browser never holds the refresh token, so no script in a page can read it: the
    server renews the browser's access token when the browser's event socket presents the
    key, and rotates the refresh token here. Revoking the session removes the row.
    """

    __tablename__ = "auth_browser_sessions"

    key_hash: str = Field(primary_key=True, max_length=64)
    refresh_token_id: uuid.UUID = foreign_key("refresh_tokens.id")
    updated_at: datetime = created_at_field()


class KnownBrowser(SQLModel, table=True):
    """A browser that has signed in to a member's account, by the SHA-256 of its key
    (``web.browser_key``, an HttpOnly cookie). The key is replaced at every sign-in: the
    browser stays known under the key that replaces it.

    A correct authenticator code from a known browser passes even when strangers with
    the password have spent the factor's daily budget of wrong codes (``mfa``).
    """

    __tablename__ = "auth_known_browsers"

    key_hash: str = Field(primary_key=True, max_length=64)
    user_id: uuid.UUID = Field(
        primary_key=True, foreign_key="users.id", ondelete="CASCADE", index=True
    )
    created_at: datetime = created_at_field()


class PasswordRecoveryToken(SQLModel, table=True):
    """A single-use password reset link, by its SHA-256, valid for an hour."""

    __tablename__ = "password_recovery_tokens"

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id")
    token_hash: str = Field(max_length=64, unique=True)
    expires_at: datetime = timestamp_field(nullable=False)
    used_at: datetime | None = timestamp_field()
    created_at: datetime = created_at_field()


class MfaFactorStatus(StrEnum):
    """Whether a factor's first code was accepted (``MfaFactor.status``)."""

    UNVERIFIED = "unverified"
    VERIFIED = "verified"


class MfaFactor(SQLModel, table=True):
    """A second factor (TOTP or phone); a verified one raises the session to aal2."""

    __tablename__ = "mfa_factors"

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id")
    friendly_name: str | None = Field(default=None, max_length=100)
    factor_type: str = Field(max_length=8)  # totp | phone
    status: str = Field(default=MfaFactorStatus.UNVERIFIED, max_length=12)
    secret: str | None = Field(default=None, max_length=128)
    phone: str | None = Field(default=None, max_length=32)
    # The 30-second step of the last accepted code: a code is never accepted twice.
    last_used_step: int | None = Field(default=None)
    created_at: datetime = created_at_field()
    updated_at: datetime = created_at_field()


class MfaChallenge(SQLModel, table=True):
    """A request to prove a factor; verified once, within a few minutes."""

    __tablename__ = "mfa_challenges"

    id: uuid.UUID = id_field()
    factor_id: uuid.UUID = foreign_key("mfa_factors.id")
    ip_address: str | None = Field(default=None, max_length=64)
    created_at: datetime = created_at_field()
    verified_at: datetime | None = timestamp_field()


class SigningKey(SQLModel, table=True):
    """An asymmetric key that signs access tokens; its public half is in the JWKS.

    The newest key that is not retired signs; every key not yet past ``retired_at`` plus
    the token lifetime still verifies, so a rotation never signs anyone out.
    """

    __tablename__ = "auth_signing_keys"

    kid: str = Field(primary_key=True, max_length=64)
    algorithm: str = Field(max_length=8)
    private_key_pem: str = Field(sa_type=Text, nullable=False)
    public_jwk: dict = json_field()
    created_at: datetime = created_at_field()
    retired_at: datetime | None = timestamp_field()


class OneTimeToken(SQLModel, table=True):
    """A secret mailed to a user: a 6-digit code or a link, stored by its SHA-256.

    ``token_type``: signup, magiclink, recovery, email_change, reauthentication. Spent
    once (``used_at``), within its lifetime.
    """

    __tablename__ = "auth_one_time_tokens"
    __table_args__ = (Index("ix_auth_one_time_tokens_user_type", "user_id", "token_type"),)

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id", index=False)
    token_type: str = Field(max_length=24)
    token_hash: str = Field(max_length=64, index=True)
    relates_to: str | None = Field(default=None, max_length=255)
    expires_at: datetime = timestamp_field(nullable=False)
    used_at: datetime | None = timestamp_field()
    created_at: datetime = created_at_field()


class FlowState(SQLModel, table=True):
    """A PKCE sign-in: the auth code sent in a link, exchanged once with its verifier."""

    __tablename__ = "auth_flow_states"

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id")
    auth_code_hash: str = Field(max_length=64, unique=True)
    code_challenge: str = Field(max_length=128)
    code_challenge_method: str = Field(max_length=8)  # s256 | plain
    authentication_method: str = Field(max_length=24)
    expires_at: datetime = timestamp_field(nullable=False)
    used_at: datetime | None = timestamp_field()
    created_at: datetime = created_at_field()


class UserRole(SQLModel, table=True):
    """An extra role of a user; the documents know one: admin."""

    __tablename__ = "user_roles"
    __table_args__ = (UniqueConstraint("user_id", "role", name="uq_user_roles_user_role"),)

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id")
    role: str = Field(max_length=32)
    created_at: datetime = created_at_field()


class Profile(SQLModel, table=True):
    """Public facts about a member: the verified badge and who referred them."""

    __tablename__ = "profiles"
    __table_args__ = (Index("ix_profiles_referred_by_partner", "referred_by_partner"),)

    id: uuid.UUID = Field(foreign_key="users.id", primary_key=True, ondelete="CASCADE")
    is_verified: bool = Field(default=False)
    referred_by_partner: uuid.UUID | None = Field(
        default=None, foreign_key="partner_accounts.id", ondelete="SET NULL"
    )
    created_at: datetime = created_at_field()
