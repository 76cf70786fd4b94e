"""Temporary files in members' folders: each has an owner row and a lifetime.

Most files in a member's folder belong to a row that points at them: a saved photo (its
original, edit and explanation picture), a step of its undo stack, a video generation
(its photo and its clip). A few are written before, or without, any such row: a photo
chosen on the video page, a photo sent inline to the REST API, an edit the REST API
returns, a clip while it is rendered. Each of those is first noted as a ``MediaFile``
(the member, its key, what made it, until when it is kept), and only then written.

- Housekeeping (``sweep_expired``) deletes a temporary file and its row once its lifetime
  is over, unless a row has come to own the file meanwhile (a saved photo, a video
  generation started from it): that file stays, and only its temporary row goes.
- A row that takes a file over at once drops its temporary row itself (``claim``).
- A kind may be kept only a few at once per member (``kept_at_once``: the video page's
  chosen photos): noting one more retires the oldest, as the sweep would.
- Deleting the account deletes the rows with the member (ON DELETE CASCADE) and the files
  with the member's folder.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from sqlalchemy import delete, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from prettyscore.accounts.models import User
from prettyscore.core.db import DbFactory
from prettyscore.core.media import (
    MEMBER,
    InvalidMediaKey,
    MediaOwner,
    MediaStore,
    StoreWrapper,
    media_url,
    parse_key,
)
from prettyscore.core.model_types import utcnow
from prettyscore.photos.models import MediaFile, Photo, PhotoEditStep

log = logging.getLogger(__name__)


#: What made a temporary file (``MediaFile.kind``).
VIDEO_PICK = "video_pick"  # a photo chosen on the video page
API_UPLOAD = "api_upload"  # a photo sent inline (a data URL) to a REST function
API_EDIT = "api_edit"  # the result of the REST function edit-photo
VIDEO_CLIP = "video_clip"  # a clip being rendered (its generation takes it over)

#: How long a temporary file is kept: a day, ample for using what the page or a REST
#: client was just given (animating the chosen photo, editing an edit again).
LIFETIME = timedelta(hours=24)
#: Expired rows handled per transaction by the sweep.
SWEEP_BATCH = 500


#: Other areas' rows that can own a member's file: each finder gets the session, the
#: files' owners and their URLs, and gives the URLs its rows point at. Video generations
#: register theirs (``video.files``): photos, which video builds on, need not know them.
OwnerFinder = Callable[[Session, set[uuid.UUID], list[str]], Iterable[str | None]]
_other_owners: list[OwnerFinder] = []


def other_owner(finder: OwnerFinder) -> OwnerFinder:
    """Count the rows ``finder`` finds as owners of their files (usable as a decorator)."""
    if finder not in _other_owners:
        _other_owners.append(finder)
    return finder


class MemberGone(RuntimeError):
    """The member's account was deleted while one of their files was being written."""


class TemporaryFiles(StoreWrapper):
    """The media store, noting every file it writes into a member's folder as that
    member's temporary file (``kind``, kept for ``lifetime``) before writing it.

    The row is committed before the file exists, so a process killed in between leaves a
    row without a file (which the sweep drops), never a file without an owner. Files of
    visitors' folders pass through unnoted: visitors' files are purged within the hour.
    With ``kept_at_once``, the member keeps only that many files of ``kind``: the oldest
    go as a new one is noted.
    """

    def __init__(
        self,
        store: MediaStore,
        db_factory: DbFactory,
        kind: str,
        lifetime: timedelta = LIFETIME,
        *,
        kept_at_once: int | None = None,
    ):
        super().__init__(store)
        self._db_factory = db_factory
        self.kind = kind
        self.lifetime = lifetime
        self.kept_at_once = kept_at_once

    def save(self, data: bytes, *, owner: MediaOwner, ext: str) -> str:
        key = self.new_key(owner=owner, ext=ext)
        if owner.kind != MEMBER:
            self.write(key, data)
            return key
        try:
            with self._db_factory() as db:
                self._note_within_cap(db, key, uuid.UUID(owner.owner_id))
        except IntegrityError as error:  # the member's row is gone (the foreign key)
            raise MemberGone("The account was deleted") from error
        self.write(key, data)
        with self._db_factory() as db:
            still_noted = db.exec(select(MediaFile.id).where(MediaFile.key == key)).first()
        if still_noted is None:  # the account was deleted while the file was written
            self.delete(key)
            raise MemberGone("The account was deleted")
        return key

    def _note_within_cap(self, db: Session, key: str, user_id: uuid.UUID) -> None:
        """Note ``key``; with a cap, the member's oldest files of this kind beyond it go."""
        if self.kept_at_once is None:
            note(db, key, self.kind, self.lifetime)
            return
        _hold_member(db, user_id)
        note(db, key, self.kind, self.lifetime)
        retire_oldest(db, self, user_id, self.kind, self.kept_at_once)


def note(db: Session, key: str, kind: str, lifetime: timedelta = LIFETIME) -> MediaFile:
    """Record ``key`` (a file in a member's folder) as that member's temporary file."""
    owner = parse_key(key).owner
    if owner.kind != MEMBER:
        raise InvalidMediaKey("Only a member's file has an owner row")
    now = utcnow()
    row = MediaFile(
        user_id=uuid.UUID(owner.owner_id),
        key=key,
        kind=kind,
        created_at=now,
        expires_at=now + lifetime,
    )
    db.add(row)
    db.flush()
    return row


def _hold_member(db: Session, user_id: uuid.UUID) -> None:
    """Lock the member's row (a write: a row lock on PostgreSQL, the write lock on
    SQLite), so that files noted at the same moment are counted one after the other."""
    db.execute(update(User).where(User.id == user_id).values(updated_at=User.updated_at))


def retire_oldest(db: Session, store: MediaStore, user_id: uuid.UUID, kind: str, kept: int) -> int:
    """Retire the member's temporary files of ``kind`` beyond the ``kept`` newest, with
    their rows (a file a row has come to own stays); how many files went."""
    rows = db.exec(
        select(MediaFile.id, MediaFile.key)
        .where(MediaFile.user_id == user_id, MediaFile.kind == kind)
        .order_by(MediaFile.created_at.desc(), MediaFile.id)
        .offset(kept)
    ).all()
    removed, _settled = _retire(db, store, rows)
    return removed


def claim(db: Session, key: str | None) -> None:
    """A row of ``db``'s transaction now owns ``key``: it is no longer temporary."""
    if key:
        db.execute(delete(MediaFile).where(MediaFile.key == key))


def owned_keys(db: Session, keys: Iterable[str]) -> set[str]:
    """Those of ``keys`` (files in members' folders) that a saved photo, a step of a
    photo's undo stack or another area's row (``other_owner``: a video generation)
    points at."""
    urls: dict[str, str] = {}
    users: set[uuid.UUID] = set()
    for key in keys:
        with contextlib.suppress(InvalidMediaKey, ValueError):
            owner = parse_key(key).owner
            if owner.kind == MEMBER:
                urls[media_url(key)] = key
                users.add(uuid.UUID(owner.owner_id))
    if not urls:
        return set()
    # Each query is narrowed to the files' owners first, so it reads by their user index.
    wanted = list(urls)
    photo_columns = (Photo.original_image_url, Photo.edited_image_url, Photo.explanation_image_url)
    found: set[str | None] = set()
    for column in photo_columns:
        found.update(
            db.exec(select(column).where(Photo.user_id.in_(users), column.in_(wanted))).all()
        )
    found.update(
        db.exec(
            select(PhotoEditStep.previous_image_url)
            .join(Photo, Photo.id == PhotoEditStep.photo_id)
            .where(Photo.user_id.in_(users), PhotoEditStep.previous_image_url.in_(wanted))
        ).all()
    )
    for finder in _other_owners:
        found.update(finder(db, users, wanted))
    return {urls[url] for url in found if url in urls}


def sweep_expired(store: MediaStore, db_factory: DbFactory, *, now: datetime | None = None) -> int:
    """Delete the temporary files whose lifetime is over, with their rows; a file that a
    row has come to own stays (only its temporary row goes). How many files went.

    Files go before their rows are committed: a failure in between leaves rows whose
    files are gone (dropped next time), never a file without an owner.
    """
    moment = now or utcnow()
    removed = 0
    while True:
        with db_factory() as db:
            rows = db.exec(
                select(MediaFile.id, MediaFile.key)
                .where(MediaFile.expires_at <= moment)
                .order_by(MediaFile.expires_at)
                .limit(SWEEP_BATCH)
            ).all()
            deleted, settled = _retire(db, store, rows)
            removed += deleted
        if len(rows) < SWEEP_BATCH or settled < len(rows):
            break  # all done, or files that could not go wait for the next round
    if removed:
        log.info("Deleted %d temporary member files past their lifetime", removed)
    return removed


def _retire(db: Session, store: MediaStore, rows) -> tuple[int, int]:
    """Delete the files of temporary ``rows`` (id, key) and then the rows; a file that a
    row has come to own stays (only its temporary row goes), and a file that could not
    be deleted keeps its row for the next sweep. (files deleted, rows deleted)."""
    owned = owned_keys(db, (key for _id, key in rows))
    done, removed = [], 0
    for row_id, key in rows:
        if key in owned:
            done.append(row_id)
            continue
        gone, deleted = _delete_file(store, key)
        removed += deleted
        if gone:
            done.append(row_id)
    if done:
        db.execute(delete(MediaFile).where(MediaFile.id.in_(done)))
    return removed, len(done)


def _delete_file(store: MediaStore, key: str) -> tuple[bool, bool]:
    """(whether the file is gone now, whether this call deleted it)."""
    try:
        deleted = store.delete(key)
    except InvalidMediaKey:
        return True, False  # not a file of ours: nothing to delete
    except OSError:
        log.warning("Could not delete the temporary file %s", key, exc_info=True)
        return False, False
    return True, deleted
