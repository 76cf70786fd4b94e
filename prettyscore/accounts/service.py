"""Accounts: sign-up, sign-in, sessions with rotating refresh tokens, recovery and roles.

Every function takes a database session and plain inputs and either returns a result or
raises a ``DomainError`` whose message the user sees. Pages and the REST API both call
these, so a rule (password length, reuse detection) is written once.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import delete, exists, update
from sqlalchemy import select as sa_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from prettyscore.accounts import passwords, tokens
from prettyscore.accounts.models import (
    AuthSession,
    BrowserSession,
    KnownBrowser,
    MfaFactor,
    MfaFactorStatus,
    PasswordRecoveryToken,
    Profile,
    RefreshToken,
    User,
    UserRole,
)
from prettyscore.core import messages
from prettyscore.core.errors import Conflict, NotAuthenticated, NotFound, ValidationFailed
from prettyscore.core.mail import Mailer, compose
from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import get_settings

log = logging.getLogger(__name__)

MIN_PASSWORD_LENGTH = 6
ADMIN_ROLE = "admin"
SIGN_OUT_SCOPES = ("local", "global", "others")
# Two tabs of one browser may refresh with the same token at the same moment; a reuse
# this soon after rotation is that race, not a theft (GoTrue allows the same interval).
REFRESH_REUSE_GRACE = timedelta(seconds=10)
# The access token is renewed when it has less than this left.
REFRESH_MARGIN_SECONDS = 60


_INSERTS = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}


@dataclass(frozen=True)
class SessionTokens:
    """The documents' Session entity: what an API client keeps. A browser keeps only the
    access token; its refresh token is bound to the browser's key (``bind_browser``)."""

    access_token: str
    refresh_token: str
    expires_in: int
    expires_at: int
    user_id: uuid.UUID
    email: str
    token_type: str = "bearer"


@dataclass(frozen=True)
class CurrentUser:
    """The user behind a valid, unrevoked session."""

    id: uuid.UUID
    email: str
    session_id: uuid.UUID
    aal: str
    access_expires_at: int


# ---------------------------------------------------------------------------
# Input rules
# ---------------------------------------------------------------------------
def normalize_email(raw: str | None) -> str:
    """The canonical, lower-cased form of an email, or the message saying what is wrong."""
    candidate = (raw or "").strip()
    if not candidate:
        raise ValidationFailed(messages.EMAIL_REQUIRED, code="email_required")
    try:
        result = validate_email(candidate, check_deliverability=False)
    except EmailNotValidError as error:
        raise ValidationFailed(messages.INVALID_EMAIL, code="email_address_invalid") from error
    return result.normalized.lower()


def check_password(password: str | None) -> str:
    """The password if it meets the rules (present, 6 to 1,000 characters)."""
    if not password:
        raise ValidationFailed(messages.PASSWORD_REQUIRED, code="password_required")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValidationFailed(messages.PASSWORD_TOO_SHORT, code="weak_password")
    if len(password) > passwords.MAX_PASSWORD_LENGTH:
        raise ValidationFailed(messages.PASSWORD_TOO_LONG, code="weak_password")
    return password


# ---------------------------------------------------------------------------
# Sign-up and sign-in
# ---------------------------------------------------------------------------
def insert_member(db: Session, user: User) -> None:
    """Add ``user`` with their profile, in a savepoint: IntegrityError when the email is
    taken (the transaction goes on without them)."""
    with db.begin_nested():
        db.add(user)
        db.flush()
        db.add(Profile(id=user.id))
        db.flush()


#: What other areas do for a new member, in the sign-up's transaction: a listener gets
#: the session, the member's id and the sign-up request's Cookie header (None when it
#: came without one). The partner programme credits the referring partner this way.
SignUpListener = Callable[[Session, uuid.UUID, str | None], None]
_sign_up_listeners: list[SignUpListener] = []


def after_sign_up(listener: SignUpListener) -> SignUpListener:
    """Call ``listener`` after every sign-up (usable as a decorator), as billing's
    ``on_payment`` listeners are called after every payment."""
    if listener not in _sign_up_listeners:
        _sign_up_listeners.append(listener)
    return listener


def signed_up(db: Session, user_id: uuid.UUID, cookies: str | None) -> None:
    """Tell every ``after_sign_up`` listener that ``user_id`` has just joined."""
    for listener in _sign_up_listeners:
        listener(db, user_id, cookies)


def sign_up(
    db: Session,
    email: str | None,
    password: str | None,
    *,
    user_agent=None,
    user_metadata: dict | None = None,
    cookies: str | None = None,
):
    """Create a member with a profile and sign them in. Emails are unique regardless of case.

    Sign-ups are confirmed at once (no confirmation mail), as the API's settings say.
    ``cookies`` (the request's Cookie header) goes to the ``after_sign_up`` listeners.
    """
    address = normalize_email(email)
    secret = check_password(password)
    if db.exec(select(User.id).where(User.email == address)).first() is not None:
        raise Conflict(messages.USER_ALREADY_REGISTERED, code="user_already_exists")
    now = utcnow()
    user = User(
        email=address,
        password_hash=passwords.hash_password(secret),
        user_metadata=dict(user_metadata or {}),
        email_confirmed_at=now,
        last_sign_in_at=now,
    )
    try:
        insert_member(db, user)
    except IntegrityError as error:  # the same email signed up a moment ago
        raise Conflict(messages.USER_ALREADY_REGISTERED, code="user_already_exists") from error
    tokens = _start_session(db, user, now=now, user_agent=user_agent)
    signed_up(db, user.id, cookies)
    return tokens


def sign_in(db: Session, email: str | None, password: str | None, *, user_agent=None):
    """A new session for the right email and password; one answer for every wrong pair."""
    if not (email or "").strip():
        raise ValidationFailed(messages.EMAIL_REQUIRED, code="email_required")
    if not password:
        raise ValidationFailed(messages.PASSWORD_REQUIRED, code="password_required")
    address = (email or "").strip().lower()
    user = db.exec(select(User).where(User.email == address)).first()
    if not passwords.verify_password(password, user.password_hash if user else None):
        raise NotAuthenticated(messages.INVALID_CREDENTIALS, code="invalid_credentials")
    now = utcnow()
    user.last_sign_in_at = now
    db.add(user)
    return _start_session(db, user, now=now, user_agent=user_agent)


def _start_session(
    db: Session, user: User, *, now: datetime, user_agent=None, method: str = "password"
) -> SessionTokens:
    """Open a session proved by ``method`` (password, otp, magiclink, recovery, ...)."""
    session = AuthSession(
        user_id=user.id,
        user_agent=(user_agent or "")[:512] or None,
        amr=[{"method": method, "timestamp": int(now.timestamp())}],
    )
    db.add(session)
    db.flush()
    return issue_tokens(db, user, session, parent_id=None, now=now)


def issue_tokens(db, user: User, session: AuthSession, *, parent_id, now) -> SessionTokens:
    """A new refresh token (child of ``parent_id``) and an access token for the session's
    current assurance level and methods."""
    refresh_secret = tokens.new_secret()
    ttl = timedelta(seconds=get_settings().refresh_token_ttl_seconds)
    db.add(
        RefreshToken(
            session_id=session.id,
            token_hash=tokens.hash_secret(refresh_secret),
            parent_id=parent_id,
            expires_at=now + ttl,
        )
    )
    db.flush()
    access, expires_at = tokens.issue_access_token(
        db,
        user_id=user.id,
        session_id=session.id,
        email=user.email,
        aal=session.aal,
        amr=session.amr or [{"method": "password", "timestamp": int(now.timestamp())}],
        issued_at=now,
    )
    return SessionTokens(
        access_token=access,
        refresh_token=refresh_secret,
        expires_in=expires_at - int(now.timestamp()),
        expires_at=expires_at,
        user_id=user.id,
        email=user.email,
    )


# ---------------------------------------------------------------------------
# Sessions
# ---------------------------------------------------------------------------
def refresh_session(db: Session, refresh_token: str | None) -> SessionTokens:
    """Rotate a refresh token: the old one is spent, a new pair is issued.

    A token spent earlier than the grace interval is a replay: the whole session is
    revoked, so whoever holds any of its tokens is signed out.
    """
    return _rotate(db, _find_refresh_token(db, refresh_token))


def _rotate(db: Session, record: RefreshToken) -> SessionTokens:
    now = utcnow()
    session = db.get(AuthSession, record.session_id)
    if session is None or session.revoked_at is not None or record.expires_at <= now:
        raise NotAuthenticated(messages.SESSION_EXPIRED, code="refresh_token_not_found")
    if record.used_at is not None and now - record.used_at > REFRESH_REUSE_GRACE:
        _revoke(db, [session.id], reason="token_reuse", now=now)
        db.commit()
        log.warning("Refresh token reuse: session %s revoked", session.id)
        raise NotAuthenticated(messages.SESSION_EXPIRED, code="refresh_token_already_used")
    if record.used_at is None and not _mark_spent(db, record.id, now):
        # Spent by a concurrent request an instant ago: the grace rule covers it.
        pass
    user = db.get(User, session.user_id)
    session.refreshed_at = now
    db.add(session)
    return issue_tokens(db, user, session, parent_id=record.id, now=now)


def _find_refresh_token(db: Session, refresh_token: str | None) -> RefreshToken:
    if not refresh_token:
        raise NotAuthenticated(messages.SESSION_EXPIRED, code="refresh_token_not_found")
    record = db.exec(
        select(RefreshToken).where(RefreshToken.token_hash == tokens.hash_secret(refresh_token))
    ).first()
    if record is None:
        raise NotAuthenticated(messages.SESSION_EXPIRED, code="refresh_token_not_found")
    return record


def _mark_spent(db: Session, token_id: uuid.UUID, now: datetime) -> bool:
    """Spend a token in one conditional update, so two requests cannot both spend it."""
    result = db.execute(
        update(RefreshToken)
        .where(RefreshToken.id == token_id, RefreshToken.used_at.is_(None))
        .values(used_at=now)
    )
    return result.rowcount == 1


def resolve_user(db: Session, access_token: str | None) -> CurrentUser | None:
    """The user of a valid access token whose session is still open; None otherwise."""
    claims = tokens.read_access_token(db, access_token or "")
    if claims is None:
        return None
    session = db.get(AuthSession, claims.session_id)
    if session is None or session.revoked_at is not None or session.user_id != claims.user_id:
        return None
    user = db.get(User, claims.user_id)
    if user is None:
        return None
    return CurrentUser(
        id=user.id,
        email=user.email,
        session_id=session.id,
        aal=session.aal,
        access_expires_at=claims.expires_at,
    )


def needs_refresh(user: CurrentUser, *, now: datetime | None = None) -> bool:
    """Whether the access token is close enough to expiry to renew it now."""
    moment = int((now or utcnow()).timestamp())
    return user.access_expires_at - moment <= REFRESH_MARGIN_SECONDS


def sign_out(db: Session, access_token: str | None, scope: str = "local") -> None:
    """End this session (local), every session of the user (global), or all but this one."""
    if scope not in SIGN_OUT_SCOPES:
        raise ValidationFailed(f"Scope must be one of {', '.join(SIGN_OUT_SCOPES)}")
    claims = tokens.read_access_token(db, access_token or "", verify_expiry=False)
    if claims is None:
        return
    query = select(AuthSession.id).where(
        AuthSession.user_id == claims.user_id, AuthSession.revoked_at.is_(None)
    )
    if scope == "local":
        query = query.where(AuthSession.id == claims.session_id)
    elif scope == "others":
        query = query.where(AuthSession.id != claims.session_id)
    _revoke(db, list(db.exec(query)), reason=f"sign_out_{scope}", now=utcnow())


def _revoke(db: Session, session_ids: list[uuid.UUID], *, reason: str, now: datetime) -> None:
    """End the sessions; the browsers signed in to them are no longer bound to them."""
    if not session_ids:
        return
    db.execute(
        update(AuthSession)
        .where(AuthSession.id.in_(session_ids), AuthSession.revoked_at.is_(None))
        .values(revoked_at=now, revoked_reason=reason)
    )
    of_sessions = sa_select(RefreshToken.id).where(RefreshToken.session_id.in_(session_ids))
    db.execute(delete(BrowserSession).where(BrowserSession.refresh_token_id.in_(of_sessions)))


# ---------------------------------------------------------------------------
# Browsers: the refresh token stays on the server, bound to the browser's key
# ---------------------------------------------------------------------------
# A page's scripts can read the cookies the app itself writes, so a browser does not keep
# a refresh token: the server keeps which one is current for each browser, under the hash
# of the browser's HttpOnly key (web.browser_key), and renews the browser's access token
# when its event socket presents that key. Tabs of one browser share the key, so they
# share the session, and a restarted server finds it in the database.


def bind_browser(db: Session, browser_key: str, refresh_token: str) -> RefreshToken:
    """From now on the browser with ``browser_key`` is signed in to the session of
    ``refresh_token`` (in place of any other), and renews it with its key alone; the
    refresh token's record."""
    if not browser_key:
        raise NotAuthenticated(messages.SESSION_EXPIRED, code="session_not_found")
    record = _find_refresh_token(db, refresh_token)
    now = utcnow()
    insert = _INSERTS[db.get_bind().dialect.name]
    db.execute(
        insert(BrowserSession)
        .values(
            key_hash=tokens.hash_secret(browser_key), refresh_token_id=record.id, updated_at=now
        )
        .on_conflict_do_update(
            index_elements=["key_hash"], set_={"refresh_token_id": record.id, "updated_at": now}
        )
    )
    return record


def sign_in_browser(db: Session, old_key: str, new_key: str, refresh_token: str) -> None:
    """Sign the browser in under the key that replaces its own at sign-in: the key it held
    before, which a page of another port or another browser may have learnt, opens
    nothing from now on. The browser is known to the member from now on (``KnownBrowser``),
    and stays known to the members it knew under its old key."""
    _unbind(db, old_key)
    record = bind_browser(db, new_key, refresh_token)
    replace_browser_key(db, old_key, new_key)
    session = db.get(AuthSession, record.session_id)
    if not lacks_second_factor(db, session.user_id, session.aal):
        _remember_browser(db, new_key, session.user_id)


# A browser that has signed in to an account is known to it, under every key that
# replaces the one it signed in with: a correct authenticator code from it passes the
# lock-out that strangers with the password can bring on the factor (``mfa``).


def replace_browser_key(db: Session, old_key: str, new_key: str) -> None:
    """The browser that held ``old_key`` holds ``new_key`` now (a sign-in or a sign-out
    replaced it): it stays known to the members it was known to."""
    if old_key and new_key and old_key != new_key:
        db.execute(
            update(KnownBrowser)
            .where(KnownBrowser.key_hash == tokens.hash_secret(old_key))
            .values(key_hash=tokens.hash_secret(new_key))
        )


def knows_browser(db: Session, user_id: uuid.UUID, browser_key: str | None) -> bool:
    """Whether the browser holding ``browser_key`` has signed in to this member's account."""
    if not browser_key:
        return False
    query = select(KnownBrowser.key_hash).where(
        KnownBrowser.key_hash == tokens.hash_secret(browser_key), KnownBrowser.user_id == user_id
    )
    return db.exec(query).first() is not None


def _remember_browser(db: Session, browser_key: str, user_id: uuid.UUID) -> None:
    insert = _INSERTS[db.get_bind().dialect.name]
    db.execute(
        insert(KnownBrowser)
        .values(key_hash=tokens.hash_secret(browser_key), user_id=user_id, created_at=utcnow())
        .on_conflict_do_nothing(index_elements=["key_hash", "user_id"])
    )


def renew_browser_session(db: Session, browser_key: str) -> SessionTokens | None:
    """New tokens for the session the browser is signed in to (its refresh token
    rotated on the server); None, and the browser unbound, when it has no open session."""
    binding = _browser_binding(db, browser_key)
    if binding is None:
        return None
    record = db.get(RefreshToken, binding.refresh_token_id)
    try:
        if record is None:
            raise NotAuthenticated(messages.SESSION_EXPIRED, code="refresh_token_not_found")
        fresh = _rotate(db, record)
    except NotAuthenticated:
        _unbind(db, browser_key)
        return None
    bind_browser(db, browser_key, fresh.refresh_token)
    return fresh


def adopt_browser_refresh_token(
    db: Session, browser_key: str, refresh_token: str
) -> SessionTokens | None:
    """Move a session whose refresh token the browser still holds in a cookie (as earlier
    versions kept it) to the server: the token is spent, its successor bound to the
    browser. None when the token no longer renews anything."""
    try:
        fresh = refresh_session(db, refresh_token)
    except NotAuthenticated:
        return None
    bind_browser(db, browser_key, fresh.refresh_token)
    return fresh


def sign_out_browser(
    db: Session, browser_key: str, access_token: str | None, new_key: str = ""
) -> None:
    """Sign the browser out: end the session of its access token and the one it is bound
    to, and unbind it. With ``new_key`` (the key that replaces its own), it stays known to
    the members it signed in to (a second factor's lock-out lets their correct code
    through from it)."""
    sign_out(db, access_token, "local")
    binding = _browser_binding(db, browser_key)
    if binding is not None:
        record = db.get(RefreshToken, binding.refresh_token_id)
        if record is not None:
            _revoke(db, [record.session_id], reason="sign_out_local", now=utcnow())
        _unbind(db, browser_key)
    replace_browser_key(db, browser_key, new_key)


def browser_member(db: Session, browser_key: str | None) -> uuid.UUID | None:
    """The member the browser is signed in to, without renewing anything (a request for
    an image cannot take new tokens): the bound refresh token must be unexpired, unspent
    (or spent within the grace of a rotation racing this request), of an open session
    that lacks no second factor."""
    binding = _browser_binding(db, browser_key)
    if binding is None:
        return None
    record = db.get(RefreshToken, binding.refresh_token_id)
    now = utcnow()
    if record is None or record.expires_at <= now:
        return None
    if record.used_at is not None and now - record.used_at > REFRESH_REUSE_GRACE:
        return None
    session = db.get(AuthSession, record.session_id)
    if session is None or session.revoked_at is not None:
        return None
    if lacks_second_factor(db, session.user_id, session.aal):
        return None
    return session.user_id


def _browser_binding(db: Session, browser_key: str | None) -> BrowserSession | None:
    return db.get(BrowserSession, tokens.hash_secret(browser_key)) if browser_key else None


def _unbind(db: Session, browser_key: str) -> None:
    db.execute(
        delete(BrowserSession).where(BrowserSession.key_hash == tokens.hash_secret(browser_key))
    )


# ---------------------------------------------------------------------------
# Password recovery
# ---------------------------------------------------------------------------
def request_password_recovery(db: Session, email: str | None, mailer: Mailer) -> None:
    """Mail a single-use reset link valid for an hour; silent when the email is unknown."""
    address = normalize_email(email)
    user = db.exec(select(User).where(User.email == address)).first()
    if user is None:
        return
    link = recovery_page_link(db, user)
    mailer.send(compose(user.email, messages.RECOVERY_MAIL_SUBJECT, recovery_mail_body(link)))


def recovery_page_link(db: Session, user: User) -> str:
    """A new single-use link to the /auth/reset page, valid for an hour."""
    settings = get_settings()
    secret, now = tokens.new_secret(), utcnow()
    db.add(
        PasswordRecoveryToken(
            user_id=user.id,
            token_hash=tokens.hash_secret(secret),
            created_at=now,
            expires_at=now + timedelta(seconds=settings.recovery_link_ttl_seconds),
        )
    )
    db.flush()
    return f"{settings.public_url}/auth/reset?token={secret}"


def recovery_mail_body(link: str, code: str | None = None) -> str:
    """The recovery mail: the link, and the 6-digit code when the API asked for one."""
    code_text = f"Or enter this code in the app. Your code: {code}\n\n" if code else ""
    return (
        "Someone asked to reset the password of your PrettyScore account.\n\n"
        f"Choose a new password here (the link works once, for one hour):\n{link}\n\n"
        f"{code_text}"
        "If it wasn't you, ignore this message; your password stays as it is.\n"
    )


def reset_password(db: Session, token: str | None, new_password: str | None, *, user_agent=None):
    """Spend a recovery link: set the password, end every old session, sign in afresh."""
    secret = check_password(new_password)
    now = utcnow()
    record = db.exec(
        select(PasswordRecoveryToken).where(
            PasswordRecoveryToken.token_hash == tokens.hash_secret(token or "")
        )
    ).first()
    if record is None or record.used_at is not None or record.expires_at <= now:
        raise ValidationFailed(messages.RECOVERY_LINK_INVALID, code="otp_expired")
    spent = db.execute(
        update(PasswordRecoveryToken)
        .where(PasswordRecoveryToken.id == record.id, PasswordRecoveryToken.used_at.is_(None))
        .values(used_at=now)
    )
    if spent.rowcount != 1:
        raise ValidationFailed(messages.RECOVERY_LINK_INVALID, code="otp_expired")
    user = db.get(User, record.user_id)
    user.password_hash = passwords.hash_password(secret)
    user.updated_at = now
    db.add(user)
    open_sessions = db.exec(
        select(AuthSession.id).where(
            AuthSession.user_id == user.id, AuthSession.revoked_at.is_(None)
        )
    )
    _revoke(db, list(open_sessions), reason="password_reset", now=now)
    return _start_session(db, user, now=now, user_agent=user_agent, method="recovery")


def has_verified_factor(db: Session, user_id: uuid.UUID) -> bool:
    """Whether the user has a verified second factor, so a full session needs aal2."""
    query = select(MfaFactor.id).where(
        MfaFactor.user_id == user_id, MfaFactor.status == MfaFactorStatus.VERIFIED
    )
    return db.exec(query).first() is not None


def lacks_second_factor(db: Session, user_id: uuid.UUID, aal: str) -> bool:
    """Whether a session at ``aal`` is only half signed in: the member has an
    authenticator and this session has not proved it. The pages, the API and the photo
    route all treat such a session as signed out, or the password alone would open them."""
    return aal != "aal2" and has_verified_factor(db, user_id)


def resolve_member(db: Session, access_token: str | None) -> CurrentUser | None:
    """The user of a valid access token whose session is fully signed in; None otherwise."""
    return resolve_member_with_role(db, access_token)[0]


def resolve_member_with_role(
    db: Session, access_token: str | None, role: str = ADMIN_ROLE
) -> tuple[CurrentUser | None, bool]:
    """``resolve_member`` and whether that member holds ``role``, in one query.

    Pages resolve the member on every load and every protected action, so the checks
    (session open, user, second factor, role) are one round trip instead of four: the
    same rules as resolve_user + lacks_second_factor + has_role.
    """
    claims = tokens.read_access_token(db, access_token or "")
    if claims is None:
        return None, False
    verified_factor = exists().where(
        MfaFactor.user_id == AuthSession.user_id, MfaFactor.status == MfaFactorStatus.VERIFIED
    )
    holds_role = exists().where(UserRole.user_id == AuthSession.user_id, UserRole.role == role)
    query = (
        sa_select(AuthSession.aal, User.email, verified_factor, holds_role)
        .join(User, User.id == AuthSession.user_id)
        .where(
            AuthSession.id == claims.session_id,
            AuthSession.user_id == claims.user_id,
            AuthSession.revoked_at.is_(None),
        )
    )
    found = db.execute(query).first()
    if found is None:
        return None, False
    aal, email, has_factor, has_the_role = found
    if aal != "aal2" and has_factor:
        return None, False
    user = CurrentUser(
        id=claims.user_id,
        email=email,
        session_id=claims.session_id,
        aal=aal,
        access_expires_at=claims.expires_at,
    )
    return user, bool(has_the_role)


# ---------------------------------------------------------------------------
# Roles
# ---------------------------------------------------------------------------
def has_role(db: Session, user_id: uuid.UUID, role: str = ADMIN_ROLE) -> bool:
    """Whether the user holds ``role`` (the documents' user_roles check)."""
    query = select(UserRole.id).where(UserRole.user_id == user_id, UserRole.role == role)
    return db.exec(query).first() is not None


def grant_role(db: Session, email: str, role: str = ADMIN_ROLE) -> bool:
    """Give ``role`` to the member with ``email``; False if they already had it."""
    user = _user_by_email(db, email)
    if has_role(db, user.id, role):
        return False
    db.add(UserRole(user_id=user.id, role=role))
    db.flush()
    return True


def revoke_role(db: Session, email: str, role: str = ADMIN_ROLE) -> bool:
    """Take ``role`` from the member with ``email``; False if they did not have it."""
    user = _user_by_email(db, email)
    row = db.exec(
        select(UserRole).where(UserRole.user_id == user.id, UserRole.role == role)
    ).first()
    if row is None:
        return False
    db.delete(row)
    db.flush()
    return True


def _user_by_email(db: Session, email: str) -> User:
    address = normalize_email(email)
    user = db.exec(select(User).where(User.email == address)).first()
    if user is None:
        raise NotFound(f"No member with the email {address}")
    return user
