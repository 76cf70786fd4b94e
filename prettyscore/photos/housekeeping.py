"""Keeping the privacy promise over time: visitors' photos are gone within the hour."""

from __future__ import annotations

import asyncio
import logging

from prettyscore.core.constants import VISITOR_RESULT_TTL_SECONDS
from prettyscore.core.media import get_media_store

log = logging.getLogger(__name__)

PURGE_EVERY_SECONDS = 300


async def purge_visitor_media_forever() -> None:
    """Every few minutes, delete visitors' files older than an hour (a lifespan task).

    With several workers each runs it; deleting an already deleted file is harmless.
    """
    while True:
        try:
            removed = await asyncio.to_thread(
                get_media_store().purge_visitor_files, VISITOR_RESULT_TTL_SECONDS
            )
            if removed:
                log.info("Purged %d visitor files older than an hour", removed)
        except Exception:
            log.exception("Purging visitor files failed")
        await asyncio.sleep(PURGE_EVERY_SECONDS)
