"""Private file storage for photos, edits and cards: a local folder (``settings.media_dir``,
the default) or a bucket of S3-compatible object storage (``MEDIA_STORE=s3``, see
``core.media_s3``), behind one interface, :class:`MediaStore`.

A stored file is named by a key ``u/<user uuid>/<token>.<ext>`` (a member's) or
``v/<visitor id>/<token>.<ext>`` (a visitor's). The token is 192 random bits, so a URL
cannot be guessed; the owner folder lets the media route decide who may see a file and
lets account deletion remove a member's files in one go. A visitor id is a SHA-256
prefix of the visitor's secret cookie, never the secret itself: the key appears in URLs
and logs, the secret must not.

Nothing here is served statically: ``/media/<key>`` goes through
``prettyscore.photos.media_api``, which checks who is asking and streams the file from the
store (``MediaStore.open``); a bucket is never made readable to the world.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import re
import secrets
import shutil
import stat
import tempfile
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.orm import Session

from prettyscore.core import constants
from prettyscore.core.settings import get_settings

log = logging.getLogger(__name__)

MEMBER = "u"
VISITOR = "v"
URL_PREFIX = "/media/"
TOKEN_BYTES = 24  # secrets.token_urlsafe(24): 32 characters, 192 bits
VISITOR_ID_HEX_CHARS = 32  # 128 bits of the secret's SHA-256
TEMP_PREFIX = ".tmp-"
#: Where notes (``write_note``) are kept, outside every owner folder and never served.
NOTES_FOLDER = ".pending"
CHUNK_BYTES = 64 * 1024
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


class MediaStoreUnavailable(OSError):
    """The storage could not be used: the bucket is missing, the server does not answer
    or refuses our keys. An OSError, like a full disk on the local store, so the callers
    that already cope with a file that cannot be written or deleted cope with this too;
    the message says which storage and what failed (never a secret)."""


_NOTE_NAME = re.compile(r"[0-9a-f]{24}\.(json|tmp)")


def check_note_name(name: str) -> str:
    """A note's name as ``photos.pending`` makes them (``<hex>.json``); else InvalidMediaKey."""
    if not _NOTE_NAME.fullmatch(name or ""):
        raise InvalidMediaKey("Not a note name")
    return name


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


@dataclass(frozen=True)
class StoredFile:
    """A stored file, opened for serving: its size, when it was written, and its bytes.

    ``path`` is the local file when there is one (served with the operating system's
    ``sendfile``); for object storage it is None and ``chunks`` streams the bytes.
    """

    size: int
    modified: float  # seconds since the epoch
    chunks: Callable[[int, int], Iterator[bytes]]  # (first byte, last byte), inclusive
    path: Path | None = None
    stat: os.stat_result | None = None


class MediaStore(ABC):
    """Files addressed by keys, in a folder or a bucket; every write is whole or absent.

    What does not depend on where the bytes live (keys, saving, deleting after a commit)
    is here; a back end implements the rest. ``photos.pending`` and
    ``photos.media_files`` wrap any store (``StoreWrapper``) to note files before writing.
    """

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

    @abstractmethod
    def write(self, key: str, data: bytes) -> None:
        """Store ``data`` under ``key`` (from ``new_key``), atomically."""

    @abstractmethod
    def move_to_member(self, key: str, user_id: uuid.UUID | str) -> str:
        """Give a visitor's file to a member (saving a result after signing in): new key.

        The file gets a fresh token too, so the visitor-era URL stops working.
        FileNotFoundError if the visitor's file is gone.
        """

    # -- reading -------------------------------------------------------------
    @abstractmethod
    def read(self, key: str) -> bytes:
        """The stored bytes; FileNotFoundError if there is no such file."""

    @abstractmethod
    def exists(self, key: str) -> bool:
        """Whether a file is stored under ``key`` (False for malformed keys)."""

    @abstractmethod
    def open(self, key: str) -> StoredFile | None:
        """The file of ``key`` for serving, or None (no such file, or a malformed key)."""

    # -- deleting ------------------------------------------------------------
    @abstractmethod
    def delete(self, key: str) -> bool:
        """Remove one file; False if it was already gone."""

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

    @abstractmethod
    def delete_owner(self, owner: MediaOwner) -> None:
        """Remove an owner's whole folder (a member deleting their account, a visitor leaving)."""

    @abstractmethod
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

    # -- notes: small private files outside every owner folder ------------------
    # ``photos.pending`` writes down the keys of a save before its files, here, so that
    # every machine's housekeeping finds the leftovers of a save a crash cut short.
    @abstractmethod
    def write_note(self, name: str, data: bytes) -> None:
        """Keep ``data`` as the note ``name`` (``<hex>.json``), whole or not at all."""

    @abstractmethod
    def read_note(self, name: str) -> bytes | None:
        """The note's bytes, or None if it is gone."""

    @abstractmethod
    def delete_note(self, name: str) -> None:
        """Remove a note (nothing if it is already gone)."""

    @abstractmethod
    def notes_older_than(self, cutoff: float) -> list[str]:
        """The names of the notes last written before ``cutoff`` (seconds since the epoch)."""

    # -- the storage itself ----------------------------------------------------
    @abstractmethod
    def check(self) -> None:
        """Raise MediaStoreUnavailable, saying what is wrong, if files cannot be kept here
        (run once at start, so a wrong setting stops the app instead of a member's save)."""


class LocalMediaStore(MediaStore):
    """Files under one root folder (``MEDIA_DIR``); every write is atomic."""

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

    def check(self) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise MediaStoreUnavailable(
                f"Media folder {self.root} cannot be used: {error.strerror or error}"
            ) from error

    # -- writing -------------------------------------------------------------
    def write(self, key: str, data: bytes) -> None:
        path = self.path(key)
        _write_atomically(path.parent, path.name, data)

    def move_to_member(self, key: str, user_id: uuid.UUID | str) -> str:
        new_key = member_key_for(key, user_id)
        target = self.path(new_key)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(self.path(key), target)  # same file system: atomic, no copy
        _remove_if_empty(self.path(key).parent)
        return new_key

    # -- reading -------------------------------------------------------------
    def read(self, key: str) -> bytes:
        return self.path(key).read_bytes()

    def exists(self, key: str) -> bool:
        try:
            return self.path(key).is_file()
        except InvalidMediaKey:
            return False

    def open(self, key: str) -> StoredFile | None:
        """The file and its stat, if it is a regular file (so never a folder listing)."""
        try:
            path = self.path(key)
            result = os.stat(path)
        except (InvalidMediaKey, FileNotFoundError, NotADirectoryError):
            return None
        if not stat.S_ISREG(result.st_mode):
            return None
        return StoredFile(
            size=result.st_size,
            modified=result.st_mtime,
            chunks=functools.partial(_file_chunks, path),
            path=path,
            stat=result,
        )

    # -- deleting ------------------------------------------------------------
    def delete(self, key: str) -> bool:
        path = self.path(key)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        _remove_if_empty(path.parent)
        return True

    def delete_owner(self, owner: MediaOwner) -> None:
        shutil.rmtree(self._owner_folder(owner), ignore_errors=True)

    def purge_visitor_files(
        self,
        older_than_seconds: float = constants.VISITOR_RESULT_TTL_SECONDS,
        *,
        now: float | None = None,
    ) -> int:
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

    # -- notes ---------------------------------------------------------------
    def _note_path(self, name: str) -> Path:
        return self.root / NOTES_FOLDER / check_note_name(name)

    def write_note(self, name: str, data: bytes) -> None:
        """Written to ``<name>.tmp``, flushed to disk, then renamed over: a crash leaves a
        torn ``.tmp`` note, never a torn ``.json`` one."""
        path = self._note_path(name)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temp = path.with_suffix(".tmp")
        with open(temp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)

    def read_note(self, name: str) -> bytes | None:
        try:
            return self._note_path(name).read_bytes()
        except FileNotFoundError:
            return None

    def delete_note(self, name: str) -> None:
        self._note_path(name).unlink(missing_ok=True)

    def notes_older_than(self, cutoff: float) -> list[str]:
        folder = self.root / NOTES_FOLDER
        names = []
        for note in sorted(folder.glob("*")) if folder.is_dir() else []:
            with contextlib.suppress(FileNotFoundError):
                if _NOTE_NAME.fullmatch(note.name) and note.stat().st_mtime < cutoff:
                    names.append(note.name)
        return names


class StoreWrapper(MediaStore):
    """Another store, seen through this one: every operation is passed on. A subclass
    changes what it must (``photos.pending`` notes keys before ``save`` writes them)."""

    def __init__(self, store: MediaStore):
        self.store = store

    def write(self, key: str, data: bytes) -> None:
        self.store.write(key, data)

    def move_to_member(self, key: str, user_id: uuid.UUID | str) -> str:
        return self.store.move_to_member(key, user_id)

    def read(self, key: str) -> bytes:
        return self.store.read(key)

    def exists(self, key: str) -> bool:
        return self.store.exists(key)

    def open(self, key: str) -> StoredFile | None:
        return self.store.open(key)

    def delete(self, key: str) -> bool:
        return self.store.delete(key)

    def delete_owner(self, owner: MediaOwner) -> None:
        self.store.delete_owner(owner)

    def purge_visitor_files(
        self,
        older_than_seconds: float = constants.VISITOR_RESULT_TTL_SECONDS,
        *,
        now: float | None = None,
    ) -> int:
        return self.store.purge_visitor_files(older_than_seconds, now=now)

    def write_note(self, name: str, data: bytes) -> None:
        self.store.write_note(name, data)

    def read_note(self, name: str) -> bytes | None:
        return self.store.read_note(name)

    def delete_note(self, name: str) -> None:
        self.store.delete_note(name)

    def notes_older_than(self, cutoff: float) -> list[str]:
        return self.store.notes_older_than(cutoff)

    def check(self) -> None:
        self.store.check()


def member_key_for(key: str, user_id: uuid.UUID | str) -> str:
    """The new key of a visitor's file given to a member; InvalidMediaKey for another's."""
    parsed = parse_key(key)
    if parsed.owner.kind != VISITOR:
        raise InvalidMediaKey("Only a visitor's file can be moved to a member")
    return f"{MediaOwner.member(user_id).folder}/{secrets.token_urlsafe(TOKEN_BYTES)}.{parsed.ext}"


def _file_chunks(path: Path, first: int, last: int) -> Iterator[bytes]:
    """Bytes ``first``..``last`` of a local file, a chunk at a time."""
    with open(path, "rb") as handle:
        handle.seek(first)
        left = last - first + 1
        while left > 0:
            chunk = handle.read(min(CHUNK_BYTES, left))
            if not chunk:
                return
            left -= len(chunk)
            yield chunk


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


def check_media_store() -> None:
    """At start (a lifespan task): stop with one line saying which storage and what failed,
    when files cannot be kept there (a missing bucket, wrong keys, no answer)."""
    try:
        get_media_store().check()
    except MediaStoreUnavailable as error:
        log.critical("Media storage cannot be used: %s", error)
        raise


def get_media_store() -> MediaStore:
    """The configured store: the media folder (``MEDIA_DIR``), or with ``MEDIA_STORE=s3``
    the bucket (one client per process, shared by every call)."""
    settings = get_settings()
    if settings.media_store == "s3":
        from prettyscore.core.media_s3 import s3_store_from  # boto3 only when used

        return s3_store_from(settings)
    return LocalMediaStore(settings.media_dir)
