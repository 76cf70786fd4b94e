"""AI edits as jobs: with the queue on Redis (``core.jobs``), a job worker runs the edit
engine, so a slow provider or a local edit's CPU never holds a web process.

The web process that asks writes a row (``EditJob``), queues its id and waits on the row;
the worker fills it with the edited photo as JPEG bytes, or with the refusal the member
is shown. The asker then stores the photo through its own store (so every caller's
bookkeeping of new files stays as it is: intents, temporary files) and deletes the row.
The free-edit allowance is counted by the asker as before (``editing.service``): a
worker only ever produces a photo.
"""

from __future__ import annotations

import logging
import time
import uuid
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, update
from sqlmodel import Session

from prettyscore.core import images, jobs, messages
from prettyscore.core.db import DbFactory, session_scope
from prettyscore.core.errors import (
    Conflict,
    DomainError,
    NotFound,
    PermissionDenied,
    ValidationFailed,
)
from prettyscore.core.media import MediaStore, get_media_store
from prettyscore.core.model_types import utcnow
from prettyscore.core.rate_limits import RateLimited
from prettyscore.core.settings import get_settings
from prettyscore.editing.engines import engine_named, get_edit_engine
from prettyscore.editing.models import EditJob

log = logging.getLogger(__name__)

#: How often the asker looks at the row.
POLL_SECONDS = 0.2
#: Beyond the engine's own timeout, how long an edit may wait for a free worker.
QUEUE_WAIT_SECONDS = 60.0
#: The worker's limit on one edit (the engine's timeouts end it well before).
TIME_LIMIT_SECONDS = 15 * 60
#: Rows older than this were abandoned by their asker (its process died while waiting):
#: housekeeping deletes them, photo and all, well within a visitor's hour.
ABANDONED_AFTER = timedelta(minutes=20)
PROCESSING, COMPLETED, FAILED = "processing", "completed", "failed"
UNEXPECTED = "unexpected"
_REFUSALS: dict[str, type[DomainError]] = {
    kind.__name__: kind
    for kind in (DomainError, ValidationFailed, PermissionDenied, NotFound, Conflict)
}


class EditJobFailed(RuntimeError):
    """The worker met an unexpected error (logged there): the page's generic failure."""


def edited_jpeg(
    store: MediaStore, image_key: str, prompt: str, engine_name: str | None = None
) -> bytes:
    """The edit itself: the stored photo at ``image_key`` edited, as JPEG bytes (slow)."""
    engine = engine_named(engine_name) if engine_name else get_edit_engine()
    edited = engine.edit(images.decode_upload(store.read(image_key)), prompt)
    return images.encode_jpeg(edited, quality=92)


@jobs.job(time_limit_seconds=TIME_LIMIT_SECONDS)
def run_edit(job_id: str) -> None:
    """Fill one edit's row; a row no longer processing (delivered twice, or given up by
    its asker) is left alone."""
    with session_scope() as db:
        row = db.get(EditJob, uuid.UUID(job_id))
        if row is None or row.status != PROCESSING:
            return
        image_key, prompt, engine_name = row.image_key, row.prompt, row.engine_name
    try:
        outcome: dict[str, Any] = {
            "status": COMPLETED,
            "result_jpeg": edited_jpeg(get_media_store(), image_key, prompt, engine_name),
        }
    except DomainError as refusal:
        outcome = _failure(refusal)
    except Exception:
        log.exception("AI edit job %s failed", job_id)
        outcome = {"status": FAILED, "error_kind": UNEXPECTED}
    with session_scope() as db:
        db.execute(
            update(EditJob)
            .where(EditJob.id == uuid.UUID(job_id), EditJob.status == PROCESSING)
            .values(finished_at=utcnow(), **outcome)
        )


def _failure(refusal: DomainError) -> dict[str, Any]:
    return {
        "status": FAILED,
        "error_kind": type(refusal).__name__,
        "error_message": refusal.message[:500],
        "error_code": refusal.code,
        "error_status": refusal.status,
        "retry_after": getattr(refusal, "retry_after", None),
    }


def edit_on_worker(
    db_factory: DbFactory, image_key: str, prompt: str, engine_name: str | None = None
) -> bytes:
    """``edited_jpeg`` run by a job worker: queue it and wait (blocking, but the thread
    only waits). Raises the worker's refusal as the engine raised it; a queue out of
    reach, or no answer within the engine's timeout and a minute, is the documents'
    "Failed to edit photo", and the row is given up so a late worker leaves it be."""
    with db_factory() as db:
        row = EditJob(image_key=image_key, prompt=prompt, engine_name=engine_name)
        db.add(row)
        db.flush()
        job_id = row.id
    try:
        try:
            run_edit.send(str(job_id))
        except Exception as error:
            log.warning("Could not queue AI edit %s: %s", job_id, error)
            raise _unavailable() from error
        done = _wait(db_factory, job_id, get_settings().edit_timeout_seconds + QUEUE_WAIT_SECONDS)
    finally:
        with db_factory() as db:
            db.execute(delete(EditJob).where(EditJob.id == job_id))
    if done.status == COMPLETED and done.result_jpeg:
        return done.result_jpeg
    raise _refusal_of(done)


def _wait(db_factory: DbFactory, job_id: uuid.UUID, timeout: float) -> EditJob:
    deadline = time.monotonic() + timeout
    while True:
        with db_factory() as db:
            row = db.get(EditJob, job_id)
            if row.status != PROCESSING:
                db.expunge(row)
                return row
            if time.monotonic() >= deadline:
                log.warning("AI edit %s: no worker answered within %.0f s", job_id, timeout)
                raise _unavailable()
        time.sleep(POLL_SECONDS)


def _unavailable() -> DomainError:
    return DomainError(messages.FAILED_TO_EDIT_PHOTO, code="edit_failed", status=503)


def _refusal_of(row: EditJob) -> Exception:
    if row.error_kind == RateLimited.__name__:
        return RateLimited(
            row.error_message or messages.RATE_LIMIT_EXCEEDED,
            retry_after=row.retry_after or 60,
            code=row.error_code,
        )
    kind = _REFUSALS.get(row.error_kind or "")
    if kind is None or not row.error_message:
        return EditJobFailed(f"AI edit job {row.id} failed on the worker")
    return kind(row.error_message, code=row.error_code, status=row.error_status)


def delete_abandoned(db: Session) -> int:
    """Delete the rows no asker will take (housekeeping); how many went."""
    cutoff = utcnow() - ABANDONED_AFTER
    return db.execute(delete(EditJob).where(EditJob.created_at < cutoff)).rowcount
