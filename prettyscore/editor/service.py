"""The editor's rules, in plain Python: versions, whose files may be used, and the work
behind Apply, AI edits, Download and Save.

A session in the editor is a list of versions (media keys) with a position: every AI
edit, and every Apply of the sliders, adds a version after the current one and drops
the versions that Redo could have reached. The list lives in the tab's server-side state;
a key only ever enters it from the server, and each use checks again that the file is in
this browser's visitor folder or the signed-in member's folder, so a tab whose member
signed out and another signed in cannot reach the first member's files.

Files made here go to the browser's visitor folder (purged within the hour); only Save
copies the final photo into the member's folder.
"""

from __future__ import annotations

import dataclasses
import io
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

from PIL import Image
from sqlmodel import Session, select

from prettyscore.analysis import service as scoring
from prettyscore.analysis.service import ScoreResult
from prettyscore.analysis.tiers import score_text
from prettyscore.core import images, messages
from prettyscore.core.db import DbFactory
from prettyscore.core.errors import PermissionDenied
from prettyscore.core.media import (
    InvalidMediaKey,
    MediaOwner,
    MediaStore,
    key_from_url,
    media_url,
    parse_key,
)
from prettyscore.editing import service as editing
from prettyscore.editing.adjustments import Adjustments, apply_adjustments
from prettyscore.photos import service as photos_service
from prettyscore.photos.models import Photo
from prettyscore.photos.pending import PendingFiles

EDITED_JPEG_QUALITY = 92


# ---------------------------------------------------------------------------
# Versions
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Version:
    """One state of the photo: its file, what made it, whether the editor made it (then
    its file goes when the version is dropped), and its width in pixels (the preview
    scales the blur by it)."""

    key: str
    prompt: str = ""
    made_here: bool = False
    width: int = 0


@dataclass
class VersionHistory:
    """The versions of the photo being edited and which one is shown."""

    versions: list[Version] = field(default_factory=list)
    position: int = -1

    @classmethod
    def starting_with(cls, *versions: Version) -> VersionHistory:
        """A history holding ``versions``, showing the last."""
        return cls(list(versions), len(versions) - 1)

    @classmethod
    def from_state(cls, versions: Iterable[dict], position: int) -> VersionHistory:
        """Rebuild from the plain form kept in state (state may hand us proxies)."""
        rows = [
            Version(str(v["key"]), str(v["prompt"]), bool(v["made_here"]), int(v["width"]))
            for v in versions
        ]
        return cls(rows, min(int(position), len(rows) - 1))

    def to_state(self) -> tuple[list[dict], int]:
        """The plain form kept in the tab's backend-only state."""
        return [dataclasses.asdict(v) for v in self.versions], self.position

    @property
    def current(self) -> Version | None:
        return self.versions[self.position] if self.versions else None

    @property
    def can_undo(self) -> bool:
        return self.position > 0

    @property
    def can_redo(self) -> bool:
        return 0 <= self.position < len(self.versions) - 1

    def add(self, version: Version) -> list[Version]:
        """Show ``version`` after the current one; returns the redo versions it dropped."""
        dropped = self.versions[self.position + 1 :]
        self.versions = [*self.versions[: self.position + 1], version]
        self.position = len(self.versions) - 1
        return dropped

    def undo(self) -> bool:
        """Step back one version; False at the first."""
        if not self.can_undo:
            return False
        self.position -= 1
        return True

    def redo(self) -> bool:
        """Step forward one version; False at the newest."""
        if not self.can_redo:
            return False
        self.position += 1
        return True

    def last_prompt(self) -> str:
        """What made the shown version (the newest thing that had a name)."""
        for version in reversed(self.versions[: self.position + 1]):
            if version.prompt:
                return version.prompt
        return ""


def discard(store: MediaStore, versions: Iterable[Version]) -> None:
    """Delete the files of dropped versions that the editor made (never anyone's photo)."""
    for version in versions:
        if version.made_here:
            store.delete(version.key)


# ---------------------------------------------------------------------------
# Whose files
# ---------------------------------------------------------------------------
def check_owned(key: str, owners: Iterable[MediaOwner]) -> str:
    """``key`` if its file is in one of ``owners``' folders, else PermissionDenied."""
    try:
        owner = parse_key(key).owner
    except InvalidMediaKey as error:
        raise PermissionDenied(messages.PHOTO_NOT_AVAILABLE_HERE) from error
    if owner not in set(owners):
        raise PermissionDenied(messages.PHOTO_NOT_AVAILABLE_HERE)
    return key


def image_width(store: MediaStore, key: str) -> int:
    """The stored photo's width in pixels (read from its header only)."""
    with Image.open(io.BytesIO(store.read(key))) as image:
        return image.width


# ---------------------------------------------------------------------------
# Photos arriving
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class OpenedPhoto:
    """A member's saved photo as the editor opens it: its current version and score."""

    photo_id: str
    key: str
    score_text: str
    label: str


def open_member_photo(db: Session, user_id: uuid.UUID, photo_id: str) -> OpenedPhoto:
    """The member's own photo (NotFound for anyone else's), edited version if any."""
    photo = photos_service.get_photo(db, user_id, photo_id)
    key = key_from_url(photo.edited_image_url) or key_from_url(photo.original_image_url)
    if key is None:
        raise PermissionDenied(messages.PHOTO_NOT_AVAILABLE_HERE)
    return OpenedPhoto(str(photo.id), key, score_text(photo.score), photo.rating_label)


def saved_photo_of_result(db: Session, user_id: uuid.UUID, result_id: str) -> str | None:
    """The member's photo already saved from this result on /results, if any (so saving
    from the editor updates it rather than making a second copy)."""
    if not result_id:
        return None
    photo_id = db.exec(
        select(Photo.id).where(Photo.result_id == result_id, Photo.user_id == user_id)
    ).first()
    return str(photo_id) if photo_id else None


# ---------------------------------------------------------------------------
# Work on the pixels (slow: call these on a worker thread)
# ---------------------------------------------------------------------------
def _adjusted(store: MediaStore, key: str, adjustments: Adjustments) -> Image.Image:
    image = images.decode_upload(store.read(key))
    if adjustments.is_identity:
        return image
    return Image.fromarray(apply_adjustments(images.to_array(image), adjustments))


def bake(store: MediaStore, key: str, adjustments: Adjustments, owner: MediaOwner) -> str | None:
    """A new file of ``key`` with the sliders applied; None when they change nothing."""
    if adjustments.is_identity:
        return None
    data = images.encode_jpeg(_adjusted(store, key, adjustments), quality=EDITED_JPEG_QUALITY)
    return store.save(data, owner=owner, ext="jpg")


def export_png(store: MediaStore, key: str, adjustments: Adjustments, owner: MediaOwner) -> str:
    """The download: ``key`` with the sliders applied, as a PNG in the visitor folder."""
    image = _adjusted(store, key, adjustments)
    return store.save(images.encode_png(image), owner=owner, ext="png")


@dataclass(frozen=True)
class EditedVersions:
    """What an AI edit added: the sliders baked in first (if any), then the edit."""

    baked_key: str | None
    outcome: editing.EditOutcome
    width: int  # of the edited photo


def edit_with_adjustments(
    db_factory: DbFactory,
    store: MediaStore,
    *,
    key: str,
    adjustments: Adjustments,
    prompt: str,
    owner: MediaOwner,
    owner_key: str,
    engine_name: str | None = None,
) -> EditedVersions:
    """An AI edit of the shown version with the pending sliders applied first, so
    nothing set on the sliders is lost (slow: call it on the photo pool). The edit and its
    allowance are ``editing.edit_photo``'s. If the edit fails, the baked file goes too."""
    baked = bake(store, key, adjustments, owner)
    try:
        outcome = editing.edit_photo(
            db_factory,
            store,
            owner_key=owner_key,
            image_key=baked or key,
            prompt=prompt,
            media_owner=owner,
            engine_name=engine_name,
        )
    except BaseException:
        if baked:
            store.delete(baked)
        raise
    return EditedVersions(baked, outcome, image_width(store, outcome.image_key))


# ---------------------------------------------------------------------------
# Saving
# ---------------------------------------------------------------------------
def score_new_photo(store: MediaStore, original_key: str, final_key: str) -> ScoreResult:
    """Score the final photo for a first save: the first version stays its 'before'.

    Raises the scoring's own message (e.g. no face found any more) as a DomainError.
    """
    result = scoring.score_staged_photo(store, final_key)
    if final_key == original_key:
        return result
    return dataclasses.replace(result, image_key=original_key, edited_key=final_key)


def update_member_photo(
    db: Session, store: MediaStore, user_id: uuid.UUID, photo_id: str, final_key: str, prompt: str
):
    """Make ``final_key`` the edited version of the member's saved photo.

    The file is copied into the member's folder, noted as pending until ``db`` commits
    (so a process killed before the commit leaves no file that no photo owns); the
    photo's history keeps the image it replaces, so the dashboard's Undo can bring it back.
    """
    from prettyscore.photos import history  # the photo's own edit history

    photos_service.get_photo(db, user_id, photo_id)  # NotFound unless it is theirs
    files = PendingFiles(store)
    files.settle_on_commit(db)
    member_key = files.save(store.read(final_key), owner=MediaOwner.member(user_id), ext="jpg")
    try:
        return history.record_edit(db, store, user_id, photo_id, media_url(member_key), prompt)
    except BaseException:
        store.delete(member_key)
        raise


@dataclass(frozen=True)
class SavedPhoto:
    """What Save did: the member's photo, and its new score when it was scored anew."""

    photo_id: str
    result: ScoreResult | None = None


def save_edited_photo(
    db_factory: DbFactory,
    store: MediaStore,
    user_id: uuid.UUID,
    *,
    photo_id: str,
    result_id: str,
    original_key: str,
    final_key: str,
    prompt: str,
) -> SavedPhoto:
    """Save the editor's final photo for the member (slow: call it on the photo pool).

    A photo from My Photos (``photo_id``), or one already saved from the same result on
    /results, gets ``final_key`` as its new edited version; any other photo is scored
    (outside any transaction: it takes a while) and saved as a new photo, its first
    version the 'before'. Which of the two, and the write, happen in one transaction.
    """
    if not photo_id:
        with db_factory() as db:
            photo_id = saved_photo_of_result(db, user_id, result_id) or ""
    result = None if photo_id else score_new_photo(store, original_key, final_key)
    with db_factory() as db:
        photo_id = photo_id or saved_photo_of_result(db, user_id, result_id) or ""
        if photo_id:
            update_member_photo(db, store, user_id, photo_id, final_key, prompt)
            return SavedPhoto(photo_id)
        return SavedPhoto(str(photos_service.save_result(db, store, user_id, result).id), result)
