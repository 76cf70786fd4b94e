"""Verification requests (document 001 §2 /request-verification, /admin/verification; §4; §5).

A member asks once: the table's unique ``user_id`` decides, so two submissions at the
same moment give one request and one 'already requested'. An admin approves or rejects
a pending request with optional notes; approval also marks the member's profile
verified, in the same transaction, which is what puts the badge on the leaderboard.
Every admin function checks the caller's role first.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from prettyscore.accounts.access import require_admin
from prettyscore.accounts.models import Profile, User
from prettyscore.core import messages
from prettyscore.core.errors import Conflict, DomainError, NotFound, ValidationFailed
from prettyscore.core.model_types import utcnow
from prettyscore.core.text import clean_name, storable
from prettyscore.opportunities import service as opportunities
from prettyscore.verification.models import VerificationRequest, VerificationStatus

log = logging.getLogger(__name__)

# Every status a verification request can have.
STATUSES = tuple(VerificationStatus)

MAX_FULL_NAME = 100
MAX_REASON = 1000
MAX_OTHER_SOCIAL = 255
# The opportunity form's Instagram rule: an optional @, then 1 to 30 letters, digits, . or _.
MAX_INSTAGRAM = opportunities.MAX_INSTAGRAM
MAX_ADMIN_NOTES = 1000
# The admin page holds its rows in the browser's state: the newest this many.
MAX_LISTED = 500


@dataclass(frozen=True)
class VerificationForm:
    """What the member typed: full name and reason required, the two socials optional."""

    full_name: str | None = None
    reason: str | None = None
    instagram_handle: str | None = None
    other_social: str | None = None


@dataclass(frozen=True)
class MemberVerification:
    """What /request-verification shows: verified already, the request, or the form."""

    verified: bool
    request: VerificationRequest | None


@dataclass(frozen=True)
class RequestRow:
    """A request as the admin page lists it, with the member's email."""

    id: uuid.UUID
    user_id: uuid.UUID
    email: str
    full_name: str
    reason: str
    instagram_handle: str | None
    other_social: str | None
    status: str
    admin_notes: str | None
    created_at: datetime


# ---------------------------------------------------------------------------
# The form's rules
# ---------------------------------------------------------------------------
def _trimmed(value: str | None) -> str:
    return storable(value).strip()


def _required(field: str, text: str, limit: int, missing: str, too_long: str) -> str:
    if not text:
        raise ValidationFailed(missing, field=field)
    if len(text) > limit:
        raise ValidationFailed(too_long, field=field)
    return text


def _instagram(value: str | None) -> str | None:
    """The handle without its '@', or None when left empty (the opportunity form's rule)."""
    handle = _trimmed(value)
    if not handle:
        return None
    match = opportunities.INSTAGRAM_PATTERN.fullmatch(handle)
    if match is None:
        raise ValidationFailed(messages.INSTAGRAM_INVALID, field="instagram_handle")
    return match.group(1)


def _other_social(value: str | None) -> str | None:
    text = _trimmed(value)
    if len(text) > MAX_OTHER_SOCIAL:
        raise ValidationFailed(messages.VERIFICATION_OTHER_SOCIAL_TOO_LONG, field="other_social")
    return text or None


def check_form(form: VerificationForm) -> VerificationForm:
    """The form trimmed and checked in the order it is shown, or its first problem."""
    return VerificationForm(
        full_name=_required(
            "full_name",
            clean_name(form.full_name),
            MAX_FULL_NAME,
            messages.FULL_NAME_REQUIRED,
            messages.FULL_NAME_TOO_LONG,
        ),
        reason=_required(
            "reason",
            _trimmed(form.reason),
            MAX_REASON,
            messages.VERIFICATION_REASON_REQUIRED,
            messages.VERIFICATION_REASON_TOO_LONG,
        ),
        instagram_handle=_instagram(form.instagram_handle),
        other_social=_other_social(form.other_social),
    )


# ---------------------------------------------------------------------------
# The member's side
# ---------------------------------------------------------------------------
def request_of(db: Session, user_id: uuid.UUID) -> VerificationRequest | None:
    """The member's request, if they have made one (there is at most one)."""
    query = select(VerificationRequest).where(VerificationRequest.user_id == user_id)
    return db.exec(query).first()


def is_verified(db: Session, user_id: uuid.UUID) -> bool:
    """Whether the member's profile carries the verified badge."""
    profile = db.get(Profile, user_id)
    return bool(profile and profile.is_verified)


def member_verification(db: Session, user_id: uuid.UUID) -> MemberVerification:
    return MemberVerification(verified=is_verified(db, user_id), request=request_of(db, user_id))


def submit_request(db: Session, user_id: uuid.UUID, form: VerificationForm) -> VerificationRequest:
    """Store the member's request if the form keeps the rules and it is their first.

    Raises ValidationFailed (the first problem), Conflict when the member is verified
    already or has a request, or DomainError('Failed to submit verification request').
    """
    if is_verified(db, user_id):
        raise Conflict(messages.VERIFICATION_ALREADY_VERIFIED)
    checked = check_form(form)
    request = VerificationRequest(
        user_id=user_id,
        full_name=checked.full_name,
        reason=checked.reason,
        instagram_handle=checked.instagram_handle,
        other_social=checked.other_social,
    )
    try:
        with db.begin_nested():
            db.add(request)
            db.flush()
    except IntegrityError as error:
        if request_of(db, user_id) is not None:
            raise Conflict(messages.VERIFICATION_ALREADY_REQUESTED) from error
        log.exception("The database refused a verification request")
        raise DomainError(messages.FAILED_TO_SUBMIT_VERIFICATION) from error
    return request


# ---------------------------------------------------------------------------
# /admin/verification
# ---------------------------------------------------------------------------
def _require_admin(db: Session, admin_id: uuid.UUID) -> None:
    require_admin(db, admin_id, messages.ADMIN_ACCESS_REQUIRED)


def list_requests(db: Session, admin_id: uuid.UUID) -> list[RequestRow]:
    """Every request, newest first, with the member's email."""
    _require_admin(db, admin_id)
    query = (
        select(VerificationRequest, User.email)
        .join(User, User.id == VerificationRequest.user_id)
        .order_by(VerificationRequest.created_at.desc(), VerificationRequest.id)
        .limit(MAX_LISTED)
    )
    return [
        RequestRow(
            id=request.id,
            user_id=request.user_id,
            email=email,
            full_name=request.full_name,
            reason=request.reason,
            instagram_handle=request.instagram_handle,
            other_social=request.other_social,
            status=request.status,
            admin_notes=request.admin_notes,
            created_at=request.created_at,
        )
        for request, email in db.exec(query).all()
    ]


def _admin_notes(notes: str | None) -> str | None:
    text = _trimmed(notes)
    if len(text) > MAX_ADMIN_NOTES:
        raise ValidationFailed(messages.ADMIN_NOTES_TOO_LONG)
    return text or None


def _request(db: Session, request_id: uuid.UUID | str) -> VerificationRequest:
    try:
        key = uuid.UUID(str(request_id))
    except ValueError as error:
        raise NotFound(messages.VERIFICATION_NOT_FOUND) from error
    request = db.get(VerificationRequest, key)
    if request is None:
        raise NotFound(messages.VERIFICATION_NOT_FOUND)
    return request


def _review(
    db: Session,
    admin_id: uuid.UUID,
    request_id: uuid.UUID | str,
    status: VerificationStatus,
    notes: str | None,
) -> VerificationRequest:
    """Move a pending request to ``status`` in one conditional UPDATE: a request that was
    reviewed meanwhile (another admin, another tab) is left as it is."""
    _require_admin(db, admin_id)
    checked_notes = _admin_notes(notes)
    request = _request(db, request_id)
    moved = db.execute(
        update(VerificationRequest)
        .where(
            VerificationRequest.id == request.id,
            VerificationRequest.status == VerificationStatus.PENDING,
        )
        .values(status=status, admin_notes=checked_notes, reviewed_at=utcnow())
    )
    if moved.rowcount != 1:
        raise Conflict(messages.VERIFICATION_ALREADY_REVIEWED)
    if status == VerificationStatus.APPROVED:
        _mark_verified(db, request.user_id)
    db.refresh(request)
    return request


def _mark_verified(db: Session, user_id: uuid.UUID) -> None:
    """Set the profile's is_verified (a member without a profile row gets one)."""
    marked = db.execute(update(Profile).where(Profile.id == user_id).values(is_verified=True))
    if marked.rowcount == 0:
        db.add(Profile(id=user_id, is_verified=True))
    db.flush()


def approve_request(
    db: Session, admin_id: uuid.UUID, request_id: uuid.UUID | str, notes: str | None = None
) -> VerificationRequest:
    """Approve a pending request; the member's profile is verified in the same transaction."""
    return _review(db, admin_id, request_id, VerificationStatus.APPROVED, notes)


def reject_request(
    db: Session, admin_id: uuid.UUID, request_id: uuid.UUID | str, notes: str | None = None
) -> VerificationRequest:
    """Reject a pending request, with the admin's notes for the member."""
    return _review(db, admin_id, request_id, VerificationStatus.REJECTED, notes)
