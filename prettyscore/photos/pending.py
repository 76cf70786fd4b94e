"""Files written for a row that is not committed yet, noted down before they are written.

Saving a photo (or keeping an edit of one) writes files into the member's folder, then
commits the row that owns them. A process killed in between leaves files that no row
owns, in a folder nothing else ever cleans (members' files are kept until deleted). So
the keys are first written to an intent (a note of the store, ``.pending/<token>.json``
in the media folder or the bucket, outside every owner folder, never served), the files
after; once the owning transaction commits the intent goes. Housekeeping reads intents
older than ``GRACE_SECONDS``: it deletes the files no row owns (the crash's leftovers),
keeps the others, and drops the intent.
"""

from __future__ import annotations

import json
import logging
import secrets
import time

from sqlalchemy import event
from sqlmodel import Session

from prettyscore.core.db import DbFactory
from prettyscore.core.media import MediaOwner, MediaStore, StoreWrapper
from prettyscore.photos.media_files import owned_keys

log = logging.getLogger(__name__)

#: Longer than any save or edit takes (the remote edit engine's timeout included).
GRACE_SECONDS = 15 * 60


class PendingFiles(StoreWrapper):
    """The media store, with every save noted in an intent before it is written."""

    def __init__(self, store: MediaStore):
        super().__init__(store)
        self._intent = f"{secrets.token_hex(12)}.json"
        self._keys: list[str] = []

    def save(self, data: bytes, *, owner: MediaOwner, ext: str) -> str:
        key = self.new_key(owner=owner, ext=ext)
        self._keys.append(key)
        self.write_note(self._intent, json.dumps(self._keys).encode())  # before the file
        self.write(key, data)
        return key

    def settle_on_commit(self, db: Session) -> None:
        """Drop the intent once ``db`` commits (the rows owning the files are kept then)."""

        def settle(session: Session) -> None:
            if session.in_nested_transaction():
                return  # a savepoint released: the transaction goes on
            if self._keys:  # later commits: nothing left to do
                self._keys = []
                try:
                    self.delete_note(self._intent)
                except OSError:  # the storage is down: housekeeping drops it later
                    log.warning("Could not drop the intent %s", self._intent, exc_info=True)

        event.listen(db, "after_commit", settle)


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
    removed = 0
    for intent in store.notes_older_than(cutoff):
        removed += _finish(store, db_factory, intent)
    return removed


def _finish(store: MediaStore, db_factory, intent: str) -> int:
    data = store.read_note(intent) if intent.endswith(".json") else None
    try:
        keys = json.loads(data) if data else []
    except ValueError:
        keys = []  # torn by the crash before its rename: no file was written after it
    removed = 0
    with db_factory() as db:
        for key in keys:
            if not _owned(db, key) and store.delete(key):
                removed += 1
    store.delete_note(intent)
    if removed:
        log.info("Removed %d files of a save that never finished", removed)
    return removed
