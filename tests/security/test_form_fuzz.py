"""Every free-text field the services accept, fed with hostile text: very long strings,
right-to-left overrides, emoji, combining marks, NUL and other control characters, lone
surrogates (a JSON event may carry "\\ud800"), and markup.

For each submission the service either refuses it with one of messages.py's texts, storing
nothing, or stores it; what it stored reads back (in a new session) exactly as the
service's documented normalisation says:

* trimmed of surrounding white space everywhere;
* NUL and lone surrogates removed (``core.text.storable``: no database can hold them),
  and invisible direction controls ("Bob\u202eevil" would show as "Boblive");
  an Instagram handle loses its leading '@';
* a name (a listing's, a partner's, an application's) is put on one line: control
  characters become spaces, runs of spaces one; a name with nothing visible is missing;
* the leaderboard listing's name and bio are cut to 50 and 200 characters, not refused;
* a partner's short code keeps only A-Z and 0-9 (upper-cased), the promo code is
  upper-cased; a sign-up email is stored in its normalised, lower-cased form.

Nothing else may escape a service. Markup is stored as the text it is: pages show stored
text through React text nodes, which escape it; that is checked in a real browser by the
end-to-end tests, not here.
"""

from __future__ import annotations

import unicodedata
import uuid
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session, func, select

from prettyscore.accounts import service as accounts
from prettyscore.accounts.models import User
from prettyscore.analysis.service import ScoreResult
from prettyscore.chat import service as chat
from prettyscore.chat.models import Message
from prettyscore.contact import service as contact
from prettyscore.contact.models import ContactRequest
from prettyscore.core import messages
from prettyscore.core.errors import DomainError
from prettyscore.core.media import LocalMediaStore
from prettyscore.core.rate_limits import reset_rate_limits
from prettyscore.opportunities import service as opportunities
from prettyscore.opportunities.models import OpportunityClaim
from prettyscore.partners import service as partners
from prettyscore.partners.models import PartnerAccount
from prettyscore.personality import service as personality
from prettyscore.personality.models import PersonalityResult
from prettyscore.photos import service as photos
from prettyscore.photos.models import Photo
from prettyscore.verification import service as verification
from prettyscore.verification.models import VerificationRequest

FUZZ = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,  # the database is emptied after the test
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

#: Every text of messages.py: a refusal must say one of them.
DOCUMENTED = {value for value in vars(messages).values() if isinstance(value, str)}

PIECES = [
    '<script>alert("x")</script>',
    '"><img src=x onerror=alert(1)>',
    "javascript:alert(1)",
    "{{7*7}}${7*7}",
    "'; DROP TABLE users; --",
    "\u202eevil\u202c",  # right-to-left override
    "\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627",  # Hebrew, Arabic
    "\U0001f600\U0001f469\u200d\U0001f469\u200d\U0001f467",  # emoji, a ZWJ family
    "e\u0301\u0301\u0301",  # combining marks
    "\x00",
    "\x01\x07\x1b[31m\x7f",
    "\u200b\ufeff",
    "\r\n\t ",
    "\ud800",  # lone surrogates
    "\udfff",
]
LONG = st.builds(
    lambda piece, times: piece * times,
    st.sampled_from(["a", "\U0001f600", "e\u0301", " ", "<b>"]),
    st.integers(min_value=100, max_value=6000),
)
HOSTILE = st.lists(
    st.one_of(st.sampled_from(PIECES), st.text(max_size=40), LONG),
    max_size=4,
).map("".join)


# ---------------------------------------------------------------------------
# The harness
# ---------------------------------------------------------------------------
def submit(db_engine, action: Callable, *args):
    """Run one submission in its own transaction, as a page's event does: committed when
    it succeeds, rolled back when refused. Returns the result or the refusal."""
    reset_rate_limits()  # the fuzzing is many submissions by one member
    with Session(db_engine, expire_on_commit=False) as db:
        try:
            result = action(db, *args)
        except DomainError as refusal:
            db.rollback()
            assert refusal.message in DOCUMENTED, refusal.message
            return refusal
        db.commit()
        return result


def rows(db_engine, model, *where) -> int:
    with Session(db_engine) as db:
        return db.exec(select(func.count()).select_from(model).where(*where)).one()


def stored(db_engine, model, row_id):
    with Session(db_engine) as db:
        return db.get(model, row_id)


def new_member(db_engine) -> uuid.UUID:
    with Session(db_engine, expire_on_commit=False) as db:
        user = User(email=f"fuzz-{uuid.uuid4().hex[:12]}@example.com", password_hash="x")
        db.add(user)
        db.commit()
        return user.id


#: Invisible characters that change how text around them reads: dropped.
DIRECTION_CONTROLS = {
    *map(chr, range(0x202A, 0x202F)),
    *map(chr, range(0x2066, 0x206A)),
    *"\u200e\u200f\u061c\u200b\u2060\ufeff",
}


def trimmed(text: str) -> str:
    """What the services keep of a text field: no NUL, no lone surrogate, no direction
    control, no outer blanks."""
    return "".join(_kept(text)).strip()


def _kept(text: str):
    return (
        char
        for char in text
        if char != "\x00" and not 0xD800 <= ord(char) <= 0xDFFF and char not in DIRECTION_CONTROLS
    )


#: What a name shows as a space: the control characters and the line separators.
NAME_BREAKS = {*map(chr, range(0x20)), *map(chr, range(0x7F, 0xA0)), "\u2028", "\u2029"}
#: Letters that draw nothing.
BLANK_LETTERS = set("\u115f\u1160\u3164\uffa0\u2800\u180e")


def named(text: str) -> str:
    """What the services keep of a name: ``trimmed``, on one line with single spaces,
    and nothing at all when no letter, digit, punctuation or symbol shows."""
    one_line = " ".join("".join(" " if c in NAME_BREAKS else c for c in _kept(text)).split())
    shows = any(unicodedata.category(c)[0] in "LNPS" and c not in BLANK_LETTERS for c in one_line)
    return one_line if shows else ""


# ---------------------------------------------------------------------------
# Leaderboard listing, contact requests, chat
# ---------------------------------------------------------------------------
@pytest.fixture
def listed(db_engine):
    """A member, their saved (and listed) photo, and a stranger who may contact them."""
    owner, fan = new_member(db_engine), new_member(db_engine)
    with Session(db_engine, expire_on_commit=False) as db:
        photo = Photo(
            user_id=owner,
            original_image_url="/media/member/x.jpg",
            score=9.0,
            rating_label="Stunning",
            breakdown={},
            result_id=uuid.uuid4().hex,
            public_listing=True,
            display_name="Listed",
        )
        db.add(photo)
        db.commit()
    return owner, fan, photo


def list_with(db, store, owner, photo: Photo, display_name: str, bio: str) -> Photo:
    """The leaderboard opt-in of a saved result: the form checked, then the save."""
    listing = photos.check_listing(display_name, bio)
    result = ScoreResult(
        result_id=photo.result_id,
        image_key="unused",
        score=photo.score,
        label=photo.rating_label,
        tier_key="stunning",
        emoji="",
        color="",
        breakdown={},
        special_panel="",
    )
    return photos.save_result(db, store, owner, result, listing=listing)


@FUZZ
@given(field=st.sampled_from(["display_name", "bio"]), text=HOSTILE)
def test_leaderboard_listing_name_and_bio(db_engine, listed, tmp_path, field, text):
    owner, _, photo = listed
    form = {"display_name": "Listed", "bio": "About me", field: text}
    earlier = stored(db_engine, Photo, photo.id)

    store = LocalMediaStore(tmp_path / "media")  # an already saved result writes no file
    outcome = submit(db_engine, list_with, store, owner, photo, form["display_name"], form["bio"])

    saved = stored(db_engine, Photo, photo.id)
    if isinstance(outcome, DomainError):
        assert (saved.display_name, saved.bio) == (earlier.display_name, earlier.bio)
        return
    name, bio = named(form["display_name"]), trimmed(form["bio"]) or None
    assert saved.display_name == name[: photos.MAX_DISPLAY_NAME]
    assert saved.bio == (bio[: photos.MAX_BIO] if bio else None)
    assert rows(db_engine, Photo) == 1


@FUZZ
@given(text=HOSTILE)
def test_contact_message(db_engine, listed, text):
    _, fan, photo = listed
    before = rows(db_engine, ContactRequest)

    def create(db):
        return contact.create_request(db, db.get(User, fan), photo.id, text)

    outcome = submit(db_engine, create)

    if isinstance(outcome, DomainError):
        assert rows(db_engine, ContactRequest) == before
        return
    assert stored(db_engine, ContactRequest, outcome.id).message_preview == trimmed(text)


@FUZZ
@given(text=HOSTILE)
def test_chat_message(db_engine, listed, text):
    owner, fan, _ = listed
    with Session(db_engine, expire_on_commit=False) as db:
        request = ContactRequest(
            requester_id=fan,
            contestant_id=owner,
            rank_at_request=1,
            fee_amount=100_000,
            platform_share=25_000,
            contestant_share=75_000,
            message_preview="Hello there, nice photo.",
            paid=True,
            payment_status="paid",
            status="approved",
        )
        db.add(request)
        db.commit()
    before = rows(db_engine, Message)

    outcome = submit(db_engine, chat.send_message, fan, request.id, text)

    if isinstance(outcome, DomainError):
        assert rows(db_engine, Message) == before
        return
    assert stored(db_engine, Message, outcome.id).content == trimmed(text)


# ---------------------------------------------------------------------------
# Opportunity applications and verification requests
# ---------------------------------------------------------------------------
VALID_APPLICATION = {
    "full_name": "Ada Lovelace",
    "email": "ada@example.com",
    "phone": "+15551234567",
    "instagram": "@ada.l",
    "location": "London",
    "bio": "Mathematician.",
}


@FUZZ
@given(field=st.sampled_from(sorted(VALID_APPLICATION)), text=HOSTILE)
def test_opportunity_application_fields(db_engine, field, text):
    member = new_member(db_engine)
    values = {**VALID_APPLICATION, field: text}
    form = opportunities.ApplicationForm(**values, interests=(), agree_terms=True)

    outcome = submit(db_engine, opportunities.submit_application, member, form)

    if isinstance(outcome, DomainError):
        assert rows(db_engine, OpportunityClaim, OpportunityClaim.user_id == member) == 0
        return
    claim = stored(db_engine, OpportunityClaim, outcome.id)
    expected = {name: trimmed(value) for name, value in values.items()}
    expected["full_name"] = named(values["full_name"])
    expected["instagram"] = expected["instagram"].removeprefix("@") or None
    expected["bio"] = expected["bio"] or None
    assert {name: getattr(claim, name) for name in expected} == expected


VALID_VERIFICATION = {
    "full_name": "Ada Lovelace",
    "reason": "I am the person in my photos.",
    "instagram_handle": "ada.l",
    "other_social": "https://example.com/ada",
}


@FUZZ
@given(field=st.sampled_from(sorted(VALID_VERIFICATION)), text=HOSTILE)
def test_verification_request_fields(db_engine, field, text):
    member = new_member(db_engine)
    values = {**VALID_VERIFICATION, field: text}

    outcome = submit(
        db_engine, verification.submit_request, member, verification.VerificationForm(**values)
    )

    if isinstance(outcome, DomainError):
        assert rows(db_engine, VerificationRequest, VerificationRequest.user_id == member) == 0
        return
    saved = stored(db_engine, VerificationRequest, outcome.id)
    expected = {name: trimmed(value) or None for name, value in values.items()}
    expected["full_name"] = named(values["full_name"])
    expected["instagram_handle"] = (expected["instagram_handle"] or "").removeprefix("@") or None
    assert {name: getattr(saved, name) for name in expected} == expected


# ---------------------------------------------------------------------------
# Partner applications, personality answers, sign-up email
# ---------------------------------------------------------------------------
@FUZZ
@given(field=st.sampled_from(["display_name", "short_code", "promo_code"]), text=HOSTILE)
def test_partner_application_fields(db_engine, field, text):
    member = new_member(db_engine)
    unique = uuid.uuid4().hex[:8].upper()
    values = {"display_name": "Glow Partner", "short_code": unique, "promo_code": unique}
    values[field] = text

    outcome = submit(db_engine, partners.apply, member, *values.values())

    if isinstance(outcome, DomainError):
        assert rows(db_engine, PartnerAccount, PartnerAccount.user_id == member) == 0
        return
    account = stored(db_engine, PartnerAccount, outcome.id)
    assert account.display_name == named(values["display_name"])
    assert account.promo_code == trimmed(values["promo_code"]).upper()
    if partners.clean_code(values["short_code"]):
        assert account.code == partners.clean_code(values["short_code"])


@FUZZ
@given(
    answers=st.one_of(
        st.dictionaries(st.one_of(HOSTILE, st.integers(-3, 25)), HOSTILE, max_size=22),
        st.builds(lambda text: {str(index): text for index in range(20)}, HOSTILE),
    )
)
def test_personality_answers(db_engine, answers):
    member = new_member(db_engine)

    outcome = submit(db_engine, personality.finish_test, member, answers)

    assert isinstance(outcome, DomainError)  # no hostile text is one of the choices
    assert rows(db_engine, PersonalityResult, PersonalityResult.user_id == member) == 0


@FUZZ
@given(
    email=st.one_of(
        HOSTILE,
        st.emails().map(lambda a: f" {a}\t"),
        st.builds("{}{}".format, HOSTILE, st.emails()),
    )
)
def test_sign_up_email(db_engine, email):
    before = rows(db_engine, User)

    outcome = submit(db_engine, accounts.sign_up, email, "secret12")

    if isinstance(outcome, DomainError):
        assert rows(db_engine, User) == before
        return
    saved = stored(db_engine, User, outcome.user_id)
    assert saved.email == accounts.normalize_email(email) == outcome.email
    assert saved.email == saved.email.strip().lower()
