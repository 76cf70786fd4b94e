"""Leaderboard rules: who is listed, in which order, at which rank, and who may change it.

Order (document 001 §3): score high first, then the oldest entry first; the photo id
breaks a tie that is left, so every listed photo has exactly one rank. Reads follow the
partial index ``ix_photos_leaderboard`` (listed photos only, in that order), so the first
pages stay quick however many photos are listed. Ranks are always computed here, never
taken from the browser.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import and_, func, or_, text
from sqlmodel import Session, select

from prettyscore.accounts.models import Profile
from prettyscore.accounts.service import has_role
from prettyscore.core import messages
from prettyscore.core.errors import NotFound, PermissionDenied, ValidationFailed
from prettyscore.photos.models import Photo
from prettyscore.photos.service import check_listing, get_photo, list_on_leaderboard

PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
TOP_PHOTOS = 10
PENDING_LIMIT = 100
# The listed-photo condition spelled exactly as the partial index's WHERE: SQLite uses a
# partial index only when the query repeats its condition term for term (``= 1`` or
# ``IS true`` would not match), and PostgreSQL then needs no proof either.
LISTED = text("photos.public_listing")
ORDER = (Photo.score.desc(), Photo.created_at.asc(), Photo.id.asc())


@dataclass(frozen=True)
class Entry:
    """One leaderboard row as the page shows it."""

    rank: int
    photo_id: str
    user_id: str
    image_url: str
    display_name: str
    bio: str
    score: float
    label: str
    verified: bool


@dataclass(frozen=True)
class LeaderboardPage:
    entries: list[Entry]
    total: int


def image_of(photo: Photo) -> str:
    """The image a listed photo shows: the member's latest edit, else the original."""
    return photo.edited_image_url or photo.original_image_url


def _entry(rank: int, photo: Photo, profile_verified: bool | None) -> Entry:
    return Entry(
        rank=rank,
        photo_id=str(photo.id),
        user_id=str(photo.user_id),
        image_url=image_of(photo),
        display_name=photo.display_name or messages.LEADERBOARD_DEFAULT_NAME,
        bio=photo.bio or "",
        score=round(float(photo.score), 1),
        label=photo.rating_label,
        verified=bool(photo.is_verified or profile_verified),
    )


def _with_profile(query):
    return query.outerjoin(Profile, Profile.id == Photo.user_id)


def leaderboard_page(
    db: Session, *, offset: int = 0, limit: int = PAGE_SIZE, after: str | None = None
) -> LeaderboardPage:
    """A page of listed photos in rank order, and how many are listed.

    ``after`` (the last entry already shown) continues from that entry through the index
    (keyset paging), so "Show more" stays as quick deep down the list as at the top;
    without it, or when that entry has left the board meanwhile, the page starts at
    position ``offset``.
    """
    limit = min(max(int(limit), 1), MAX_PAGE_SIZE)
    if after:
        try:
            return _page_after(db, after, limit)
        except NotFound:
            pass
    offset = max(int(offset), 0)
    rows = db.exec(page_query(offset, limit)).all()
    return _page(db, offset + 1, rows)


def _page(db: Session, first_rank: int, rows) -> LeaderboardPage:
    entries = [
        _entry(first_rank + index, photo, verified) for index, (photo, verified) in enumerate(rows)
    ]
    return LeaderboardPage(entries=entries, total=listed_count(db))


def _page_after(db: Session, after: str, limit: int) -> LeaderboardPage:
    """The entries ranked after ``after``: its ties first, then lower scores (two ranges)."""
    last = _listed_photo(db, after)
    tied_after = or_(
        Photo.created_at > last.created_at,
        and_(Photo.created_at == last.created_at, Photo.id > last.id),
    )
    rows = list(db.exec(page_query(0, limit, Photo.score == last.score, tied_after)).all())
    if len(rows) < limit:
        rows += db.exec(page_query(0, limit - len(rows), Photo.score < last.score)).all()
    return _page(db, rank_of(db, last.id) + 1, rows)


def page_query(offset: int, limit: int, *conditions):
    """The page's SELECT: listed photos (with the owner's profile badge) in rank order."""
    return (
        _with_profile(select(Photo, Profile.is_verified))
        .where(LISTED, *conditions)
        .order_by(*ORDER)
        .offset(offset)
        .limit(limit)
    )


def listed_count(db: Session) -> int:
    return _count_listed(db)


def _count_listed(db: Session, *conditions) -> int:
    """Listed photos matching ``conditions``: each count is one range of the index."""
    return db.exec(select(func.count()).select_from(Photo).where(LISTED, *conditions)).one()


def _listed_photo(db: Session, photo_id: uuid.UUID | str) -> Photo:
    try:
        key = uuid.UUID(str(photo_id))
    except ValueError as error:
        raise NotFound(messages.LEADERBOARD_ENTRY_NOT_FOUND) from error
    photo = db.get(Photo, key)
    if photo is None or not photo.public_listing:
        raise NotFound(messages.LEADERBOARD_ENTRY_NOT_FOUND)
    return photo


def rank_of(db: Session, photo_id: uuid.UUID | str) -> int:
    """The rank of a listed photo: how many listed photos come before it, plus one.

    Raises NotFound for a photo that is not listed (or does not exist).
    """
    photo = _listed_photo(db, photo_id)
    higher = _count_listed(db, Photo.score > photo.score)
    tied_before = _count_listed(
        db,
        Photo.score == photo.score,
        or_(
            Photo.created_at < photo.created_at,
            and_(Photo.created_at == photo.created_at, Photo.id < photo.id),
        ),
    )
    ahead = higher + tied_before
    return ahead + 1


# ---------------------------------------------------------------------------
# Entering the contest (/global-ranking)
# ---------------------------------------------------------------------------
def top_photos_for_submission(
    db: Session, user_id: uuid.UUID, limit: int = TOP_PHOTOS
) -> list[Photo]:
    """The member's best photos (document 001 §3: by score, high first, at most 10)."""
    limit = min(max(int(limit), 1), TOP_PHOTOS)
    query = (
        select(Photo)
        .where(Photo.user_id == user_id)
        .order_by(Photo.score.desc(), Photo.created_at.desc(), Photo.id)
        .limit(limit)
    )
    return list(db.exec(query).all())


def submit_to_ranking(
    db: Session,
    user_id: uuid.UUID,
    photo_id: uuid.UUID | str | None,
    display_name: str | None = None,
    bio: str | None = None,
) -> Photo:
    """List one of the member's ten best photos on the leaderboard, queued for review,
    under the display name (required) and bio (optional) of the leaderboard entry form
    (document 000 §3, §5).

    Only the member's own photo, and only one of their top 10 (the page offers no other).
    An entry already listed keeps its place; a new name or bio goes back to review.
    """
    if not photo_id or not str(photo_id).strip():
        raise ValidationFailed(messages.SELECT_PHOTO_TO_SUBMIT)
    listing = check_listing(display_name, bio)
    photo = get_photo(db, user_id, str(photo_id).strip())
    if photo.id not in {best.id for best in top_photos_for_submission(db, user_id)}:
        raise ValidationFailed(messages.LEADERBOARD_ONLY_TOP_PHOTOS)
    if photo.public_listing and (photo.display_name, photo.bio) == listing:
        return photo
    return list_on_leaderboard(db, photo, listing)


# ---------------------------------------------------------------------------
# Moderation (/admin/leaderboard)
# ---------------------------------------------------------------------------
def _require_admin(db: Session, admin_id: uuid.UUID) -> None:
    if not has_role(db, admin_id):
        raise PermissionDenied(messages.ACCESS_DENIED_ADMIN_ONLY)


def pending_entries(db: Session, limit: int = PENDING_LIMIT) -> list[Entry]:
    """Listed photos not yet verified, newest first (rank 0: not shown in the queue)."""
    rows = db.exec(
        _with_profile(select(Photo, Profile.is_verified))
        .where(LISTED, Photo.is_verified.is_(False))
        .order_by(Photo.created_at.desc(), Photo.id)
        .limit(limit)
    ).all()
    return [_entry(0, photo, verified) for photo, verified in rows]


def verify_entry(db: Session, admin_id: uuid.UUID, photo_id: uuid.UUID | str) -> Photo:
    """An admin confirms a listed photo: it shows the verified badge."""
    _require_admin(db, admin_id)
    photo = _listed_photo(db, photo_id)
    photo.is_verified = True
    db.add(photo)
    db.flush()
    return photo


def remove_entry(db: Session, admin_id: uuid.UUID, photo_id: uuid.UUID | str) -> Photo:
    """An admin takes a photo off the leaderboard: at once, and its image is private again."""
    _require_admin(db, admin_id)
    photo = _listed_photo(db, photo_id)
    photo.public_listing = False
    photo.is_verified = False
    db.add(photo)
    db.flush()
    return photo
