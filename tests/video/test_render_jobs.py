"""Video renders as jobs: on the Redis queue, run by real worker processes
(``dramatiq prettyscore.job_worker``, what ``make worker`` starts) on the test database.

A render started by this process (standing for a web process) is rendered by a worker;
a worker killed in the middle of a render has its job run again by another; a job
delivered twice keeps its first clip; a queue out of reach fails the generation with the
documents' text instead of leaving it processing.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import time
import uuid
from pathlib import Path

from PIL import Image
from skimage import data
from sqlmodel import Session

from prettyscore.accounts import service as accounts
from prettyscore.core import messages
from prettyscore.core.media import LocalMediaStore, MediaOwner, key_from_url, media_url
from prettyscore.video import jobs as video_jobs
from prettyscore.video import service
from prettyscore.video.models import VideoGeneration, VideoStatus
from tests.fixtures.ai_provider import API_KEY
from tests.fixtures.job_queue import forget_the_broker, needs_redis
from tests.helpers.fake_ai_provider import Reply

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CREATE = "/v1/image_to_video"
TASK = "/v1/tasks/task-42"
CLIP = "/files/clip.mp4"
RENDER_WAIT_SECONDS = 90.0


def new_generation(db, media_dir: str) -> uuid.UUID:
    """A member's generation of the astronaut photo, started and committed."""
    user_id = accounts.sign_up(db, f"{uuid.uuid4().hex[:8]}@example.com", "secret1").user_id
    db.commit()
    buffer = io.BytesIO()
    Image.fromarray(data.astronaut()).save(buffer, format="JPEG")
    store = LocalMediaStore(Path(media_dir))
    url = media_url(store.save(buffer.getvalue(), owner=MediaOwner.member(user_id), ext="jpg"))
    job = service.start_generation(
        db, user_id, source_image_url=url, prompt=None, duration_seconds=2
    )
    db.commit()
    return job.id


def finished(db_engine, job_id: uuid.UUID, timeout: float = RENDER_WAIT_SECONDS):
    """The generation once it is no longer processing (waiting as the page polls)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with Session(db_engine) as db:
            job = db.get(VideoGeneration, job_id)
            if job.status != VideoStatus.PROCESSING:
                return job
        time.sleep(0.25)
    raise AssertionError(f"generation {job_id} still processing after {timeout} s")


def is_mp4(data_bytes: bytes) -> bool:
    return data_bytes[4:8] == b"ftyp"


@needs_redis
def test_a_render_sent_to_the_queue_is_rendered_by_a_worker_process(
    db, db_engine, job_queue, start_job_worker
):
    start_job_worker()
    job_id = new_generation(db, job_queue["MEDIA_DIR"])
    video_jobs.start_render(job_id)
    done = finished(db_engine, job_id)
    assert (done.status, done.error) == (VideoStatus.COMPLETED, None)
    clip = LocalMediaStore(Path(job_queue["MEDIA_DIR"])).read(key_from_url(done.video_url))
    assert is_mp4(clip)


@needs_redis
def test_a_render_whose_worker_is_killed_is_rendered_by_another_worker(
    db, db_engine, job_queue, start_job_worker, ai_provider, provider_clip
):
    video = {
        "VIDEO_ENGINE": "http",
        "VIDEO_API_BASE": ai_provider.url + "/v1",
        "VIDEO_API_KEY": API_KEY,
        "VIDEO_POLL_SECONDS": "0.05",
    }
    # The first worker's call hangs at the provider; the second one's is answered.
    ai_provider.script(
        "POST", CREATE, Reply(json={"id": "task-42"}, delay=60), Reply(json={"id": "task-42"})
    )
    url = ai_provider.host(CLIP, provider_clip[0], "video/mp4")
    ai_provider.script(
        "GET", TASK, Reply(json={"id": "task-42", "status": "SUCCEEDED", "output": [url]})
    )
    first = start_job_worker(**video)
    job_id = new_generation(db, job_queue["MEDIA_DIR"])
    video_jobs.start_render(job_id)
    ai_provider.wait_for("POST", CREATE)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    with Session(db_engine) as check:
        assert check.get(VideoGeneration, job_id).status == VideoStatus.PROCESSING
    start_job_worker(**video)
    done = finished(db_engine, job_id)
    assert (done.status, done.error) == (VideoStatus.COMPLETED, None)
    assert (
        LocalMediaStore(Path(job_queue["MEDIA_DIR"])).read(key_from_url(done.video_url))
        == (provider_clip[0])
    )
    assert len(ai_provider.received("POST", CREATE)) == 2


def test_a_render_delivered_twice_keeps_its_first_clip(db, db_engine, app_database, tmp_path):
    media = tmp_path / "media"
    job_id = new_generation(db, str(media))
    store = LocalMediaStore(media)
    session = contextlib.contextmanager(lambda: _committed(db_engine))
    service.render_generation(session, store, job_id)
    first = finished(db_engine, job_id, timeout=1)
    clips_after_first = sorted(media.rglob("*.mp4"))
    service.render_generation(session, store, job_id)
    again = finished(db_engine, job_id, timeout=1)
    assert first.status == VideoStatus.COMPLETED
    assert (again.video_url, again.finished_at) == (first.video_url, first.finished_at)
    assert sorted(media.rglob("*.mp4")) == clips_after_first and len(clips_after_first) == 1


def _committed(db_engine):
    with Session(db_engine, expire_on_commit=False) as session:
        yield session
        session.commit()


def test_a_queue_out_of_reach_fails_the_generation_with_the_documents_text(
    db, db_engine, app_database, app_settings, tmp_path
):
    app_settings(JOB_QUEUE="redis", REDIS_URL="redis://127.0.0.1:9/0")
    forget_the_broker()
    try:
        job_id = new_generation(db, str(tmp_path / "media"))
        video_jobs.start_render(job_id)
    finally:
        forget_the_broker()
    failed = finished(db_engine, job_id, timeout=1)
    assert (failed.status, failed.error) == (VideoStatus.FAILED, messages.VIDEO_GENERATION_FAILED)
