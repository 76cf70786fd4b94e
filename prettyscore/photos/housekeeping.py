"""Keeping the privacy promise over time: visitors' photos are gone within the hour; and
the files of a save or an edit that a crash cut short are removed (``photos.pending``)."""

from __future__ import annotations

import asyncio
import logging

from prettyscore.core.constants import VISITOR_RESULT_TTL_SECONDS
from prettyscore.core.db import session_scope
from prettyscore.core.media import MediaStore, get_media_store
from prettyscore.photos import pending

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
    """Delete visitors' files older than an hour and the files of saves a crash cut short;
    how many files went."""
    removed = store.purge_visitor_files(VISITOR_RESULT_TTL_SECONDS, now=now)
    if removed:
        log.info("Purged %d visitor files older than an hour", removed)
    return removed + pending.sweep_unfinished(store, db_factory, now=now)
