"""My Photos: saving results, listing, deleting a photo, deleting an account.

Only Save keeps a photo. A saved photo's file is copied into the member's own folder
(served only to them, or to everyone once it is listed on the leaderboard), and the row
remembers the result it came from, so saving twice keeps one photo.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from prettyscore.accounts.models import User
from prettyscore.analysis.service import ScoreResult
from prettyscore.core import messages
from prettyscore.core.errors import NotFound, ValidationFailed
from prettyscore.core.media import MediaOwner, MediaStore, key_from_url, media_url
from prettyscore.core.text import clean_name, storable
from prettyscore.photos.models import Photo, PhotoEditStep
from prettyscore.photos.pending import PendingFiles

log = logging.getLogger(__name__)

SORTS = {
    "latest": (Photo.created_at.desc(), Photo.id),
    "highest": (Photo.score.desc(), Photo.created_at.desc(), Photo.id),
}
PAGE_SIZE = 24
MAX_DISPLAY_NAME = 50
MAX_BIO = 200


@dataclass(frozen=True)
class PhotoPage:
    """One page of a member's photos and how many they have in all."""

    photos: list[Photo]
    total: int


def save_result(
    db: Session,
    store: MediaStore,
    user_id: uuid.UUID,
    result: ScoreResult,
    *,
    listing: tuple[str, str | None] | None = None,
) -> Photo:
    """Keep a result in the member's photos (once); ``listing`` also queues it for the
    leaderboard as (display name, bio)."""
    existing = db.exec(
        select(Photo).where(Photo.result_id == result.result_id, Photo.user_id == user_id)
    ).first()
    files = PendingFiles(store)  # a crash before the commit leaves no file unowned
    files.settle_on_commit(db)
    if existing is not None:
        _keep_latest_edit(db, files, existing, result)
        return list_on_leaderboard(db, existing, listing) if listing else existing
    owner = MediaOwner.member(user_id)
    original_key = files.save(store.read(result.image_key), owner=owner, ext="jpg")
    edited_key = None
    if result.edited_key:
        edited_key = files.save(store.read(result.edited_key), owner=owner, ext="jpg")
    explanation_key = _keep_explanation(store, files, owner, result)
    photo = Photo(
        user_id=user_id,
        original_image_url=media_url(original_key),
        edited_image_url=media_url(edited_key) if edited_key else None,
        score=result.score,
        rating_label=result.label,
        breakdown=dict(result.breakdown),
        photo_type=result.kind,
        result_id=result.result_id,
        explanation_image_url=media_url(explanation_key) if explanation_key else None,
        explanation=list(result.explanation) if explanation_key else None,
        focus_x=result.focus[0] if result.focus else None,
        focus_y=result.focus[1] if result.focus else None,
    )
    try:
        with db.begin_nested():
            db.add(photo)
            db.flush()
    except IntegrityError:
        # The same result saved a moment ago by another request: keep that one.
        for key in filter(None, (original_key, edited_key, explanation_key)):
            store.delete(key)
        db.expire_all()
        return save_result(db, store, user_id, result, listing=listing)
    return list_on_leaderboard(db, photo, listing) if listing else photo


def _keep_explanation(
    store: MediaStore, files: PendingFiles, owner: MediaOwner, result: ScoreResult
) -> str | None:
    """A copy of the result's "How we got your score" picture in the member's folder
    (None without one, or when the visitor's copy has already been purged)."""
    if not result.explanation_key or not store.exists(result.explanation_key):
        return None
    return files.save(store.read(result.explanation_key), owner=owner, ext="jpg")


def _keep_latest_edit(db: Session, store: MediaStore, photo: Photo, result: ScoreResult) -> None:
    """Saving again after another edit keeps the newest edit as the photo's 'after'.

    (The results page offers Save again only after a new edit.)"""
    if not result.edited_key:
        return
    old_key = key_from_url(photo.edited_image_url)
    new_key = store.save(
        store.read(result.edited_key), owner=MediaOwner.member(photo.user_id), ext="jpg"
    )
    photo.edited_image_url = media_url(new_key)
    db.add(photo)
    db.flush()
    if old_key:
        store.delete(old_key)


def check_listing(display_name: str | None, bio: str | None) -> tuple[str, str | None]:
    """The leaderboard opt-in form: a display name is required, the bio is optional."""
    name = clean_name(display_name)
    if not name:
        raise ValidationFailed(messages.PLEASE_ENTER_DISPLAY_NAME)
    about = storable(bio).strip() or None
    return name[:MAX_DISPLAY_NAME], (about[:MAX_BIO] if about else None)


def list_on_leaderboard(db: Session, photo: Photo, listing: tuple[str, str | None]) -> Photo:
    """List ``photo`` under ``listing`` (``check_listing``'s name and bio), queued for an
    admin to verify."""
    display_name, bio = listing
    photo.display_name = display_name
    photo.bio = bio
    photo.public_listing = True
    photo.is_verified = False  # queued for an admin to verify
    db.add(photo)
    db.flush()
    return photo


def list_photos(
    db: Session, user_id: uuid.UUID, *, sort: str = "latest", offset: int = 0, limit=PAGE_SIZE
) -> PhotoPage:
    """A page of the member's own photos, newest or highest first."""
    order = SORTS.get(sort, SORTS["latest"])
    rows = db.exec(
        select(Photo)
        .where(Photo.user_id == user_id)
        .order_by(*order)
        .offset(max(offset, 0))
        .limit(min(max(limit, 1), 100))
    ).all()
    total = db.exec(select(func.count()).select_from(Photo).where(Photo.user_id == user_id)).one()
    return PhotoPage(photos=list(rows), total=total)


def get_photo(db: Session, user_id: uuid.UUID, photo_id: uuid.UUID | str) -> Photo:
    """The member's own photo; someone else's is "not found", like a missing one."""
    try:
        key = uuid.UUID(str(photo_id))
    except ValueError as error:
        raise NotFound("Photo not found") from error
    photo = db.get(Photo, key)
    if photo is None or photo.user_id != user_id:
        raise NotFound("Photo not found")
    return photo


def photo_explanation(db: Session, user_id: uuid.UUID, photo_id) -> list[dict]:
    """The notes of "How we got your score" kept with the member's photo ([] without)."""
    return list(get_photo(db, user_id, photo_id).explanation or [])


def delete_photo(
    db: Session, store: MediaStore, user_id: uuid.UUID, photo_id, *, gone_ok: bool = False
) -> None:
    """Delete the row (and with it any leaderboard entry and undo steps) and its files.

    ``gone_ok``: a photo that no longer exists (deleted meanwhile, in another tab) counts
    as deleted; someone else's photo is still "not found", and stays.
    """
    if gone_ok and _no_such_photo(db, photo_id):
        return
    photo = get_photo(db, user_id, photo_id)
    earlier_edits = db.exec(
        select(PhotoEditStep.previous_image_url).where(PhotoEditStep.photo_id == photo.id)
    ).all()
    urls = [
        photo.original_image_url,
        photo.edited_image_url,
        photo.explanation_image_url,
        *earlier_edits,
    ]
    db.delete(photo)
    db.flush()
    for key in filter(None, map(key_from_url, urls)):
        store.delete(key)


def _no_such_photo(db: Session, photo_id) -> bool:
    try:
        key = uuid.UUID(str(photo_id))
    except ValueError:
        return False  # not a photo id at all: get_photo says so
    return db.get(Photo, key) is None


def delete_account(db: Session, store: MediaStore, user_id: uuid.UUID) -> None:
    """Delete the member with every row that is theirs and every file they stored."""
    user = db.get(User, user_id)
    if user is None:
        raise NotFound("Account not found")
    db.delete(user)  # rows of every area go with it (ON DELETE CASCADE)
    db.flush()
    store.delete_owner(MediaOwner.member(user_id))
