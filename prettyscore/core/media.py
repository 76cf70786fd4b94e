"""Private file storage for photos, edits and cards, under ``settings.media_dir``.

A stored file is named by a key ``u/<user uuid>/<token>.<ext>`` (a member's) or
``v/<visitor id>/<token>.<ext>`` (a visitor's). The token is 192 random bits, so a URL
cannot be guessed; the owner folder lets the media route decide who may see a file and
lets account deletion remove a member's files in one go. A visitor id is a SHA-256
prefix of the visitor's secret cookie, never the secret itself: the key appears in URLs
and logs, the secret must not.

Nothing here is served statically: ``/media/<key>`` goes through
``prettyscore.photos.media_api``, which checks who is asking.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.orm import Session

from prettyscore.core import constants
from prettyscore.core.settings import get_settings

MEMBER = "u"
VISITOR = "v"
URL_PREFIX = "/media/"
TOKEN_BYTES = 24  # secrets.token_urlsafe(24): 32 characters, 192 bits
VISITOR_ID_HEX_CHARS = 32  # 128 bits of the secret's SHA-256
TEMP_PREFIX = ".tmp-"
CONTENT_TYPES = {
    "jpg": "image/jpeg",
    "png": "image/png",
    "webp": "image/webp",
    "gif": "image/gif",
    "mp4": "video/mp4",
}

# The only shape a key may have; anything else (.., absolute paths, backslashes, other
# prefixes, upper-case UUIDs) is refused before it comes near the file system.
_OWNER_ID = {
    MEMBER: r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    VISITOR: rf"[0-9a-f]{{{VISITOR_ID_HEX_CHARS}}}",
}
_EXTENSIONS = "|".join(CONTENT_TYPES)
_KEY = re.compile(
    rf"(?P<kind>u|v)/(?P<owner_id>[0-9a-f-]+)/(?P<token>[A-Za-z0-9_-]{{32}})\.(?P<ext>{_EXTENSIONS})"
)


class InvalidMediaKey(ValueError):
    """A key that is not one of ours (malformed, or an attempt to leave the media folder)."""


def visitor_id(visitor_secret: str) -> str:
    """The public folder name of a visitor: a SHA-256 prefix of their secret cookie."""
    digest = hashlib.sha256(visitor_secret.encode("utf-8")).hexdigest()
    return digest[:VISITOR_ID_HEX_CHARS]


@dataclass(frozen=True)
class MediaOwner:
    """Whose folder a file goes to: a member (by user id) or a visitor (by hashed secret)."""

    kind: str  # MEMBER | VISITOR
    owner_id: str

    def __post_init__(self) -> None:
        pattern = _OWNER_ID.get(self.kind)
        if pattern is None or not re.fullmatch(pattern, self.owner_id):
            raise InvalidMediaKey("Not a media owner")

    @classmethod
    def member(cls, user_id: uuid.UUID | str) -> MediaOwner:
        """A signed-in member's folder, named by their user id."""
        return cls(MEMBER, str(uuid.UUID(str(user_id))))

    @classmethod
    def visitor(cls, visitor_secret: str) -> MediaOwner:
        """A visitor's folder, named by the hash of their secret cookie value."""
        if not visitor_secret:
            raise ValueError("A visitor folder needs the visitor's secret")
        return cls(VISITOR, visitor_id(visitor_secret))

    @property
    def folder(self) -> str:
        """The owner's folder relative to the media root, e.g. ``u/<uuid>``."""
        return f"{self.kind}/{self.owner_id}"


@dataclass(frozen=True)
class MediaKey:
    """A parsed key: who owns the file, and its extension (which sets the content type)."""

    key: str
    owner: MediaOwner
    ext: str

    @property
    def content_type(self) -> str:
        return CONTENT_TYPES[self.ext]


def parse_key(key: str) -> MediaKey:
    """The parts of a well-formed key; InvalidMediaKey for anything else."""
    match = _KEY.fullmatch(key or "")
    if match is None:
        raise InvalidMediaKey("Not a media key")
    owner = MediaOwner(match["kind"], match["owner_id"])  # checks the owner id's shape
    return MediaKey(key=key, owner=owner, ext=match["ext"])


def media_url(key: str) -> str:
    """The URL at which the media route serves ``key`` (to those allowed to see it)."""
    return URL_PREFIX + parse_key(key).key


def key_from_url(url: str | None) -> str | None:
    """The key behind one of our media URLs (e.g. to delete a photo's files); else None."""
    if not url or not url.startswith(URL_PREFIX):
        return None
    try:
        return parse_key(url[len(URL_PREFIX) :]).key
    except InvalidMediaKey:
        return None


class MediaStore:
    """Files under one root folder, addressed by keys; every write is atomic."""

    def __init__(self, root: Path | str):
        self.root = Path(root).resolve()

    # -- addressing ----------------------------------------------------------
    def path(self, key: str) -> Path:
        """The file of ``key``; InvalidMediaKey if the key is malformed or leaves the root."""
        parsed = parse_key(key)
        candidate = (self.root / parsed.key).resolve()
        if not candidate.is_relative_to(self.root):  # defence in depth: symlinks
            raise InvalidMediaKey("Outside the media folder")
        return candidate

    def _owner_folder(self, owner: MediaOwner) -> Path:
        return self.root / owner.kind / owner.owner_id

    # -- writing -------------------------------------------------------------
    def save(self, data: bytes, *, owner: MediaOwner, ext: str) -> str:
        """Store ``data`` under a new unguessable key in the owner's folder; returns the key."""
        key = self.new_key(owner=owner, ext=ext)
        self.write(key, data)
        return key

    def new_key(self, *, owner: MediaOwner, ext: str) -> str:
        """A fresh unguessable key in the owner's folder (nothing is written yet)."""
        if ext not in CONTENT_TYPES:
            raise ValueError(f"Unsupported media extension: {ext!r}")
        return f"{owner.folder}/{secrets.token_urlsafe(TOKEN_BYTES)}.{ext}"

    def write(self, key: str, data: bytes) -> None:
        """Store ``data`` under ``key`` (from ``new_key``), atomically."""
        path = self.path(key)
        _write_atomically(path.parent, path.name, data)

    def move_to_member(self, key: str, user_id: uuid.UUID | str) -> str:
        """Give a visitor's file to a member (saving a result after signing in): new key.

        The file gets a fresh token too, so the visitor-era URL stops working.
        """
        parsed = parse_key(key)
        if parsed.owner.kind != VISITOR:
            raise InvalidMediaKey("Only a visitor's file can be moved to a member")
        owner = MediaOwner.member(user_id)
        new_key = f"{owner.folder}/{secrets.token_urlsafe(TOKEN_BYTES)}.{parsed.ext}"
        target = self.path(new_key)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(self.path(key), target)  # same file system: atomic, no copy
        _remove_if_empty(self.path(key).parent)
        return new_key

    # -- reading -------------------------------------------------------------
    def read(self, key: str) -> bytes:
        """The stored bytes; FileNotFoundError if there is no such file."""
        return self.path(key).read_bytes()

    def exists(self, key: str) -> bool:
        """Whether a file is stored under ``key`` (False for malformed keys)."""
        try:
            return self.path(key).is_file()
        except InvalidMediaKey:
            return False

    # -- deleting ------------------------------------------------------------
    def delete(self, key: str) -> bool:
        """Remove one file; False if it was already gone."""
        path = self.path(key)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        _remove_if_empty(path.parent)
        return True

    def delete_after_commit(self, db: Session, keys: Iterable[str | None]) -> None:
        """Remove files once ``db`` commits, so a rolled-back change never loses a file a
        row still points at. (Nothing is removed if the transaction rolls back.)"""
        doomed = [key for key in keys if key]
        if not doomed:
            return

        def remove(session) -> None:
            # SQLAlchemy also reports a savepoint's release as a commit: wait for the
            # transaction itself, and remove the files once only.
            if session.in_nested_transaction() or not doomed:
                return
            for key in doomed:
                with contextlib.suppress(InvalidMediaKey, OSError):
                    self.delete(key)
            doomed.clear()

        event.listen(db, "after_commit", remove)

    def delete_owner(self, owner: MediaOwner) -> None:
        """Remove an owner's whole folder (a member deleting their account, a visitor leaving)."""
        shutil.rmtree(self._owner_folder(owner), ignore_errors=True)

    def purge_visitor_files(
        self,
        older_than_seconds: float = constants.VISITOR_RESULT_TTL_SECONDS,
        *,
        now: float | None = None,
    ) -> int:
        """Delete visitors' files (and anyone's crash leftovers) older than the limit.

        Visitors' results live at most an hour (the privacy promise); members' files are
        never touched, except temporary files a crash left behind. Returns how many files
        were removed.
        """
        cutoff = (time.time() if now is None else now) - older_than_seconds
        removed = 0
        for folder in self._owner_folders(VISITOR):
            removed += _remove_older(folder, cutoff, only_temp=False)
        for folder in self._owner_folders(MEMBER):
            removed += _remove_older(folder, cutoff, only_temp=True)
        return removed

    def _owner_folders(self, kind: str) -> list[Path]:
        base = self.root / kind
        if not base.is_dir():
            return []
        return [entry for entry in base.iterdir() if entry.is_dir() and not entry.is_symlink()]


def _write_atomically(folder: Path, name: str, data: bytes) -> None:
    """Write to a temp file beside the target, flush it to disk, then rename over.

    A crash leaves either no file or the whole file under ``name``, never half of one;
    a leftover temp file (named ``.tmp-*``) is removed by the purge.
    """
    descriptor, temp_name = _temp_file_in(folder)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, folder / name)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def _temp_file_in(folder: Path) -> tuple[int, str]:
    """A new temp file in ``folder``, creating it; retried if a purge removed it meanwhile."""
    for _attempt in range(3):
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            return tempfile.mkstemp(prefix=TEMP_PREFIX, dir=folder)
        except FileNotFoundError:  # an empty folder was just pruned: make it again
            continue
    raise FileNotFoundError(folder)


def _remove_older(folder: Path, cutoff: float, *, only_temp: bool) -> int:
    """Remove the files of ``folder`` last written before ``cutoff``; how many went."""
    removed = 0
    for entry in folder.iterdir():
        if only_temp and not entry.name.startswith(TEMP_PREFIX):
            continue
        try:
            if entry.is_file() and entry.stat().st_mtime < cutoff:
                entry.unlink()
                removed += 1
        except FileNotFoundError:  # deleted meanwhile by its owner: fine
            continue
    _remove_if_empty(folder)
    return removed


def _remove_if_empty(folder: Path) -> None:
    """Drop an owner folder once its last file is gone (best effort, races are harmless)."""
    with contextlib.suppress(OSError):
        folder.rmdir()


def get_media_store() -> MediaStore:
    """The store at the configured media folder (settings.media_dir)."""
    return MediaStore(get_settings().media_dir)
