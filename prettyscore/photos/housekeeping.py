"""Keeping the privacy promise over time: visitors' photos are gone within the hour; the
files of a save or an edit that a crash cut short are removed (``photos.pending``); and
members' temporary files go at the end of their lifetime (``photos.media_files``), as do
AI edits a job worker made for an asker that died waiting (``editing.jobs``) and the
kept copies of the results tabs showed (``scoring.shown``)."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

from prettyscore.core.constants import VISITOR_RESULT_TTL_SECONDS
from prettyscore.core.db import session_scope
from prettyscore.core.media import MediaStore, get_media_store
from prettyscore.editing import jobs as editing_jobs
from prettyscore.photos import media_files, pending
from prettyscore.scoring import shown

log = logging.getLogger(__name__)

PURGE_EVERY_SECONDS = 300


async def purge_visitor_media_forever() -> None:
    """Every few minutes (the first time at start-up), one round of ``run_once`` (a
    lifespan task).

    With several workers each runs it; deleting an already deleted file is harmless.
    """
    while True:
        try:
            await asyncio.to_thread(run_once, get_media_store())
        except Exception:
            log.exception("Purging visitor files failed")
        await asyncio.sleep(PURGE_EVERY_SECONDS)


def run_once(store: MediaStore, db_factory=session_scope, *, now: float | None = None) -> int:
    """Delete visitors' files older than an hour, the files of saves a crash cut short and
    members' temporary files past their lifetime; how many files went."""
    removed = store.purge_visitor_files(VISITOR_RESULT_TTL_SECONDS, now=now)
    if removed:
        log.info("Purged %d visitor files older than an hour", removed)
    removed += pending.sweep_unfinished(store, db_factory, now=now)
    moment = None if now is None else datetime.fromtimestamp(now, UTC)
    with db_factory() as db:
        editing_jobs.delete_abandoned(db)
        shown.delete_expired(db, now=moment)
    return removed + media_files.sweep_expired(store, db_factory, now=moment)
