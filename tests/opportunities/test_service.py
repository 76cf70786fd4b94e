"""Opportunity applications: every rule of the form at its limits, the first problem's
message, what is stored, and one application per member, even when two arrive at once."""

from __future__ import annotations

import threading
import uuid

import pytest
from sqlmodel import func, select

from prettyscore.accounts.models import User
from prettyscore.core import messages
from prettyscore.core.errors import Conflict, DomainError, ValidationFailed
from prettyscore.opportunities import service
from prettyscore.opportunities.models import OpportunityClaim
from prettyscore.opportunities.service import ApplicationForm

VALID = {
    "full_name": "Jane Doe",
    "email": "jane@example.com",
    "phone": "+15551234567",
    "instagram": "@jane.doe_1",
    "location": "Lisbon, Portugal",
    "bio": "Runway and print, five years.",
    "interests": ("Fashion Modeling", "Brand Partnerships"),
    "agree_terms": True,
}


def form(**changes) -> ApplicationForm:
    return ApplicationForm(**{**VALID, **changes})


def email_of_length(length: int) -> str:
    """A well-formed address of exactly ``length`` characters (64-character local part,
    domain labels of at most 63)."""
    local = "a" * 64
    domain_length = length - len(local) - 1 - len(".com")
    labels, left = [], domain_length
    while left > 0:
        size = min(63, left)
        labels.append("b" * size)
        left -= size + 1
    address = f"{local}@{'.'.join(labels)}.com"
    assert len(address) == length
    return address


def new_member(db) -> uuid.UUID:
    user = User(email=f"applicant-{uuid.uuid4().hex[:8]}@example.com", password_hash="-")
    db.add(user)
    db.flush()
    return user.id


def claims_of(db, user_id) -> int:
    return db.exec(
        select(func.count())
        .select_from(OpportunityClaim)
        .where(OpportunityClaim.user_id == user_id)
    ).one()


def stored(db, **changes) -> OpportunityClaim:
    """Submit the valid form with ``changes`` for a new member; the row as read back."""
    user_id = new_member(db)
    service.submit_application(db, user_id, form(**changes))
    db.expire_all()
    return service.application_of(db, user_id)


def rejected(db, **changes) -> ValidationFailed:
    """Submit the form with ``changes`` for a new member: refused, and nothing stored."""
    user_id = new_member(db)
    with pytest.raises(ValidationFailed) as caught:
        service.submit_application(db, user_id, form(**changes))
    assert claims_of(db, user_id) == 0
    return caught.value


# -- full name ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ("J", "J"),
        ("x" * 100, "x" * 100),
        ("  " + "y" * 100 + "\t", "y" * 100),
        (" Jo ", "Jo"),
        ("Jo\x00", "Jo"),  # PostgreSQL cannot store NUL; it is dropped
    ],
)
def test_a_full_name_of_1_to_100_characters_after_trimming_is_kept(db, value, kept):
    assert stored(db, full_name=value).full_name == kept


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", messages.FULL_NAME_REQUIRED),
        ("    ", messages.FULL_NAME_REQUIRED),
        ("\x01\x07\x7f\u3164", messages.FULL_NAME_REQUIRED),
        (None, messages.FULL_NAME_REQUIRED),
        ("x" * 101, messages.FULL_NAME_TOO_LONG),
        (" " + "x" * 101 + " ", messages.FULL_NAME_TOO_LONG),
    ],
)
def test_a_missing_or_too_long_full_name_is_refused(db, value, message):
    problem = rejected(db, full_name=value)
    assert (problem.field, problem.message) == ("full_name", message)


# -- email -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value", ["jane@example.com", "j.d+work@mail.example.co.uk", email_of_length(254)]
)
def test_a_valid_email_is_kept(db, value):
    assert stored(db, email=f"  {value} ").email == value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", messages.EMAIL_REQUIRED),
        ("   ", messages.EMAIL_REQUIRED),
        ("jane", messages.INVALID_EMAIL),
        ("jane@", messages.INVALID_EMAIL),
        ("@example.com", messages.INVALID_EMAIL),
        ("jane@example", messages.INVALID_EMAIL),
        ("jane doe@example.com", messages.INVALID_EMAIL),
        ("jane@@example.com", messages.INVALID_EMAIL),
        ("jane..doe@example.com", messages.INVALID_EMAIL),
        # 255 is within the form's limit, but no address may be longer than 254 (RFC 5321).
        (email_of_length(255), messages.INVALID_EMAIL),
        (email_of_length(256), messages.APPLICATION_EMAIL_TOO_LONG),
    ],
)
def test_a_missing_malformed_or_too_long_email_is_refused(db, value, message):
    problem = rejected(db, email=value)
    assert (problem.field, problem.message) == ("email", message)


# -- phone -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value", ["+1", "1", "9" * 15, "+" + "4" * 15, "+447911123456", " +15551234567 "]
)
def test_an_e164_phone_number_is_kept(db, value):
    assert stored(db, phone=value).phone == value.strip()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", messages.PHONE_REQUIRED),
        ("  ", messages.PHONE_REQUIRED),
        ("+", messages.PHONE_INVALID),
        ("1" * 16, messages.PHONE_INVALID),
        ("+" + "1" * 16, messages.PHONE_INVALID),
        ("0123456789", messages.PHONE_INVALID),
        ("+0123456789", messages.PHONE_INVALID),
        ("+1555abc1234", messages.PHONE_INVALID),
        ("+1 555 123 4567", messages.PHONE_INVALID),
        ("+1-555-123-4567", messages.PHONE_INVALID),
        ("++15551234567", messages.PHONE_INVALID),
        ("\uff11\uff12\uff13", messages.PHONE_INVALID),  # full-width digits
    ],
)
def test_a_phone_number_that_is_not_e164_is_refused(db, value, message):
    problem = rejected(db, phone=value)
    assert (problem.field, problem.message) == ("phone", message)


# -- instagram ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ("@name", "name"),
        ("na.me_1", "na.me_1"),
        ("n" * 30, "n" * 30),
        ("@" + "n" * 30, "n" * 30),
        (" @jane ", "jane"),
        ("", None),
        ("   ", None),
        (None, None),
    ],
)
def test_an_instagram_handle_is_optional_and_kept_without_its_at(db, value, kept):
    assert stored(db, instagram=value).instagram == kept


@pytest.mark.parametrize(
    "value", ["n" * 31, "@" + "n" * 31, "bad-name", "@", "@@name", "two words", "jané"]
)
def test_an_instagram_handle_breaking_the_pattern_is_refused(db, value):
    problem = rejected(db, instagram=value)
    assert (problem.field, problem.message) == ("instagram", messages.INSTAGRAM_INVALID)


# -- location and bio --------------------------------------------------------------
def test_a_location_of_up_to_200_characters_is_kept(db):
    assert stored(db, location=" " + "L" * 200 + " ").location == "L" * 200


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", messages.LOCATION_REQUIRED),
        ("  ", messages.LOCATION_REQUIRED),
        ("L" * 201, messages.LOCATION_TOO_LONG),
    ],
)
def test_a_missing_or_too_long_location_is_refused(db, value, message):
    problem = rejected(db, location=value)
    assert (problem.field, problem.message) == ("location", message)


@pytest.mark.parametrize(
    ("value", "kept"),
    [("b" * 1000, "b" * 1000), ("\n" + "b" * 1000 + "\n ", "b" * 1000), ("", None), (" ", None)],
)
def test_a_bio_is_optional_up_to_1000_characters(db, value, kept):
    assert stored(db, bio=value).bio == kept


def test_a_bio_of_1001_characters_is_refused(db):
    problem = rejected(db, bio="b" * 1001)
    assert (problem.field, problem.message) == ("bio", messages.BIO_TOO_LONG)


# -- interests and terms -----------------------------------------------------------
@pytest.mark.parametrize("value", [(), ("Acting & Entertainment",), messages.OPPORTUNITY_INTERESTS])
def test_interests_are_any_of_the_six_options_or_none(db, value):
    assert stored(db, interests=value).interests == list(value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (("Modeling",), messages.INTEREST_UNKNOWN),
        (("fashion modeling",), messages.INTEREST_UNKNOWN),
        (("Fashion Modeling", ""), messages.INTEREST_UNKNOWN),
        (("Fashion Modeling", "Fashion Modeling"), messages.INTEREST_REPEATED),
    ],
)
def test_unknown_or_repeated_interests_are_refused(db, value, message):
    problem = rejected(db, interests=value)
    assert (problem.field, problem.message) == ("interests", message)


@pytest.mark.parametrize("value", [False, "on", 1])
def test_the_terms_must_be_agreed_to(db, value):
    problem = rejected(db, agree_terms=value)
    assert (problem.field, problem.message) == ("agree_terms", messages.AGREE_TO_TERMS_REQUIRED)


# -- the first problem -------------------------------------------------------------
def test_the_first_problem_in_the_forms_order_is_the_one_reported(db):
    everything_wrong = {
        "full_name": " ",
        "email": "nope",
        "phone": "0",
        "instagram": "bad-name",
        "location": "",
        "bio": "b" * 1001,
        "interests": ("Modeling",),
        "agree_terms": False,
    }
    reported = []
    for field in service.FIELDS:
        problem = rejected(db, **everything_wrong)
        reported.append(problem.field)
        everything_wrong.pop(field)
    assert reported == list(service.FIELDS)


# -- what is stored ----------------------------------------------------------------
def test_a_valid_application_is_stored_trimmed(db):
    user_id = new_member(db)
    service.submit_application(
        db,
        user_id,
        ApplicationForm(
            full_name="  Jane Doe ",
            email=" jane@example.com\t",
            phone=" +15551234567 ",
            instagram=" @jane.doe_1 ",
            location="\nLisbon, Portugal  ",
            bio="  Runway and print.\nFive years.  ",
            interests=["Social Media Campaigns", "Fashion Modeling"],
            agree_terms=True,
        ),
    )
    db.commit()
    db.expire_all()
    claim = service.application_of(db, user_id)
    assert (claim.full_name, claim.email, claim.phone) == (
        "Jane Doe",
        "jane@example.com",
        "+15551234567",
    )
    assert (claim.instagram, claim.location) == ("jane.doe_1", "Lisbon, Portugal")
    assert claim.bio == "Runway and print.\nFive years."
    assert claim.interests == ["Social Media Campaigns", "Fashion Modeling"]
    assert claim.created_at is not None


def test_a_refused_form_does_not_stop_a_corrected_one(db):
    user_id = new_member(db)
    with pytest.raises(ValidationFailed):
        service.submit_application(db, user_id, form(phone="0123"))
    service.submit_application(db, user_id, form(phone="+123"))
    assert service.application_of(db, user_id).phone == "+123"


# -- one application per member -----------------------------------------------------
def test_a_second_application_is_already_submitted_and_changes_nothing(db):
    user_id = new_member(db)
    service.submit_application(db, user_id, form())
    db.commit()
    with pytest.raises(Conflict) as caught:
        service.submit_application(db, user_id, form(full_name="Someone Else"))
    assert caught.value.message == messages.ALREADY_APPLIED
    db.commit()
    assert claims_of(db, user_id) == 1
    assert service.application_of(db, user_id).full_name == "Jane Doe"


def test_other_members_apply_independently(db):
    first, second = new_member(db), new_member(db)
    service.submit_application(db, first, form())
    service.submit_application(db, second, form())
    assert claims_of(db, first) == claims_of(db, second) == 1


def test_an_application_for_a_member_who_no_longer_exists_fails_without_a_row(db):
    with pytest.raises(DomainError) as caught:
        service.submit_application(db, uuid.uuid4(), form())
    assert not isinstance(caught.value, Conflict)
    assert caught.value.message == messages.FAILED_TO_SUBMIT_APPLICATION_RETRY
    assert db.exec(select(func.count()).select_from(OpportunityClaim)).one() == 0


def test_two_applications_at_the_same_moment_store_one(db_factory):
    with db_factory() as db:
        user_id = new_member(db)
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def apply(name: str) -> None:
        start.wait()
        try:
            with db_factory() as db:
                service.submit_application(db, user_id, form(full_name=name))
            outcomes.append("stored")
        except Conflict as error:
            outcomes.append(error.message)

    threads = [threading.Thread(target=apply, args=(name,)) for name in ("Tab One", "Tab Two")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == sorted(["stored", messages.ALREADY_APPLIED])
    with db_factory() as db:
        assert claims_of(db, user_id) == 1
        assert service.application_of(db, user_id).full_name in {"Tab One", "Tab Two"}
