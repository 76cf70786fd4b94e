"""AI edits run by real job worker processes on the Redis queue, as every page and the
API ask for them (``editing.edit_photo``): the edited photo comes back through the
asker's own store, the free edit is spent once, the engine's refusals reach the member
with their own text, a worker killed mid-edit is replaced by another, and a queue out of
reach fails with the documents' text and spends nothing."""

from __future__ import annotations

import base64
import io
import os
import signal
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from PIL import Image
from skimage import data
from sqlmodel import Session, select

from prettyscore.core import messages
from prettyscore.core.db import session_scope
from prettyscore.core.errors import DomainError, ValidationFailed
from prettyscore.core.media import LocalMediaStore, MediaOwner
from prettyscore.core.rate_limits import RateLimited
from prettyscore.editing import jobs as editing_jobs
from prettyscore.editing import service
from prettyscore.editing.models import EditJob
from prettyscore.photos import housekeeping
from tests.fixtures.ai_provider import API_KEY
from tests.fixtures.job_queue import forget_the_broker, needs_redis
from tests.helpers.fake_ai_provider import Reply

EDITS = "/v1/images/edits"
VISITOR = "v:queued-visitor"


def stored_photo(store: LocalMediaStore, owner: MediaOwner) -> str:
    buffer = io.BytesIO()
    Image.fromarray(data.astronaut()).resize((256, 256)).save(buffer, format="JPEG")
    return store.save(buffer.getvalue(), owner=owner, ext="jpg")


def edit(store, key: str, owner: MediaOwner, prompt: str = "brighter"):
    return service.edit_photo(
        session_scope, store, owner_key=VISITOR, image_key=key, prompt=prompt, media_owner=owner
    )


def edit_rows(db_engine) -> list[EditJob]:
    with Session(db_engine) as db:
        return list(db.exec(select(EditJob)).all())


def edits_left(db_engine) -> int:
    with Session(db_engine) as db:
        return service.edits_remaining(db, VISITOR)


@pytest.fixture
def queued(job_queue):
    """The store the worker shares, and a visitor's photo in it."""
    store = LocalMediaStore(Path(job_queue["MEDIA_DIR"]))
    owner = MediaOwner.visitor("queued-visitor-secret")
    return store, owner, stored_photo(store, owner)


def provider_edit(ai_provider) -> dict[str, str]:
    """The settings of the remote edit engine, on the fake provider."""
    return {
        "EDIT_ENGINE": "http",
        "EDIT_API_BASE": ai_provider.url + "/v1",
        "EDIT_API_KEY": API_KEY,
        "EDIT_TIMEOUT_SECONDS": "20",
    }


def provider_image() -> Reply:
    buffer = io.BytesIO()
    Image.new("RGB", (256, 256), (200, 30, 30)).save(buffer, format="PNG")
    return Reply(json={"data": [{"b64_json": base64.b64encode(buffer.getvalue()).decode()}]})


@needs_redis
def test_an_edit_made_by_a_worker_comes_back_through_the_askers_store_and_counts_once(
    db_engine, queued, start_job_worker
):
    store, owner, key = queued
    start_job_worker()
    outcome = edit(store, key, owner)
    edited = Image.open(io.BytesIO(store.read(outcome.image_key)))
    assert (edited.format, edited.size) == ("JPEG", (256, 256))
    assert outcome.image_key.startswith(owner.folder + "/")
    assert outcome.remaining == edits_left(db_engine) == 4
    assert edit_rows(db_engine) == []  # the photo was taken and its row deleted


@needs_redis
def test_an_instruction_the_engine_cannot_carry_out_is_refused_with_its_text(
    db_engine, queued, start_job_worker
):
    store, owner, key = queued
    start_job_worker()
    with pytest.raises(ValidationFailed) as refused:
        edit(store, key, owner, prompt="turn me into a dragon")
    assert refused.value.message == messages.EDIT_NOT_SUPPORTED
    assert edits_left(db_engine) == 5 and edit_rows(db_engine) == []


@needs_redis
def test_the_providers_rate_limit_reaches_the_member_with_its_wait(
    db_engine, queued, start_job_worker, ai_provider
):
    store, owner, key = queued
    ai_provider.script("POST", EDITS, Reply(429, {"error": "slow down"}))
    start_job_worker(**provider_edit(ai_provider))
    with pytest.raises(RateLimited) as limited:
        edit(store, key, owner)
    assert limited.value.message == messages.RATE_LIMIT_EXCEEDED
    assert limited.value.retry_after > 0 and edits_left(db_engine) == 5


@needs_redis
def test_an_edit_whose_worker_is_killed_is_made_by_another_worker(
    db_engine, queued, start_job_worker, ai_provider
):
    store, owner, key = queued
    # The first worker's call hangs at the provider; the second one's is answered.
    ai_provider.script("POST", EDITS, Reply(json={}, delay=60), provider_image())
    first = start_job_worker(**provider_edit(ai_provider))
    outcome: list = []
    asker = threading.Thread(target=lambda: outcome.append(edit(store, key, owner)))
    asker.start()
    ai_provider.wait_for("POST", EDITS)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    start_job_worker(**provider_edit(ai_provider))
    asker.join(timeout=90)
    assert not asker.is_alive() and len(outcome) == 1
    edited = Image.open(io.BytesIO(store.read(outcome[0].image_key))).convert("RGB")
    assert edited.getpixel((128, 128)) == pytest.approx((200, 30, 30), abs=6)
    assert len(ai_provider.received("POST", EDITS)) == 2
    assert edits_left(db_engine) == 4 and edit_rows(db_engine) == []


def test_a_queue_out_of_reach_fails_with_the_documents_text_and_spends_nothing(
    db_engine, app_database, app_settings, tmp_path
):
    store = LocalMediaStore(tmp_path / "media")
    owner = MediaOwner.visitor("unreachable-visitor-secret")
    key = stored_photo(store, owner)
    app_settings(JOB_QUEUE="redis", REDIS_URL="redis://127.0.0.1:9/0")
    forget_the_broker()
    try:
        with pytest.raises(DomainError) as failed:
            edit(store, key, owner)
    finally:
        forget_the_broker()
    assert failed.value.message == messages.FAILED_TO_EDIT_PHOTO
    assert edits_left(db_engine) == 5 and edit_rows(db_engine) == []
    assert sorted(p.name for p in (tmp_path / "media").rglob("*.jpg")) == [Path(key).name]


def test_housekeeping_deletes_edits_no_asker_took(db, db_engine, app_database, tmp_path):
    old = EditJob(image_key="v/x/y.jpg", prompt="brighter", result_jpeg=b"\xff\xd8")
    old.created_at -= editing_jobs.ABANDONED_AFTER + timedelta(minutes=1)
    recent = EditJob(image_key="v/x/z.jpg", prompt="brighter")
    db.add_all([old, recent])
    db.commit()
    housekeeping.run_once(LocalMediaStore(tmp_path / "media"))
    assert [row.image_key for row in edit_rows(db_engine)] == ["v/x/z.jpg"]
