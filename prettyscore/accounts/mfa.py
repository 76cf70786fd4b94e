"""Multi-factor authentication with an authenticator app (TOTP), as GoTrue does it.

A member enrols a factor (a secret shown once, as a QR code and as text), proves it with
a first code, and from then on a session is only complete (``aal2``) once a code has been
checked in it. The REST API (``mfa_api.py``), the sign-in page's second step and the
security page all call these functions, so every rule lives here:

* a code is accepted once: its 30-second step must be later than the last accepted one,
  recorded by a conditional update so two simultaneous requests cannot both pass;
* a challenge is spent once, within five minutes, from the address that asked for it;
* wrong codes are counted, per challenge, per factor and address, and per factor,
  outside the database (the refusal rolls the transaction back, the count must survive
  it); a refusal for too many says when to try again.
"""

from __future__ import annotations

import hmac
import io
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

import pyotp
import segno
from sqlalchemy import delete, or_, update
from sqlmodel import Session, select

from prettyscore.accounts import service, tokens
from prettyscore.accounts.models import (
    AuthSession,
    MfaChallenge,
    MfaFactor,
    MfaFactorStatus,
    RefreshToken,
    User,
)
from prettyscore.accounts.service import CurrentUser, SessionTokens
from prettyscore.core import messages
from prettyscore.core.errors import (
    DomainError,
    NotAuthenticated,
    NotFound,
    PermissionDenied,
    ValidationFailed,
)
from prettyscore.core.model_types import utcnow
from prettyscore.core.rate_limits import get_rate_limiter
from prettyscore.core.text import clean_name

TOTP = "totp"
AAL2 = "aal2"
DEFAULT_ISSUER = "PrettyScore"
MAX_FACTORS = 10
MAX_NAME_LENGTH = 100
CHALLENGE_TTL = timedelta(minutes=5)
# An enrolment nobody finished is cleared when the member starts another one.
UNVERIFIED_FACTOR_TTL = timedelta(minutes=5)
STEP_SECONDS = 30
# Wrong codes: a challenge is void after 5; a factor refuses codes from one address for
# a while after 10 wrong ones from it in 15 minutes, and for the rest of the day after 20
# (the sign-in page takes a new challenge for each try, so these counts are the ones that
# stop guessing there: 20 guesses a day of a million codes). Counted per address, someone
# who has the password and guesses locks out their own address, not the owner on theirs;
# the factor's own budget, five addresses' worth a day, bounds guesses spread over many.
# Strangers on a few addresses can spend that budget, so a browser that has signed in to
# the account before (``service.knows_browser``) is not held to it, nor to its address's:
# it has the same two tiers of its own, and the owner's correct code from it passes.
WRONG_CODES_PER_CHALLENGE = "5 per 5 minutes"
WRONG_CODES_PER_FACTOR_AND_ADDRESS = ("20 per day", "10 per 15 minutes")
WRONG_CODES_PER_FACTOR = "100 per day"


@dataclass(frozen=True)
class Enrolment:
    """A new, unverified TOTP factor and what the member needs to add it to their app."""

    factor_id: uuid.UUID
    friendly_name: str
    secret: str
    uri: str
    qr_svg: str


@dataclass(frozen=True)
class Challenge:
    """A chance to prove a factor with one code, until ``expires_at`` (unix seconds)."""

    id: uuid.UUID
    factor_type: str
    expires_at: int


class Unprocessable(DomainError):
    """GoTrue's 422 for a well-formed request its rules refuse."""

    status = 422


# ---------------------------------------------------------------------------
# Enrolment
# ---------------------------------------------------------------------------
def enroll(
    db: Session,
    user: CurrentUser,
    factor_type: str | None,
    friendly_name: str | None = None,
    issuer: str | None = None,
) -> Enrolment:
    """Start enrolling a factor of ``factor_type``; only authenticator apps are offered."""
    if factor_type == "phone":
        raise Unprocessable(messages.MFA_PHONE_ENROLL_DISABLED, code="mfa_phone_enroll_not_enabled")
    if factor_type == "webauthn":
        raise Unprocessable(
            messages.MFA_WEBAUTHN_ENROLL_DISABLED, code="mfa_webauthn_enroll_not_enabled"
        )
    if factor_type != TOTP:
        raise ValidationFailed(messages.MFA_UNKNOWN_FACTOR_TYPE, status=400)
    return enroll_totp(db, user, friendly_name, issuer)


def enroll_totp(
    db: Session, user: CurrentUser, friendly_name: str | None = None, issuer: str | None = None
) -> Enrolment:
    """A new unverified TOTP factor with a fresh secret, its otpauth URI and QR code."""
    name = clean_name(friendly_name)
    label = clean_name(issuer) or DEFAULT_ISSUER
    if len(name) > MAX_NAME_LENGTH:
        raise ValidationFailed(messages.MFA_FRIENDLY_NAME_TOO_LONG)
    if len(label) > MAX_NAME_LENGTH:
        raise ValidationFailed(messages.MFA_ISSUER_TOO_LONG)
    now = utcnow()
    _forget_abandoned_enrolments(db, user.id, now)
    _check_room_for_factor(db, user, name)
    secret = pyotp.random_base32()
    uri = pyotp.TOTP(secret).provisioning_uri(name=user.email, issuer_name=label)
    factor = MfaFactor(
        user_id=user.id,
        friendly_name=name or None,
        factor_type=TOTP,
        status=MfaFactorStatus.UNVERIFIED,
        secret=secret,
        created_at=now,
        updated_at=now,
    )
    db.add(factor)
    db.flush()
    return Enrolment(factor.id, name, secret, uri, qr_code_svg(uri))


def _forget_abandoned_enrolments(db: Session, user_id: uuid.UUID, now: datetime) -> None:
    db.execute(
        delete(MfaFactor).where(
            MfaFactor.user_id == user_id,
            MfaFactor.status == MfaFactorStatus.UNVERIFIED,
            MfaFactor.created_at < now - UNVERIFIED_FACTOR_TTL,
        )
    )


def _check_room_for_factor(db: Session, user: CurrentUser, name: str) -> None:
    """GoTrue's rules: unique names, at most ten factors, and a member who already has a
    verified factor adds another only from a session that proved one."""
    factors = list_factors(db, user.id)
    if name and any((factor.friendly_name or "") == name for factor in factors):
        raise Unprocessable(
            messages.MFA_FACTOR_NAME_CONFLICT.format(name=name), code="mfa_factor_name_conflict"
        )
    if len(factors) >= MAX_FACTORS:
        raise Unprocessable(messages.MFA_TOO_MANY_FACTORS, code="too_many_enrolled_mfa_factors")
    has_verified = any(factor.status == MfaFactorStatus.VERIFIED for factor in factors)
    if has_verified and _open_session(db, user).aal != AAL2:
        raise PermissionDenied(messages.MFA_AAL2_TO_ENROLL, code="insufficient_aal")


def qr_code_svg(uri: str) -> str:
    """The URI as an SVG QR code, the way GoTrue sends it: bare markup that becomes an
    image once prefixed with ``data:image/svg+xml;utf-8,`` (the client libraries do it).
    Colours are named, not ``#hex``: a ``#`` would end such a data URI early."""
    buffer = io.BytesIO()
    segno.make(uri, error="m").save(
        buffer, kind="svg", xmldecl=False, nl=False, scale=4, dark="black", light="white"
    )
    markup = buffer.getvalue().decode("utf-8")
    return markup.replace('"#000"', '"black"').replace('"#fff"', '"white"')


def list_factors(db: Session, user_id: uuid.UUID) -> list[MfaFactor]:
    """The member's factors, oldest first."""
    query = select(MfaFactor).where(MfaFactor.user_id == user_id).order_by(MfaFactor.created_at)
    return list(db.exec(query))


def verified_totp_factors(db: Session, user_id: uuid.UUID) -> list[MfaFactor]:
    """The authenticator apps a sign-in may be completed with, oldest first."""
    return [
        factor
        for factor in list_factors(db, user_id)
        if factor.factor_type == TOTP and factor.status == MfaFactorStatus.VERIFIED
    ]


# ---------------------------------------------------------------------------
# Challenge and verification
# ---------------------------------------------------------------------------
def challenge(
    db: Session, user: CurrentUser, factor_id: str | uuid.UUID, ip_address: str | None
) -> Challenge:
    """A five-minute chance to prove one of the member's factors, from this address."""
    factor = _own_factor(db, user, factor_id)
    now = utcnow()
    db.execute(
        delete(MfaChallenge).where(
            MfaChallenge.factor_id == factor.id, MfaChallenge.created_at < now - CHALLENGE_TTL
        )
    )
    record = MfaChallenge(factor_id=factor.id, ip_address=_address(ip_address), created_at=now)
    db.add(record)
    db.flush()
    return Challenge(record.id, factor.factor_type, int((now + CHALLENGE_TTL).timestamp()))


def verify(
    db: Session,
    user: CurrentUser,
    factor_id: str | uuid.UUID,
    challenge_id: str | uuid.UUID,
    code: str | None,
    ip_address: str | None,
    browser_key: str | None = None,
) -> SessionTokens:
    """Check a code against a challenge; on success the factor is verified and this
    session becomes aal2, with a new token pair (the old refresh token is spent).
    ``browser_key``: the key of the browser the code was typed in, when it is one."""
    typed = "".join((code or "").split())
    if not typed:
        raise ValidationFailed(messages.MFA_CODE_REQUIRED, status=400)
    factor = _own_factor(db, user, factor_id)
    record = _usable_challenge(db, factor, challenge_id, ip_address)
    known = browser_key if service.knows_browser(db, user.id, browser_key) else None
    budgets = _budgets(record.id, factor.id, _address(ip_address) or "unknown", known)
    _refuse_while_locked(budgets)
    now = utcnow()
    step = _matching_step(factor, typed, now)
    if step is None or not _spend(db, factor, record, step, now):
        _count_wrong_code(budgets)
        raise Unprocessable(messages.MFA_INVALID_CODE, code="mfa_verification_failed")
    session = _open_session(db, user)
    _raise_to_aal2(db, session, factor, now)
    _end_sessions_short_of_aal2(db, session, now)
    _forget_other_unverified(db, factor)
    return _rotate_tokens(db, session, now)


def challenge_and_verify(
    db: Session,
    user: CurrentUser,
    factor_id: str | uuid.UUID,
    code: str | None,
    ip_address: str | None,
    browser_key: str | None = None,
) -> SessionTokens:
    """Both steps at once, for the pages: the code is typed before the challenge exists."""
    record = challenge(db, user, factor_id, ip_address)
    return verify(db, user, factor_id, record.id, code, ip_address, browser_key)


def complete_sign_in(
    db: Session,
    access_token: str,
    refresh_token: str,
    code: str | None,
    ip_address: str | None,
    factor_id: str | uuid.UUID | None = None,
    browser_key: str | None = None,
) -> SessionTokens:
    """The sign-in's second step: prove a verified authenticator in the session the
    password opened (renewed first if its access token has expired meanwhile), in the
    browser holding ``browser_key``."""
    user = service.resolve_user(db, access_token)
    if user is None and refresh_token:
        renewed = service.refresh_session(db, refresh_token)
        user = service.resolve_user(db, renewed.access_token)
    if user is None:
        raise NotAuthenticated(messages.SESSION_EXPIRED, code="session_not_found")
    factors = verified_totp_factors(db, user.id)
    chosen = next((f for f in factors if str(f.id) == str(factor_id or "")), None)
    if chosen is None and factors:
        chosen = factors[0]
    if chosen is None:
        raise NotFound(messages.MFA_FACTOR_NOT_FOUND, code="mfa_factor_not_found")
    return challenge_and_verify(db, user, chosen.id, code, ip_address, browser_key)


def _usable_challenge(
    db: Session, factor: MfaFactor, challenge_id, ip_address: str | None
) -> MfaChallenge:
    wanted = _as_uuid(challenge_id)
    record = db.get(MfaChallenge, wanted) if wanted else None
    if record is None or record.factor_id != factor.id:
        raise Unprocessable(messages.MFA_CHALLENGE_NOT_FOUND, code="mfa_factor_not_found")
    if record.verified_at is not None:
        raise Unprocessable(messages.MFA_CHALLENGE_USED, code="mfa_challenge_expired")
    if record.ip_address != _address(ip_address):
        raise Unprocessable(messages.MFA_IP_ADDRESS_MISMATCH, code="mfa_ip_address_mismatch")
    if record.created_at + CHALLENGE_TTL <= utcnow():
        raise Unprocessable(
            messages.MFA_CHALLENGE_EXPIRED.format(challenge_id=record.id),
            code="mfa_challenge_expired",
        )
    return record


def _matching_step(factor: MfaFactor, typed: str, now: datetime) -> int | None:
    """The 30-second step (now, or one either side) whose code was typed, if any and if
    it is later than the last accepted one: a code is never accepted twice."""
    if not factor.secret or not typed.isdigit():
        return None
    totp = pyotp.TOTP(factor.secret)
    current = totp.timecode(now)
    for step in (current - 1, current, current + 1):
        if hmac.compare_digest(totp.generate_otp(step), typed):
            if factor.last_used_step is not None and step <= factor.last_used_step:
                return None
            return step
    return None


def _spend(db: Session, factor: MfaFactor, record: MfaChallenge, step: int, now) -> bool:
    """Spend the challenge and the code's step in conditional updates: of two requests
    racing with the same challenge or the same code, only one changes the rows."""
    spent_challenge = db.execute(
        update(MfaChallenge)
        .where(MfaChallenge.id == record.id, MfaChallenge.verified_at.is_(None))
        .values(verified_at=now)
    )
    if spent_challenge.rowcount != 1:
        return False
    spent_step = db.execute(
        update(MfaFactor)
        .where(
            MfaFactor.id == factor.id,
            or_(MfaFactor.last_used_step.is_(None), MfaFactor.last_used_step < step),
        )
        .values(last_used_step=step, status=MfaFactorStatus.VERIFIED, updated_at=now)
    )
    return spent_step.rowcount == 1


def _raise_to_aal2(db: Session, session: AuthSession, factor: MfaFactor, now) -> None:
    """The session proved this factor: aal2, and 'totp' first among its methods."""
    earlier = [entry for entry in session.amr or [] if entry.get("method") != TOTP]
    session.amr = [{"method": TOTP, "timestamp": int(now.timestamp())}, *earlier]
    session.aal = AAL2
    session.factor_id = factor.id
    db.add(session)
    db.flush()


def _end_sessions_short_of_aal2(db: Session, session: AuthSession, now) -> None:
    """Other sessions of the member opened by a password alone end, as in GoTrue: from
    now on a session without the second factor is not a session."""
    db.execute(
        update(AuthSession)
        .where(
            AuthSession.user_id == session.user_id,
            AuthSession.id != session.id,
            AuthSession.aal != AAL2,
            AuthSession.revoked_at.is_(None),
        )
        .values(revoked_at=now, revoked_reason="mfa_verified")
    )


def _forget_other_unverified(db: Session, factor: MfaFactor) -> None:
    db.execute(
        delete(MfaFactor).where(
            MfaFactor.user_id == factor.user_id,
            MfaFactor.factor_type == factor.factor_type,
            MfaFactor.status == MfaFactorStatus.UNVERIFIED,
            MfaFactor.id != factor.id,
        )
    )


def _rotate_tokens(db: Session, session: AuthSession, now) -> SessionTokens:
    """A new pair for the same session; the refresh tokens issued before the second
    factor are spent, so a copy of them can never obtain aal2 tokens."""
    latest = db.exec(
        select(RefreshToken.id)
        .where(RefreshToken.session_id == session.id, RefreshToken.used_at.is_(None))
        .order_by(RefreshToken.created_at.desc())
    ).first()
    db.execute(
        update(RefreshToken)
        .where(RefreshToken.session_id == session.id, RefreshToken.used_at.is_(None))
        .values(used_at=now)
    )
    user = db.get(User, session.user_id)
    return service.issue_tokens(db, user, session, parent_id=latest, now=now)


# ---------------------------------------------------------------------------
# Removal
# ---------------------------------------------------------------------------
def unenroll(db: Session, user: CurrentUser, factor_id: str | uuid.UUID) -> uuid.UUID:
    """Remove a factor. A verified one only from an aal2 session (GoTrue answers 422
    ``insufficient_aal``); sessions that proved it drop back to aal1."""
    factor = _own_factor(db, user, factor_id)
    if factor.status == MfaFactorStatus.VERIFIED and _open_session(db, user).aal != AAL2:
        raise Unprocessable(messages.MFA_AAL2_TO_UNENROLL, code="insufficient_aal")
    _lower_sessions_proved_by(db, factor)
    db.execute(delete(MfaFactor).where(MfaFactor.id == factor.id))
    return factor.id


def _lower_sessions_proved_by(db: Session, factor: MfaFactor) -> None:
    sessions = db.exec(select(AuthSession).where(AuthSession.factor_id == factor.id))
    for session in sessions:
        session.aal = "aal1"
        session.factor_id = None
        session.amr = [e for e in session.amr or [] if e.get("method") != factor.factor_type]
        db.add(session)
    db.flush()


# ---------------------------------------------------------------------------
# Shared look-ups
# ---------------------------------------------------------------------------
def _own_factor(db: Session, user: CurrentUser, factor_id) -> MfaFactor:
    """The member's factor; someone else's is as unknown as one that does not exist."""
    wanted = _as_uuid(factor_id)
    factor = db.get(MfaFactor, wanted) if wanted else None
    if factor is None or factor.user_id != user.id:
        raise NotFound(messages.MFA_FACTOR_NOT_FOUND, code="mfa_factor_not_found")
    return factor


def _open_session(db: Session, user: CurrentUser) -> AuthSession:
    """The caller's session as it is now (its aal may have changed since the token)."""
    session = db.get(AuthSession, user.session_id)
    if session is None or session.revoked_at is not None:
        raise NotAuthenticated(messages.SESSION_EXPIRED, code="session_not_found")
    return session


def _as_uuid(raw) -> uuid.UUID | None:
    try:
        return raw if isinstance(raw, uuid.UUID) else uuid.UUID(str(raw))
    except ValueError:
        return None


def _address(ip_address: str | None) -> str | None:
    return (ip_address or "")[:64] or None


# ---------------------------------------------------------------------------
# Counting wrong codes
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class _Budget:
    """One count of wrong codes: its limit, the refusal's text, and what it counts."""

    limit: str
    message: str
    purpose: str
    keys: tuple[str, ...]
    enforced: bool = True


def _budgets(
    challenge_id: uuid.UUID, factor_id: uuid.UUID, address: str, known_browser: str | None
) -> list[_Budget]:
    """A wrong code counts against its challenge, its factor from this address, and its
    factor from anywhere. From a browser known to the member, against its factor from that
    browser instead of from this address; the factor's own count goes on but does not
    refuse it."""
    challenge, factor = str(challenge_id), str(factor_id)
    purpose, where = (
        ("mfa-factor-address", address)
        if known_browser is None
        else ("mfa-factor-browser", tokens.hash_secret(known_browser))
    )
    per_address = [
        _Budget(tier, messages.RATE_LIMIT_EXCEEDED, purpose, (factor, where))
        for tier in WRONG_CODES_PER_FACTOR_AND_ADDRESS
    ]
    return [
        _Budget(
            WRONG_CODES_PER_CHALLENGE,
            messages.MFA_CHALLENGE_TOO_MANY_ATTEMPTS,
            "mfa-challenge",
            (challenge,),
        ),
        *per_address,
        _Budget(
            WRONG_CODES_PER_FACTOR,
            messages.RATE_LIMIT_EXCEEDED,
            "mfa-factor",
            (factor,),
            enforced=known_browser is None,
        ),
    ]


def _refuse_while_locked(budgets: list[_Budget]) -> None:
    """Counts live with the app's other rate limits (in Redis when it has it, so every
    worker sees them); a refusal says when to try again (``Retry-After``)."""
    limiter = get_rate_limiter()
    for budget in (budget for budget in budgets if budget.enforced):
        limiter.enforce(
            budget.limit, budget.purpose, *budget.keys, count=False, message=budget.message
        )


def _count_wrong_code(budgets: list[_Budget]) -> None:
    limiter = get_rate_limiter()
    for budget in budgets:
        limiter.hit(budget.limit, budget.purpose, *budget.keys)
