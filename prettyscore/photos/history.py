"""Editing a saved photo from the dashboard, with an undo stack kept in the database.

Each edit pushes the image the photo showed before it (``PhotoEditStep``) and makes the
new image the photo's ``edited_image_url``; Undo pops the newest step and shows its image
again; Redo applies the member's last prompt once more (a new edit, as the documents
say). The stack survives reloads and is the same on every device. It keeps the newest
``MAX_UNDO_STEPS`` steps: older images are deleted with the step that held them.

Every change first takes the photo row's write lock, so two edits of one photo at once
stack one after the other instead of losing a step.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from sqlalchemy import func, update
from sqlmodel import Session, select

from prettyscore.core import messages
from prettyscore.core.db import DbFactory
from prettyscore.core.errors import DomainError, PermissionDenied
from prettyscore.core.media import (
    InvalidMediaKey,
    MediaOwner,
    MediaStore,
    key_from_url,
    media_url,
    parse_key,
)
from prettyscore.editing import service as editing
from prettyscore.photos.models import Photo, PhotoEditStep
from prettyscore.photos.pending import PendingFiles
from prettyscore.photos.service import get_photo

MAX_UNDO_STEPS = 20


@dataclass(frozen=True)
class EditedPhoto:
    """What the editor shows after a change: the photo's images and what it may do next."""

    photo_id: str
    original_url: str
    edited_url: str | None
    undo_steps: int
    last_prompt: str | None
    remaining: int = editing.UNLIMITED  # free edits left after an edit (UNLIMITED: Premium)
    photo: Photo | None = field(default=None, compare=False, repr=False)  # its row, read

    @property
    def current_url(self) -> str:
        return self.edited_url or self.original_url


def current_image_url(photo: Photo) -> str:
    """What the photo shows now: its newest edit, else the original."""
    return photo.edited_image_url or photo.original_image_url


def undo_steps(db: Session, photo_id: uuid.UUID) -> int:
    """How many edits of the photo can be undone."""
    return db.exec(
        select(func.count()).select_from(PhotoEditStep).where(PhotoEditStep.photo_id == photo_id)
    ).one()


def describe(db: Session, photo: Photo, remaining: int = editing.UNLIMITED) -> EditedPhoto:
    """The editor's view of ``photo``."""
    return EditedPhoto(
        photo_id=str(photo.id),
        original_url=photo.original_image_url,
        edited_url=photo.edited_image_url,
        undo_steps=undo_steps(db, photo.id),
        last_prompt=photo.last_edit_prompt,
        remaining=remaining,
        photo=photo,
    )


@dataclass(frozen=True)
class EditorFacts:
    """What the dashboard's editor panel opens with."""

    premium: bool
    free_edits_left: int
    undo_steps: int


def editor_facts(db: Session, user_id: uuid.UUID, photo_id) -> EditorFacts:
    """Premium?, the member's free edits left and their photo's undo steps (NotFound for
    anyone else's photo)."""
    photo = get_photo(db, user_id, photo_id)
    premium, left = editing.allowance(db, user_id, None)
    return EditorFacts(premium, left, undo_steps(db, photo.id))


def _locked_photo(db: Session, user_id: uuid.UUID, photo_id) -> Photo:
    """The member's photo, with its row's write lock held until the transaction ends."""
    photo = get_photo(db, user_id, photo_id)
    db.execute(
        update(Photo).where(Photo.id == photo.id).values(last_edit_prompt=Photo.last_edit_prompt)
    )
    db.refresh(photo)
    return photo


def _require_members_file(user_id: uuid.UUID, image_url: str) -> None:
    """Only a file in the member's own folder may become their photo's image."""
    try:
        owner = parse_key(key_from_url(image_url) or "").owner
    except InvalidMediaKey:
        owner = None
    if owner != MediaOwner.member(user_id):
        raise PermissionDenied(messages.FAILED_TO_EDIT_PHOTO, code="not_your_file")


def record_edit(
    db: Session, store: MediaStore, user_id: uuid.UUID, photo_id, image_url: str, prompt: str
) -> Photo:
    """Make ``image_url`` (a file of the member's) the photo's edit, pushing the image it
    showed before onto the undo stack."""
    _require_members_file(user_id, image_url)
    photo = _locked_photo(db, user_id, photo_id)
    top = db.exec(
        select(func.max(PhotoEditStep.position)).where(PhotoEditStep.photo_id == photo.id)
    ).one()
    db.add(
        PhotoEditStep(
            photo_id=photo.id,
            position=(top or 0) + 1,
            previous_image_url=photo.edited_image_url,
            prompt=prompt[:1000],
        )
    )
    photo.edited_image_url = image_url
    photo.last_edit_prompt = prompt[:1000]
    db.add(photo)
    db.flush()
    _forget_oldest_steps(db, store, photo.id)
    return photo


def _forget_oldest_steps(db: Session, store: MediaStore, photo_id: uuid.UUID) -> None:
    """Keep the newest MAX_UNDO_STEPS steps; the images only older steps held go too."""
    old = db.exec(
        select(PhotoEditStep)
        .where(PhotoEditStep.photo_id == photo_id)
        .order_by(PhotoEditStep.position.desc())
        .offset(MAX_UNDO_STEPS)
    ).all()
    for step in old:
        db.delete(step)
    db.flush()
    store.delete_after_commit(db, (key_from_url(step.previous_image_url) for step in old))


def undo_edit(db: Session, store: MediaStore, user_id: uuid.UUID, photo_id) -> Photo:
    """Show the image the newest edit replaced; 'No edits to undo' when there is none."""
    photo = _locked_photo(db, user_id, photo_id)
    step = db.exec(
        select(PhotoEditStep)
        .where(PhotoEditStep.photo_id == photo.id)
        .order_by(PhotoEditStep.position.desc())
        .limit(1)
    ).first()
    if step is None:
        raise DomainError(messages.NO_EDITS_TO_UNDO, code="nothing_to_undo")
    undone_url = photo.edited_image_url
    photo.edited_image_url = step.previous_image_url
    db.delete(step)
    db.add(photo)
    db.flush()
    store.delete_after_commit(db, [key_from_url(undone_url)])
    return photo


def undo_described(db: Session, store: MediaStore, user_id: uuid.UUID, photo_id) -> EditedPhoto:
    """``undo_edit``, as the editor shows its outcome."""
    return describe(db, undo_edit(db, store, user_id, photo_id))


def edit_saved_photo(
    db_factory: DbFactory,
    store: MediaStore,
    *,
    user_id: uuid.UUID,
    photo_id,
    prompt: str,
    engine_name: str | None = None,
) -> EditedPhoto:
    """Edit what the member's photo shows now and keep the result as its new edit.

    Slow (the edit itself): call it on the photo pool. The edit is ``editing.edit_photo``
    (Premium decided there); a non-subscriber's free edit is taken in the same
    transaction that keeps the edit, so an edit that never finishes (an error, or the
    process killed) spends nothing and leaves no file behind.
    """
    editing.check_instruction(prompt)
    with db_factory() as db:
        source_key = key_from_url(current_image_url(get_photo(db, user_id, photo_id)))
    files = PendingFiles(store)

    def keep(db: Session, new_key: str, remaining: int) -> EditedPhoto:
        files.settle_on_commit(db)
        photo = record_edit(db, store, user_id, photo_id, media_url(new_key), prompt)
        return describe(db, photo, remaining)

    outcome = editing.edit_photo(
        db_factory,
        files,
        owner_key=editing.allowance_key(user_id, None),
        image_key=source_key,
        prompt=prompt,
        media_owner=MediaOwner.member(user_id),
        engine_name=engine_name,
        keep=keep,
    )
    return outcome.kept


def redo_edit(
    db_factory: DbFactory, store: MediaStore, *, user_id: uuid.UUID, photo_id
) -> EditedPhoto:
    """Apply the member's last prompt for this photo once more (a new edit)."""
    with db_factory() as db:
        prompt = get_photo(db, user_id, photo_id).last_edit_prompt
    if not prompt:
        raise DomainError(messages.NOTHING_TO_REDO, code="nothing_to_redo")
    return edit_saved_photo(db_factory, store, user_id=user_id, photo_id=photo_id, prompt=prompt)
