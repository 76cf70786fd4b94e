"""The video render as a job (``core.jobs``): on a worker process when the queue is on
Redis, else on a thread of the web process that started it."""

from __future__ import annotations

import logging
import uuid

from prettyscore.core import jobs
from prettyscore.core.db import session_scope
from prettyscore.core.media import get_media_store
from prettyscore.video import service

log = logging.getLogger(__name__)


@jobs.job(time_limit_seconds=service.STALE_AFTER.total_seconds())
def render_video(job_id: str) -> None:
    """Render one generation; a finished one (this job run twice) is left as it is."""
    service.render_generation(session_scope, get_media_store(), uuid.UUID(job_id))


def start_render(job_id: uuid.UUID) -> None:
    """Queue the render of a generation just started (blocking: call it off the event
    loop). A queue out of reach fails the generation at once, so the page says "Video
    generation failed" instead of waiting on a job nobody will run."""
    try:
        render_video.send(str(job_id))
    except Exception as error:
        log.warning("Could not queue video generation %s: %s", job_id, error)
        with session_scope() as db:
            service.fail_generation(db, job_id)
