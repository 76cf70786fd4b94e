"""The video page's Generate button: a photo chosen a day ago, which housekeeping has
swept since, is asked for again, and no generation (free members have two) is spent.
The page says how many of the two free videos are left. The picker keeps a member's
latest few chosen photos only, and refuses an oversized image as the other pickers do."""

from __future__ import annotations

import io
import time
from datetime import timedelta

import pytest
from PIL import Image
from skimage import data
from sqlalchemy import func
from sqlmodel import select
from starlette.datastructures import UploadFile

from prettyscore.billing.models import Subscription
from prettyscore.core import messages
from prettyscore.core.db import session_scope
from prettyscore.core.media import MediaOwner, get_media_store, key_from_url
from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import get_settings
from prettyscore.photos import housekeeping, media_files
from prettyscore.photos.models import MediaFile
from prettyscore.video import service
from prettyscore.video.models import VideoGeneration
from prettyscore.video.state import VideoState
from tests.core.test_images import png_bomb
from tests.fixtures.handlers import as_user, call
from tests.fixtures.people import member_session


@pytest.fixture
def store(app_database, tmp_path, monkeypatch):
    """The app's own media store, in this test's folder."""
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    get_settings.cache_clear()
    yield get_media_store()
    get_settings.cache_clear()


def portrait() -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(data.astronaut()).resize((256, 256)).save(buffer, format="JPEG")
    return buffer.getvalue()


def generations() -> int:
    with session_scope() as db:
        return db.exec(select(func.count()).select_from(VideoGeneration)).one()


def test_a_photo_swept_since_it_was_chosen_is_asked_for_again(store):
    with session_scope() as db:
        someone = member_session(db)
    page = as_user(VideoState, someone)
    call(page, "open_page")
    key = service.stage_source(session_scope, store, someone.user_id, portrait())
    page._set_source(key)

    later = time.time() + media_files.LIFETIME.total_seconds() + 60
    housekeeping.run_once(store, session_scope, now=later)
    assert not store.exists(key)

    reply = call(page, "start")

    assert reply.toasts == [("error", messages.PLEASE_UPLOAD_IMAGE_FILE)]
    assert page.source_url == "" and page.phase == "idle"
    assert generations() == 0


def test_the_page_says_how_many_free_videos_are_left(store):
    with session_scope() as db:
        someone = member_session(db)
    page = as_user(VideoState, someone)
    call(page, "open_page")
    assert page.videos_left == "2 of 2 free videos left"

    for expected in ("1 of 2 free videos left", "0 of 2 free videos left"):
        with session_scope() as db:  # a generation, whatever became of it, counts
            db.add(VideoGeneration(user_id=someone.user_id, status="failed"))
        call(page, "open_page")
        assert page.videos_left == expected
    assert call(page, "open_page").toasts == []


def test_a_premium_member_has_unlimited_videos(store):
    with session_scope() as db:
        someone = member_session(db)
        db.add(
            Subscription(
                user_id=someone.user_id, status="active", expires_at=utcnow() + timedelta(days=30)
            )
        )
        db.add(VideoGeneration(user_id=someone.user_id, status="completed"))
    page = as_user(VideoState, someone)
    call(page, "open_page")
    assert page.videos_left == messages.UNLIMITED_VIDEOS


def chosen(data_bytes: bytes, name: str = "photo.jpg") -> list[UploadFile]:
    """What the picker uploads for one file."""
    return [UploadFile(io.BytesIO(data_bytes), filename=name)]


def picked_files(user_id) -> list[str]:
    with session_scope() as db:
        return list(
            db.exec(
                select(MediaFile.key)
                .where(MediaFile.user_id == user_id, MediaFile.kind == media_files.VIDEO_PICK)
                .order_by(MediaFile.created_at)
            ).all()
        )


def test_choosing_photo_after_photo_keeps_only_the_latest_few(store):
    with session_scope() as db:
        someone = member_session(db)
    page = as_user(VideoState, someone)
    call(page, "open_page")
    shown = []
    for _ in range(9):
        assert call(page, "choose_image", chosen(portrait())).toasts == []
        shown.append(key_from_url(page.source_url))

    kept = picked_files(someone.user_id)
    assert kept == shown[-3:]
    assert [store.exists(key) for key in shown] == [False] * 6 + [True] * 3
    folder = store.root / MediaOwner.member(someone.user_id).folder
    assert len(list(folder.iterdir())) == 3


def test_the_photo_a_video_was_started_from_is_never_retired(store):
    with session_scope() as db:
        someone = member_session(db)
    page = as_user(VideoState, someone)
    call(page, "open_page")
    call(page, "choose_image", chosen(portrait()))
    animated = key_from_url(page.source_url)
    with session_scope() as db:
        service.start_generation(
            db, someone.user_id, source_image_url=page.source_url, prompt="", duration_seconds=5
        )

    for _ in range(4):
        call(page, "choose_image", chosen(portrait()))

    assert store.exists(animated)
    assert len(picked_files(someone.user_id)) == 3


def test_an_image_with_too_many_pixels_gets_the_other_pickers_refusal(store):
    with session_scope() as db:
        someone = member_session(db)
    page = as_user(VideoState, someone)
    call(page, "open_page")

    reply = call(page, "choose_image", chosen(png_bomb(30000, 30000), "huge.png"))

    assert reply.toasts == [("error", messages.IMAGE_TOO_LARGE_DIMENSIONS)]
    assert page.source_url == ""
    assert picked_files(someone.user_id) == []
