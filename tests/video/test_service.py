"""Video generations on a real database: the free allowance under concurrency, premium,
running a job to completion or failure, and who may see a job."""

from __future__ import annotations

import contextlib
import io
import threading
from datetime import timedelta

import pytest
from PIL import Image
from skimage import data
from sqlmodel import Session, select

from prettyscore.accounts import service as accounts
from prettyscore.billing.models import Subscription
from prettyscore.core import messages
from prettyscore.core.errors import NotFound, PermissionDenied
from prettyscore.core.media import MediaOwner, MediaStore, key_from_url, media_url
from prettyscore.core.model_types import utcnow
from prettyscore.video import service
from prettyscore.video.models import VideoGeneration


@pytest.fixture
def store(tmp_path) -> MediaStore:
    return MediaStore(tmp_path / "media")


def member(db, name: str):
    user_id = accounts.sign_up(db, f"{name}@example.com", "secret1").user_id
    db.commit()
    return user_id


def photo_url(store: MediaStore, user_id) -> str:
    buffer = io.BytesIO()
    Image.fromarray(data.astronaut()).save(buffer, format="JPEG")
    return media_url(store.save(buffer.getvalue(), owner=MediaOwner.member(user_id), ext="jpg"))


def unread_photo_url(user_id) -> str:
    """A well-formed URL in the member's folder, for starts whose job is never rendered."""
    return f"/media/u/{user_id}/{'a' * 32}.jpg"


def start(engine, user_id, url=None) -> str:
    """One start in its own transaction, as one request would do; returns the outcome."""
    url = url or unread_photo_url(user_id)
    with Session(engine) as db:
        try:
            service.start_generation(
                db, user_id, source_image_url=url, prompt=None, duration_seconds=5
            )
            db.commit()
            return "started"
        except PermissionDenied as error:
            db.rollback()
            return error.message


def test_five_parallel_starts_with_two_free_start_exactly_two(db, db_engine):
    user_id = member(db, "racer")
    outcomes: list[str] = []
    barrier = threading.Barrier(5)

    def attempt():
        barrier.wait()
        outcomes.append(start(db_engine, user_id))

    threads = [threading.Thread(target=attempt) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == sorted(["started"] * 2 + [messages.VIDEO_FREE_LIMIT] * 3)
    with Session(db_engine) as check:
        assert len(check.exec(select(VideoGeneration)).all()) == 2


def test_a_premium_member_has_no_limit_until_the_plan_expires(db, db_engine):
    user_id = member(db, "premium")
    db.add(Subscription(user_id=user_id, status="active", expires_at=utcnow() + timedelta(days=30)))
    db.commit()
    assert [start(db_engine, user_id) for _ in range(4)] == ["started"] * 4

    subscription = db.exec(select(Subscription)).one()
    subscription.expires_at = utcnow() - timedelta(seconds=1)
    db.add(subscription)
    db.commit()
    assert start(db_engine, user_id) == messages.VIDEO_FREE_LIMIT


def test_a_job_runs_to_a_playable_clip_in_the_members_folder(db, db_engine, store):
    user_id = member(db, "director")
    job = service.start_generation(
        db,
        user_id,
        source_image_url=photo_url(store, user_id),
        prompt="Hello world",
        duration_seconds=2,
    )
    db.commit()
    service.render_generation(lambda: contextlib.closing(_committing(db_engine)), store, job.id)
    db.expire_all()
    done = db.get(VideoGeneration, job.id)
    assert done.status == "completed" and done.finished_at is not None
    key = key_from_url(done.video_url)
    assert key.startswith(f"u/{user_id}/") and key.endswith(".mp4")
    assert store.read(key)[4:8] == b"ftyp"  # an MP4 container


def test_a_job_whose_photo_is_gone_fails_with_the_documents_message(db, db_engine, store):
    user_id = member(db, "unlucky")
    url = photo_url(store, user_id)
    job = service.start_generation(
        db, user_id, source_image_url=url, prompt=None, duration_seconds=1
    )
    db.commit()
    store.delete(key_from_url(url))
    service.render_generation(lambda: contextlib.closing(_committing(db_engine)), store, job.id)
    db.expire_all()
    failed = db.get(VideoGeneration, job.id)
    assert (failed.status, failed.error, failed.video_url) == (
        "failed",
        messages.VIDEO_GENERATION_FAILED,
        None,
    )


def test_members_see_only_their_own_jobs_and_stale_jobs_are_failed(db, store):
    owner, other = member(db, "owner"), member(db, "other")
    job = service.start_generation(
        db, owner, source_image_url=unread_photo_url(owner), prompt=None, duration_seconds=5
    )
    assert service.get_generation(db, owner, job.id).id == job.id
    for stranger_view in (
        lambda: service.get_generation(db, other, job.id),
        lambda: service.get_generation(db, owner, "not-a-uuid"),
    ):
        with pytest.raises(NotFound):
            stranger_view()
    assert service.fail_stale_generations(db) == 0  # a fresh job may still be rendering
    job.created_at = utcnow() - timedelta(hours=1)
    db.add(job)
    db.flush()
    assert service.fail_stale_generations(db) == 1
    assert db.get(VideoGeneration, job.id).status == "failed"


class _committing:
    """A session that commits when closed: what session_scope does for the app."""

    def __init__(self, engine):
        self.session = Session(engine, expire_on_commit=False)

    def __getattr__(self, name):
        return getattr(self.session, name)

    def close(self):
        self.session.commit()
        self.session.close()
