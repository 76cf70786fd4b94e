"""Sign-in by mail: one-time codes and links, PKCE flows, email change, reauthentication.

Every mail carries a 6-digit code (typed into the app) and, for sign-in, recovery and
email change, a link (opened in the browser). Both are stored as SHA-256 hashes in
``auth_one_time_tokens``, spent once, within ``OTP_TTL_SECONDS``; a new mail of the same
kind voids the previous one, and spending the code voids its link (and back).

A code's hash includes the address it was mailed to, so a code is looked up by
(address, code) without revealing whether the address has an account. A link's secret is
256 random bits; a link that starts a PKCE flow begins with ``pkce_``, and opening it
yields an auth code that only the holder of the flow's code verifier can exchange.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode, urlsplit

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from prettyscore.accounts import passwords, service, tokens
from prettyscore.accounts.models import (
    AuthSession,
    FlowState,
    OneTimeToken,
    User,
)
from prettyscore.accounts.service import CurrentUser, SessionTokens
from prettyscore.core import messages, routes
from prettyscore.core.errors import DomainError, NotFound, ValidationFailed
from prettyscore.core.mail import Mailer, compose
from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import get_settings
from prettyscore.core.text import clean_name

CODE_DIGITS = 6
PKCE_PREFIX = "pkce_"
PKCE_METHODS = ("s256", "plain")
PKCE_CHALLENGE_LENGTH = range(43, 129)
# GoTrue's "secure password change", for the email too, and always: the access token
# alone never changes credentials (a page's scripts can read it, however fresh it is).
# The request proves the member again with the current password, or the code
# /reauthenticate mailed (a member who signs in by mail knows no password). The one
# exception is the password of a session that a recovery mail opened this recently: its
# member has just proved the mailbox, and has forgotten the password.
FRESH_RECOVERY = timedelta(minutes=5)
MAX_METADATA_BYTES = 16 * 1024
# The user metadata that holds the member's name (Supabase clients' conventions).
NAME_METADATA_KEYS = ("full_name", "name", "display_name")

# The mailed tokens each /verify type accepts ("email" is GoTrue's name for either).
ACCEPTED_TOKEN_TYPES = {
    "signup": ("signup",),
    "invite": ("invite",),
    "magiclink": ("magiclink",),
    "email": ("signup", "magiclink"),
    "recovery": ("recovery",),
    "email_change": ("email_change",),
}
# How the session's amr records the proof: recovery and email change keep their name,
# the other mails are a typed code ("otp") or an opened link ("magiclink").
_NAMED_METHODS = ("recovery", "email_change", "invite")


class WrongCurrentPassword(ValidationFailed):
    """The current password sent to change the email or password is not the member's."""

    status = 400


class OtpInvalid(DomainError):
    """A code or link that is wrong, spent or expired (one answer for all three)."""

    status = 403
    code = "otp_expired"


@dataclass(frozen=True)
class Pkce:
    """The client's PKCE challenge: S256 (the hash of its verifier) or plain."""

    challenge: str
    method: str


@dataclass(frozen=True)
class LinkOutcome:
    """What opening a mailed link gives: a session, or an auth code for a PKCE flow."""

    session: SessionTokens | None = None
    auth_code: str | None = None


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------
def parse_pkce(code_challenge: str | None, code_challenge_method: str | None) -> Pkce | None:
    """The PKCE challenge of a request, None when it has none, or a 400 when half-given."""
    challenge, method = (code_challenge or "").strip(), (code_challenge_method or "").strip()
    if not challenge and not method:
        return None
    if not challenge or not method:
        raise _bad_request(messages.PKCE_NEEDS_BOTH_PARAMS)
    if method.lower() not in PKCE_METHODS:
        raise _bad_request(messages.PKCE_UNSUPPORTED_METHOD)
    if len(challenge) not in PKCE_CHALLENGE_LENGTH:
        raise _bad_request(messages.PKCE_CHALLENGE_LENGTH)
    return Pkce(challenge=challenge, method=method.lower())


def check_metadata(data) -> dict:
    """User metadata as given (a JSON object of bounded size), its names cleaned, or a 400."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _bad_request(messages.USER_METADATA_NOT_OBJECT)
    if len(json.dumps(data, default=str)) > MAX_METADATA_BYTES:
        raise _bad_request(messages.USER_METADATA_TOO_LARGE)
    return {key: _cleaned_if_name(key, value) for key, value in data.items()}


def _cleaned_if_name(key: str, value):
    """The member's name as others see it (the chat shows it) keeps no direction
    override and no control character; other metadata is the client's own."""
    return clean_name(value) if key in NAME_METADATA_KEYS and isinstance(value, str) else value


def safe_redirect(redirect_to: str | None) -> str:
    """Where a mailed link may send the browser: this site only, else the dashboard.

    An absolute URL must have the public URL's scheme and host; a path must be local
    ("/x", not "//host"). Anything else would make our links an open redirect.
    """
    public_url = get_settings().public_url
    default = public_url + routes.DASHBOARD
    raw = (redirect_to or "").strip()
    if not raw or "\\" in raw:
        return default
    if raw.startswith("/") and not raw.startswith("//"):
        return public_url + raw
    target, site = urlsplit(raw), urlsplit(public_url)
    if (target.scheme, target.netloc) == (site.scheme, site.netloc):
        return raw
    return default


def _bad_request(message: str, code: str = "validation_failed") -> ValidationFailed:
    return ValidationFailed(message, code=code, status=400)


def _user_by_email(db: Session, address: str) -> User | None:
    return db.exec(select(User).where(User.email == address)).first()


# ---------------------------------------------------------------------------
# Issuing codes and links
# ---------------------------------------------------------------------------
def _code_hash(address: str, code: str) -> str:
    return tokens.hash_secret(f"code:{address}:{code}")


def _void(db: Session, user_id: uuid.UUID, token_type: str, now: datetime) -> None:
    """Spend every outstanding token of one kind: only the newest mail works."""
    db.execute(
        update(OneTimeToken)
        .where(
            col(OneTimeToken.user_id) == user_id,
            col(OneTimeToken.token_type) == token_type,
            col(OneTimeToken.used_at).is_(None),
        )
        .values(used_at=now)
    )


def _issue(
    db: Session,
    user: User,
    token_type: str,
    *,
    address: str,
    relates_to: str | None = None,
    redirect_to: str | None = None,
    pkce: Pkce | None = None,
    with_link: bool = True,
) -> tuple[str, str | None]:
    """A new code (and link) of ``token_type`` for ``user``, mailed to ``address``."""
    now = utcnow()
    expires_at = now + timedelta(seconds=get_settings().otp_ttl_seconds)
    _void(db, user.id, token_type, now)
    code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
    rows = [_token_row(user, token_type, _code_hash(address, code), relates_to, expires_at)]
    link = None
    if with_link:
        secret = (PKCE_PREFIX if pkce else "") + tokens.new_secret()
        rows.append(
            _token_row(user, token_type, tokens.hash_secret(secret), relates_to, expires_at)
        )
        link = _verify_link(secret, token_type, redirect_to)
        if pkce is not None:
            _start_flow(db, user, pkce, token_type, expires_at)
    db.add_all(rows)
    db.flush()
    return code, link


def _token_row(user, token_type, token_hash, relates_to, expires_at) -> OneTimeToken:
    return OneTimeToken(
        user_id=user.id,
        token_type=token_type,
        token_hash=token_hash,
        relates_to=relates_to,
        expires_at=expires_at,
    )


def _verify_link(secret: str, token_type: str, redirect_to: str | None) -> str:
    query = urlencode(
        {"token": secret, "type": token_type, "redirect_to": safe_redirect(redirect_to)}
    )
    return f"{get_settings().public_url}/auth/v1/verify?{query}"


def _start_flow(db: Session, user: User, pkce: Pkce, method: str, expires_at) -> None:
    """A PKCE flow waiting for its link: its auth code is made when the link is opened."""
    db.add(
        FlowState(
            user_id=user.id,
            auth_code_hash=tokens.hash_secret(tokens.new_secret()),  # unknown to anyone
            code_challenge=pkce.challenge,
            code_challenge_method=pkce.method,
            authentication_method=method,
            expires_at=expires_at,
        )
    )


def _mail_body(intro: str, code: str, link: str | None) -> str:
    minutes = get_settings().otp_ttl_seconds // 60
    link_text = f"Or open this link:\n{link}\n\n" if link else ""
    return (
        f"{intro}\n\nYour code: {code}\n\n{link_text}"
        f"The code works once, for {minutes} minutes.\n"
        "If it wasn't you, ignore this message.\n"
    )


# ---------------------------------------------------------------------------
# Requests that mail a code
# ---------------------------------------------------------------------------
def send_magic_link(
    db: Session,
    email: str | None,
    mailer: Mailer,
    *,
    create_user: bool = True,
    user_metadata: dict | None = None,
    redirect_to: str | None = None,
    pkce: Pkce | None = None,
) -> uuid.UUID | None:
    """Mail a sign-in code and link; creates the member when unknown and ``create_user``.

    Returns the id of a member created here (so the caller may credit a referral), else
    None. An unknown email with ``create_user`` False gets no mail and no account, and
    the same answer, after the same work, as a known one: GoTrue refuses it instead
    ("Signups not allowed for otp"), which tells anyone which emails have accounts.
    """
    address = service.normalize_email(email)
    user = _user_by_email(db, address)
    created = None
    if user is None and not create_user:
        passwords.hash_password(tokens.new_secret())
        return None
    if user is None:
        user = _create_passwordless_user(db, address, user_metadata)
        created = user.id
    else:
        # Creating a member hashes a password; do the same work for a known one, so the
        # answer's timing does not tell the two apart.
        passwords.hash_password(tokens.new_secret())
    code, link = _issue(db, user, "magiclink", address=address, redirect_to=redirect_to, pkce=pkce)
    intro = "Here is your code to sign in to PrettyScore."
    mailer.send(compose(address, messages.MAGIC_LINK_MAIL_SUBJECT, _mail_body(intro, code, link)))
    return created


def _create_passwordless_user(db: Session, address: str, user_metadata: dict | None) -> User:
    """A member who signs in by mail: their password is random, known to no one."""
    user = User(
        email=address,
        password_hash=passwords.hash_password(tokens.new_secret()),
        user_metadata=dict(user_metadata or {}),
    )
    try:
        service.insert_member(db, user)
    except IntegrityError:  # the same email arrived a moment ago
        existing = _user_by_email(db, address)
        if existing is None:
            raise
        return existing
    return user


def request_recovery(
    db: Session,
    email: str | None,
    mailer: Mailer,
    *,
    redirect_to: str | None = None,
    pkce: Pkce | None = None,
) -> None:
    """Mail a recovery code and link; silent when the email is unknown.

    The link opens the /auth/reset page, unless the client named where to return or
    started a PKCE flow: then it goes through /auth/v1/verify to that place.
    """
    address = service.normalize_email(email)
    user = _user_by_email(db, address)
    if user is None:
        return
    through_api = redirect_to is not None or pkce is not None
    code, link = _issue(
        db,
        user,
        "recovery",
        address=address,
        redirect_to=redirect_to,
        pkce=pkce,
        with_link=through_api,
    )
    link = link or service.recovery_page_link(db, user)
    body = service.recovery_mail_body(link, code)
    mailer.send(compose(address, messages.RECOVERY_MAIL_SUBJECT, body))


def resend(
    db: Session,
    resend_type: str,
    email: str | None,
    mailer: Mailer,
    *,
    redirect_to: str | None = None,
    pkce: Pkce | None = None,
) -> None:
    """Send a pending confirmation again; silent when there is nothing to resend.

    ``signup``: a member who has not yet confirmed their email (one created by /otp).
    ``email_change``: the pending change of the member with this (current) email.
    """
    address = service.normalize_email(email)
    user = _user_by_email(db, address)
    if user is None:
        return
    if resend_type == "signup" and user.email_confirmed_at is None:
        code, link = _issue(db, user, "signup", address=address, redirect_to=redirect_to, pkce=pkce)
        intro = "Confirm your email to finish signing up to PrettyScore."
        mailer.send(compose(address, messages.SIGNUP_MAIL_SUBJECT, _mail_body(intro, code, link)))
    elif resend_type == "email_change":
        pending = pending_email_change(db, user.id)
        if pending is not None:
            _mail_email_change(db, user, pending[0], mailer, redirect_to=redirect_to, pkce=pkce)


def request_reauthentication(db: Session, user_id: uuid.UUID, mailer: Mailer) -> None:
    """Mail a nonce that lets this member set a new password from an older session."""
    user = db.get(User, user_id)
    code, _ = _issue(db, user, "reauthentication", address=user.email, with_link=False)
    intro = "Enter this code to confirm it is you before changing your password."
    body = _mail_body(intro, code, None)
    mailer.send(compose(user.email, messages.REAUTHENTICATION_MAIL_SUBJECT, body))


def _mail_email_change(db, user: User, new_address: str, mailer: Mailer, **link_options) -> None:
    code, link = _issue(
        db, user, "email_change", address=new_address, relates_to=new_address, **link_options
    )
    intro = f"Confirm {new_address} as the new email of your PrettyScore account."
    body = _mail_body(intro, code, link)
    mailer.send(compose(new_address, messages.EMAIL_CHANGE_MAIL_SUBJECT, body))


def pending_email_change(db: Session, user_id: uuid.UUID) -> tuple[str, datetime] | None:
    """The new address awaiting confirmation and when it was mailed, if any."""
    row = db.exec(
        select(OneTimeToken)
        .where(
            OneTimeToken.user_id == user_id,
            OneTimeToken.token_type == "email_change",
            col(OneTimeToken.used_at).is_(None),
            OneTimeToken.expires_at > utcnow(),
        )
        .order_by(col(OneTimeToken.created_at).desc())
    ).first()
    return (row.relates_to, row.created_at) if row is not None else None


# ---------------------------------------------------------------------------
# Verifying codes and links
# ---------------------------------------------------------------------------
def verify_code(
    db: Session, verify_type: str, email: str | None, code: str | None, *, user_agent=None
) -> SessionTokens:
    """Spend a mailed 6-digit code: a new session, or ``OtpInvalid``."""
    address = service.normalize_email(email)
    typed = "".join((code or "").split()).replace("-", "")
    record = None
    if typed:
        token_hash = _code_hash(address, typed)
        record = _find_unspent(db, token_hash, ACCEPTED_TOKEN_TYPES[verify_type])
    if record is None:
        raise OtpInvalid(messages.OTP_EXPIRED)
    user = _spend(db, record)
    return _sign_in(db, user, _method(record.token_type, "otp"), user_agent)


def verify_link(
    db: Session, verify_type: str, secret: str | None, *, user_agent=None, allow_pkce=True
) -> LinkOutcome:
    """Spend a mailed link: a session, or (PKCE link) an auth code for its flow."""
    record = None
    if secret:
        token_hash = tokens.hash_secret(secret)
        record = _find_unspent(db, token_hash, ACCEPTED_TOKEN_TYPES[verify_type])
    if record is None:
        raise OtpInvalid(messages.EMAIL_LINK_EXPIRED)
    if secret.startswith(PKCE_PREFIX):
        if not allow_pkce:
            raise _bad_request(messages.VERIFY_PKCE_LINK_BY_GET)
        user = _spend(db, record)
        return LinkOutcome(auth_code=_issue_auth_code(db, user, record.token_type))
    user = _spend(db, record)
    method = _method(record.token_type, "magiclink")
    return LinkOutcome(session=_sign_in(db, user, method, user_agent))


def void_codes_sent_to(db: Session, address: str) -> None:
    """Spend every outstanding code mailed to ``address`` (after too many wrong guesses)."""
    sent_to_address = col(OneTimeToken.relates_to) == address
    user = _user_by_email(db, address)
    if user is not None:
        sent_to_address = sent_to_address | (col(OneTimeToken.user_id) == user.id)
    db.execute(
        update(OneTimeToken)
        .where(col(OneTimeToken.used_at).is_(None), sent_to_address)
        .values(used_at=utcnow())
    )


def _find_unspent(db: Session, token_hash: str, token_types) -> OneTimeToken | None:
    return db.exec(
        select(OneTimeToken).where(
            OneTimeToken.token_hash == token_hash,
            col(OneTimeToken.token_type).in_(token_types),
            col(OneTimeToken.used_at).is_(None),
            OneTimeToken.expires_at > utcnow(),
        )
    ).first()


def _spend(db: Session, record: OneTimeToken) -> User:
    """Spend the token (once, even under concurrent requests) and apply what it proves."""
    now = utcnow()
    if not _spend_row(db, record.id, now):
        raise OtpInvalid(messages.OTP_EXPIRED)
    _void(db, record.user_id, record.token_type, now)  # its twin: the code or the link
    user = db.get(User, record.user_id)
    if record.token_type == "email_change":
        _apply_email_change(db, user, record.relates_to, now)
    elif user.email_confirmed_at is None:
        user.email_confirmed_at = now  # the member has just read a mail sent to it
    return user


def _spend_row(db: Session, token_id: uuid.UUID, now: datetime) -> bool:
    """Mark one token spent in a conditional update: of two concurrent uses, one wins."""
    spent = db.execute(
        update(OneTimeToken)
        .where(col(OneTimeToken.id) == token_id, col(OneTimeToken.used_at).is_(None))
        .values(used_at=now)
    )
    return spent.rowcount == 1


def _apply_email_change(db: Session, user: User, new_address: str, now: datetime) -> None:
    if _user_by_email(db, new_address) is not None:
        raise ValidationFailed(messages.EMAIL_EXISTS, code="email_exists")
    user.email, user.email_confirmed_at, user.updated_at = new_address, now, now
    try:
        with db.begin_nested():
            db.add(user)
            db.flush()
    except IntegrityError as error:  # taken by a sign-up an instant ago
        raise ValidationFailed(messages.EMAIL_EXISTS, code="email_exists") from error


def _method(token_type: str, medium: str) -> str:
    return token_type if token_type in _NAMED_METHODS else medium


def _sign_in(db: Session, user: User, method: str, user_agent) -> SessionTokens:
    now = utcnow()
    user.last_sign_in_at = now
    db.add(user)
    return service._start_session(db, user, now=now, user_agent=user_agent, method=method)


# ---------------------------------------------------------------------------
# PKCE
# ---------------------------------------------------------------------------
def _issue_auth_code(db: Session, user: User, method: str) -> str:
    """The auth code of the member's newest waiting flow for ``method``."""
    now = utcnow()
    flow = db.exec(
        select(FlowState)
        .where(
            FlowState.user_id == user.id,
            FlowState.authentication_method == method,
            col(FlowState.used_at).is_(None),
            FlowState.expires_at > now,
        )
        .order_by(col(FlowState.created_at).desc())
    ).first()
    if flow is None:
        raise NotFound(messages.FLOW_STATE_NOT_FOUND, code="flow_state_not_found")
    auth_code = tokens.new_secret()
    flow.auth_code_hash = tokens.hash_secret(auth_code)
    flow.expires_at = now + timedelta(seconds=get_settings().flow_state_ttl_seconds)
    db.add(flow)
    db.flush()
    return auth_code


def exchange_pkce(
    db: Session, auth_code: str | None, code_verifier: str | None, *, user_agent=None
) -> SessionTokens:
    """Exchange an auth code and its flow's verifier for a session, once, in time."""
    if not auth_code or not code_verifier:
        raise _bad_request(messages.PKCE_NEEDS_CODE_AND_VERIFIER)
    flow = db.exec(
        select(FlowState).where(FlowState.auth_code_hash == tokens.hash_secret(auth_code))
    ).first()
    if flow is None or flow.used_at is not None:
        raise NotFound(messages.FLOW_STATE_NOT_FOUND, code="flow_state_not_found")
    now = utcnow()
    if flow.expires_at <= now:
        raise ValidationFailed(messages.FLOW_STATE_EXPIRED, code="flow_state_expired")
    if not _verifier_matches(flow, code_verifier):
        raise _bad_request(messages.BAD_CODE_VERIFIER, code="bad_code_verifier")
    spent = db.execute(
        update(FlowState)
        .where(col(FlowState.id) == flow.id, col(FlowState.used_at).is_(None))
        .values(used_at=now)
    )
    if spent.rowcount != 1:
        raise NotFound(messages.FLOW_STATE_NOT_FOUND, code="flow_state_not_found")
    user = db.get(User, flow.user_id)
    return _sign_in(db, user, _method(flow.authentication_method, "magiclink"), user_agent)


def _verifier_matches(flow: FlowState, verifier: str) -> bool:
    if flow.code_challenge_method == "plain":
        expected = verifier
    else:
        digest = hashlib.sha256(verifier.encode("ascii", "replace")).digest()
        expected = base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
    return hmac.compare_digest(expected.encode(), flow.code_challenge.encode())


# ---------------------------------------------------------------------------
# Updating the member
# ---------------------------------------------------------------------------
def update_user(
    db: Session,
    current: CurrentUser,
    mailer: Mailer,
    *,
    data: dict | None = None,
    password: str | None = None,
    current_password: str | None = None,
    nonce: str | None = None,
    email: str | None = None,
    redirect_to: str | None = None,
    pkce: Pkce | None = None,
) -> User:
    """Apply PUT /user: metadata now, a password now, a new email only once the code
    mailed to it is verified; either credential only once the member is proved again."""
    user = db.get(User, current.id)
    now = utcnow()
    secret = service.check_password(password) if password is not None else None
    changes_email = _changes_email(user, email)
    if secret is not None or changes_email:
        _prove_member(db, user, current, current_password, nonce, now, email_too=changes_email)
    if data is not None:
        _merge_metadata(user, check_metadata(data))
    if secret is not None:
        _change_password(db, user, current, secret, now)
    user.updated_at = now
    db.add(user)
    db.flush()
    if email is not None:
        _request_email_change(db, user, email, mailer, redirect_to=redirect_to, pkce=pkce)
    return user


def _merge_metadata(user: User, updates: dict) -> None:
    """GoTrue's merge: keys given replace, keys given as null are removed."""
    merged = dict(user.user_metadata or {})
    for key, value in updates.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    user.user_metadata = merged


def _changes_email(user: User, email: str | None) -> bool:
    return email is not None and service.normalize_email(email) != user.email


def _prove_member(
    db, user: User, current: CurrentUser, current_password, nonce, now, *, email_too: bool
) -> None:
    """The member proved again: the current password when given, else the mailed nonce
    when given, else (for the password alone) a session a recovery mail opened within
    ``FRESH_RECOVERY``."""
    if current_password is not None:
        if not passwords.verify_password(current_password, user.password_hash):
            raise WrongCurrentPassword(
                messages.CURRENT_PASSWORD_WRONG,
                field="current_password",
                code="invalid_credentials",
            )
        return
    if (nonce or "").strip():
        _spend_nonce(db, user, nonce)
        return
    if email_too or not _fresh_recovery(db.get(AuthSession, current.session_id), now):
        raise _bad_request(messages.CURRENT_PASSWORD_NEEDED, code="reauthentication_needed")


def _fresh_recovery(session: AuthSession | None, now) -> bool:
    """Whether ``session`` was opened by a recovery mail's code or link, and recently."""
    if session is None or now - session.created_at > FRESH_RECOVERY:
        return False
    return any(entry.get("method") == "recovery" for entry in session.amr or [])


def _change_password(db, user: User, current: CurrentUser, secret: str, now) -> None:
    if passwords.verify_password(secret, user.password_hash):
        raise ValidationFailed(messages.SAME_PASSWORD, code="same_password")
    user.password_hash = passwords.hash_password(secret)
    others = db.exec(
        select(AuthSession.id).where(
            AuthSession.user_id == user.id,
            col(AuthSession.revoked_at).is_(None),
            AuthSession.id != current.session_id,
        )
    )
    service._revoke(db, list(others), reason="password_change", now=now)


def _spend_nonce(db: Session, user: User, nonce: str) -> None:
    record = _find_unspent(db, _code_hash(user.email, nonce.strip()), ("reauthentication",))
    if record is None or record.user_id != user.id or not _spend_row(db, record.id, utcnow()):
        raise ValidationFailed(
            messages.REAUTHENTICATION_NOT_VALID, code="reauthentication_not_valid"
        )


def _request_email_change(db, user: User, email: str, mailer: Mailer, **link_options) -> None:
    new_address = service.normalize_email(email)
    if new_address == user.email:
        return
    if _user_by_email(db, new_address) is not None:
        raise ValidationFailed(messages.EMAIL_EXISTS, code="email_exists")
    _mail_email_change(db, user, new_address, mailer, **link_options)
    notice = (
        f"Someone asked to change the email of your PrettyScore account to {new_address}.\n"
        "Nothing changes until that address confirms it. If it wasn't you, sign in and "
        "change your password.\n"
    )
    mailer.send(compose(user.email, messages.EMAIL_CHANGE_NOTICE_SUBJECT, notice))
