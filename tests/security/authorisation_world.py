"""The people of the authorisation matrix, each with what they own, and a way to see
whether a call changed anything.

Every actor is made through the product's own services (sign-up, the test checkout's
payment, ``grant_role``); the things they own are the rows those services leave. The
world is built once per test on the database the REST API and the in-process handlers
share (``tests/api/conftest.py``).
"""

from __future__ import annotations

import functools
import io
import uuid
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from PIL import Image
from sqlalchemy import select as sa_select
from sqlmodel import Session

from prettyscore.accounts import passwords
from prettyscore.accounts import service as accounts
from prettyscore.accounts.models import Profile, User
from prettyscore.accounts.service import SessionTokens
from prettyscore.billing import checkout
from prettyscore.billing.fulfilment import KIND_SUBSCRIPTION
from prettyscore.contact.models import ContactRequest
from prettyscore.core.all_models import metadata
from prettyscore.core.media import MediaOwner, MediaStore, media_url
from prettyscore.core.model_types import utcnow
from prettyscore.partners.models import PartnerAccount, PartnerStatus
from prettyscore.photos.models import Photo
from prettyscore.verification import service as verification
from prettyscore.video.models import VideoGeneration

PASSWORD = "secret12"

#: Tables a mere look at the session may touch (token bookkeeping), left out of "nothing
#: changed": the matrix is about the product's data, not the sign-in's own records.
VOLATILE_TABLES = frozenset(
    {"refresh_tokens", "auth_sessions", "auth_signing_keys", "auth_browser_sessions"}
)


@dataclass(frozen=True)
class Actor:
    """One person: their tokens (None for a visitor) and user id."""

    name: str
    tokens: SessionTokens | None

    @property
    def user_id(self) -> uuid.UUID | None:
        return self.tokens.user_id if self.tokens else None

    @property
    def headers(self) -> dict[str, str]:
        if self.tokens is None:
            return {}
        return {"Authorization": f"Bearer {self.tokens.access_token}"}


@dataclass(frozen=True)
class World:
    """The actors and the ids of what each owns."""

    visitor: Actor
    member: Actor  # owner of photo_id, video_id, checkout, verification request
    stranger: Actor  # another member, owning nothing of the member's
    contestant: Actor  # listed photo on the leaderboard, receives contact_request_id
    partner: Actor  # an approved partner account
    premium: Actor  # subscribed through the test checkout
    admin: Actor
    photo_id: str  # the member's saved photo (private)
    photo_key: str  # its stored file
    listed_photo_id: str  # the contestant's leaderboard photo
    contact_request_id: str  # member -> contestant, paid, pending
    video_id: str  # the member's video generation
    checkout_session: str  # the member's open test checkout
    partner_id: str
    verification_request_id: str

    def actor(self, name: str) -> Actor:
        return getattr(self, name)


def jpeg_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), (200, 120, 140)).save(buffer, format="JPEG")
    return buffer.getvalue()


@functools.cache
def _password_hash() -> str:
    """One argon2 hash for every actor: hashing is the slow part of a sign-up."""
    return passwords.hash_password(PASSWORD)


def _sign_up(db: Session, name: str) -> Actor:
    """A confirmed member with a profile, signed in by password (what sign-up leaves)."""
    now = utcnow()
    user = User(
        email=f"{name}-{uuid.uuid4().hex[:8]}@example.com",
        password_hash=_password_hash(),
        email_confirmed_at=now,
        last_sign_in_at=now,
    )
    db.add(user)
    db.flush()
    db.add(Profile(id=user.id))
    db.flush()
    return Actor(name, accounts._start_session(db, user, now=now))


def _photo(db: Session, store: MediaStore, owner: Actor, *, listed: bool) -> Photo:
    key = store.save(jpeg_bytes(), owner=MediaOwner.member(owner.user_id), ext="jpg")
    photo = Photo(
        user_id=owner.user_id,
        original_image_url=media_url(key),
        score=9.1 if listed else 7.2,
        rating_label="Stunning",
        breakdown={"symmetry": 9.0},
        public_listing=listed,
        is_verified=listed,
        display_name="Contestant" if listed else None,
    )
    db.add(photo)
    db.flush()
    return photo


def _open_checkout(db: Session, owner: Actor) -> str:
    user = db.get(User, owner.user_id)
    url = checkout.start_checkout(db, user, KIND_SUBSCRIPTION, description="Premium Editing")
    return parse_qs(urlsplit(url).query)["session"][0]


def build_world(db: Session, store: MediaStore) -> World:
    """Every actor and their things, committed."""
    names = ("member", "stranger", "contestant", "partner", "premium", "admin")
    actors = {name: _sign_up(db, name) for name in names}
    accounts.grant_role(db, actors["admin"].tokens.email)
    premium_user = db.get(User, actors["premium"].user_id)
    premium_session = parse_qs(
        urlsplit(
            checkout.start_checkout(
                db, premium_user, KIND_SUBSCRIPTION, description="Premium Editing"
            )
        ).query
    )["session"][0]
    checkout.pay_test_checkout(db, premium_user.id, premium_session)
    partner = PartnerAccount(
        user_id=actors["partner"].user_id,
        display_name="Approved Partner",
        code=uuid.uuid4().hex[:8].upper(),
        status=PartnerStatus.APPROVED,
    )
    db.add(partner)
    photo = _photo(db, store, actors["member"], listed=False)
    listed = _photo(db, store, actors["contestant"], listed=True)
    request = ContactRequest(
        requester_id=actors["member"].user_id,
        contestant_id=actors["contestant"].user_id,
        photo_id=listed.id,
        rank_at_request=1,
        fee_amount=100_000,
        platform_share=25_000,
        contestant_share=75_000,
        message_preview="Hello, I would love to talk about your photo.",
        paid=True,
        payment_status="paid",
        status="pending",
    )
    video = VideoGeneration(
        user_id=actors["member"].user_id,
        status="completed",
        source_image_url=photo.original_image_url,
        video_url=photo.original_image_url,
    )
    db.add_all([request, video])
    session_id = _open_checkout(db, actors["member"])
    asked = verification.submit_request(
        db,
        actors["member"].user_id,
        verification.VerificationForm(full_name="Mem Ber", reason="Please verify me"),
    )
    db.flush()
    db.commit()
    return World(
        visitor=Actor("visitor", None),
        **actors,
        photo_id=str(photo.id),
        photo_key=photo.original_image_url.removeprefix("/media/"),
        listed_photo_id=str(listed.id),
        contact_request_id=str(request.id),
        video_id=str(video.id),
        checkout_session=session_id,
        partner_id=str(partner.id),
        verification_request_id=str(asked.id),
    )


def snapshot(db: Session) -> dict[str, list]:
    """Every row of every product table, to compare before and after a call."""
    db.rollback()  # see what the handlers committed since
    rows = {}
    for table in metadata.sorted_tables:
        if table.name in VOLATILE_TABLES:
            continue
        found = db.execute(sa_select(table)).all()
        rows[table.name] = sorted(repr(tuple(row)) for row in found)
    return rows


def changed_tables(before: dict[str, list], after: dict[str, list]) -> list[str]:
    return [name for name in before if before[name] != after[name]]
