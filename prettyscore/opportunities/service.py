"""Opportunity applications: the form's rules (document 001 §5) and one application per member.

Every text field is trimmed before it is checked; the first field that breaks a rule, in
the form's order, is reported with its own message (``ValidationFailed``), and nothing
is stored. "One per member" is the table's unique ``user_id``: the insert itself decides,
so two submissions at the same moment give one application and one 'already submitted'.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from email_validator import EmailNotValidError, validate_email
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Session, select

from prettyscore.core import messages
from prettyscore.core.errors import Conflict, DomainError, ValidationFailed
from prettyscore.core.text import clean_name, storable
from prettyscore.opportunities.models import OpportunityClaim

log = logging.getLogger(__name__)

INTEREST_OPTIONS: tuple[str, ...] = messages.OPPORTUNITY_INTERESTS
MAX_FULL_NAME = 100
MAX_EMAIL = 255
MAX_LOCATION = 200
MAX_BIO = 1000
MAX_INSTAGRAM = 30
# E.164 as document 001 words it: an optional plus, then 1 to 15 digits, not starting with 0.
PHONE_PATTERN = re.compile(r"\+?[1-9][0-9]{0,14}")
# An optional leading @, then 1 to 30 ASCII letters, digits, dots or underscores.
INSTAGRAM_PATTERN = re.compile(rf"@?([A-Za-z0-9._]{{1,{MAX_INSTAGRAM}}})")

# The form's fields, in the order it shows them (and reports their problems).
FIELDS = (
    "full_name",
    "email",
    "phone",
    "instagram",
    "location",
    "bio",
    "interests",
    "agree_terms",
)


@dataclass(frozen=True)
class ApplicationForm:
    """What the member typed and ticked, as submitted (nothing checked yet)."""

    full_name: str | None = None
    email: str | None = None
    phone: str | None = None
    instagram: str | None = None
    location: str | None = None
    bio: str | None = None
    interests: Iterable[str] = ()
    agree_terms: bool = False


@dataclass(frozen=True)
class Application:
    """An application that keeps every rule: trimmed, the Instagram handle without '@'."""

    full_name: str
    email: str
    phone: str
    instagram: str | None
    location: str
    bio: str | None
    interests: tuple[str, ...]


def _trimmed(value: str | None) -> str:
    return storable(value).strip()


def _full_name(value: str | None) -> str:
    name = clean_name(value)
    if not name:
        raise ValidationFailed(messages.FULL_NAME_REQUIRED, field="full_name")
    if len(name) > MAX_FULL_NAME:
        raise ValidationFailed(messages.FULL_NAME_TOO_LONG, field="full_name")
    return name


def _email(value: str | None) -> str:
    """A syntactically valid address (no network lookup), at most 255 characters.

    email-validator also applies the RFC's 254-character limit, so an address of 255
    characters is reported as invalid rather than too long."""
    address = _trimmed(value)
    if not address:
        raise ValidationFailed(messages.EMAIL_REQUIRED, field="email")
    if len(address) > MAX_EMAIL:
        raise ValidationFailed(messages.APPLICATION_EMAIL_TOO_LONG, field="email")
    try:
        validate_email(address, check_deliverability=False)
    except EmailNotValidError as error:
        raise ValidationFailed(messages.INVALID_EMAIL, field="email") from error
    return address


def _phone(value: str | None) -> str:
    number = _trimmed(value)
    if not number:
        raise ValidationFailed(messages.PHONE_REQUIRED, field="phone")
    if not PHONE_PATTERN.fullmatch(number):
        raise ValidationFailed(messages.PHONE_INVALID, field="phone")
    return number


def _instagram(value: str | None) -> str | None:
    """The handle without its '@', or None when left empty."""
    handle = _trimmed(value)
    if not handle:
        return None
    match = INSTAGRAM_PATTERN.fullmatch(handle)
    if match is None:
        raise ValidationFailed(messages.INSTAGRAM_INVALID, field="instagram")
    return match.group(1)


def _location(value: str | None) -> str:
    place = _trimmed(value)
    if not place:
        raise ValidationFailed(messages.LOCATION_REQUIRED, field="location")
    if len(place) > MAX_LOCATION:
        raise ValidationFailed(messages.LOCATION_TOO_LONG, field="location")
    return place


def _bio(value: str | None) -> str | None:
    about = _trimmed(value)
    if len(about) > MAX_BIO:
        raise ValidationFailed(messages.BIO_TOO_LONG, field="bio")
    return about or None


def _interests(values: Iterable[str] | None) -> tuple[str, ...]:
    """Only the six options, each at most once, in the order they were chosen."""
    chosen = tuple(values or ())
    if any(value not in INTEREST_OPTIONS for value in chosen):
        raise ValidationFailed(messages.INTEREST_UNKNOWN, field="interests")
    if len(set(chosen)) != len(chosen):
        raise ValidationFailed(messages.INTEREST_REPEATED, field="interests")
    return chosen


def check_application(form: ApplicationForm) -> Application:
    """The application ``form`` describes, or ValidationFailed for its first problem."""
    application = Application(
        full_name=_full_name(form.full_name),
        email=_email(form.email),
        phone=_phone(form.phone),
        instagram=_instagram(form.instagram),
        location=_location(form.location),
        bio=_bio(form.bio),
        interests=_interests(form.interests),
    )
    if form.agree_terms is not True:
        raise ValidationFailed(messages.AGREE_TO_TERMS_REQUIRED, field="agree_terms")
    return application


def application_of(db: Session, user_id: uuid.UUID) -> OpportunityClaim | None:
    """The member's application, if they have sent one."""
    return db.exec(select(OpportunityClaim).where(OpportunityClaim.user_id == user_id)).first()


def _is_unique_violation(error: IntegrityError) -> bool:
    """Whether the database refused a second row for the same member (not, say, a
    member that no longer exists). PostgreSQL says so with SQLSTATE 23505."""
    driver_error = error.orig
    sqlstate = getattr(driver_error, "sqlstate", None) or getattr(driver_error, "pgcode", None)
    if sqlstate is not None:
        return sqlstate == "23505"
    return "UNIQUE constraint failed" in str(driver_error)


def submit_application(db: Session, user_id: uuid.UUID, form: ApplicationForm) -> OpportunityClaim:
    """Store the member's application if it keeps every rule and is their first.

    Raises ValidationFailed (the first problem), Conflict('You've already submitted an
    application') when the member has one, or DomainError('Failed to submit
    application. Please try again.') when the database refuses the row otherwise.
    """
    application = check_application(form)
    claim = OpportunityClaim(
        user_id=user_id,
        full_name=application.full_name,
        email=application.email,
        phone=application.phone,
        instagram=application.instagram,
        location=application.location,
        bio=application.bio,
        interests=list(application.interests),
    )
    try:
        with db.begin_nested():
            db.add(claim)
            db.flush()
    except IntegrityError as error:
        if _is_unique_violation(error):
            raise Conflict(messages.ALREADY_APPLIED, code="already_applied") from error
        log.exception("The database refused an opportunity application")
        raise DomainError(messages.FAILED_TO_SUBMIT_APPLICATION_RETRY) from error
    except SQLAlchemyError as error:
        log.exception("Storing an opportunity application failed")
        raise DomainError(messages.FAILED_TO_SUBMIT_APPLICATION_RETRY) from error
    return claim
