"""Files written for a row that is not committed yet, noted down before they are written.

Saving a photo (or keeping an edit of one) writes files into the member's folder, then
commits the row that owns them. A process killed in between leaves files that no row
owns, in a folder nothing else ever cleans (members' files are kept until deleted). So
the keys are first written to an intent file (``<media>/.pending/<token>.json``, outside
every owner folder, never served), the files after; once the owning transaction commits
the intent goes. Housekeeping reads intents older than ``GRACE_SECONDS``: it deletes the
files no row owns (the crash's leftovers), keeps the others, and drops the intent.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import time
from pathlib import Path

from sqlalchemy import event
from sqlmodel import Session

from prettyscore.core.db import DbFactory
from prettyscore.core.media import MediaOwner, MediaStore
from prettyscore.photos.media_files import owned_keys

log = logging.getLogger(__name__)

PENDING_FOLDER = ".pending"
#: Longer than any save or edit takes (the remote edit engine's timeout included).
GRACE_SECONDS = 15 * 60


class PendingFiles(MediaStore):
    """The media store, with every save noted in an intent file before it is written."""

    def __init__(self, store: MediaStore):
        super().__init__(store.root)
        self._intent = self.root / PENDING_FOLDER / f"{secrets.token_hex(12)}.json"
        self._keys: list[str] = []

    def save(self, data: bytes, *, owner: MediaOwner, ext: str) -> str:
        key = self.new_key(owner=owner, ext=ext)
        self._keys.append(key)
        _write_intent(self._intent, self._keys)
        self.write(key, data)
        return key

    def settle_on_commit(self, db: Session) -> None:
        """Drop the intent once ``db`` commits (the rows owning the files are kept then)."""

        def settle(session: Session) -> None:
            if session.in_nested_transaction():
                return  # a savepoint released: the transaction goes on
            self._intent.unlink(missing_ok=True)  # later commits: nothing left to do

        event.listen(db, "after_commit", settle)


def _write_intent(path: Path, keys: list[str]) -> None:
    """Write the intent and flush it to disk before the first file is written."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temp = path.with_suffix(".tmp")
    with open(temp, "w") as handle:
        json.dump(keys, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)


def _owned(db: Session, key: str) -> bool:
    """Whether a photo (its images or explanation), an undo step or a video points at
    ``key``."""
    return key in owned_keys(db, [key])


def sweep_unfinished(
    store: MediaStore,
    db_factory: DbFactory,
    *,
    older_than_seconds: float = GRACE_SECONDS,
    now: float | None = None,
) -> int:
    """Delete the files of unfinished saves that no row owns; how many went."""
    cutoff = (time.time() if now is None else now) - older_than_seconds
    folder = store.root / PENDING_FOLDER
    removed = 0
    for intent in sorted(folder.glob("*")) if folder.is_dir() else []:
        with contextlib.suppress(FileNotFoundError):
            if intent.stat().st_mtime >= cutoff:
                continue
            removed += _finish(store, db_factory, intent)
    return removed


def _finish(store: MediaStore, db_factory, intent: Path) -> int:
    try:
        keys = json.loads(intent.read_text()) if intent.suffix == ".json" else []
    except ValueError:
        keys = []  # torn by the crash before its rename: no file was written after it
    removed = 0
    with db_factory() as db:
        for key in keys:
            if not _owned(db, key) and store.delete(key):
                removed += 1
    intent.unlink(missing_ok=True)
    if removed:
        log.info("Removed %d files of a save that never finished", removed)
    return removed
