"""The ``http`` video engine against a fake Runway-style task API on 127.0.0.1: the task
it starts, the clip it brings back, and no file at all whenever the provider fails."""

from __future__ import annotations

import base64
import contextlib
import io

import pytest
from PIL import Image
from skimage import data
from sqlmodel import Session

from prettyscore.accounts import service as accounts
from prettyscore.core import messages
from prettyscore.core.errors import DomainError
from prettyscore.core.media import LocalMediaStore, MediaOwner, key_from_url, media_url
from prettyscore.video import service
from prettyscore.video.engines import get_video_engine
from prettyscore.video.engines.http import HttpVideoEngine, describe_clip
from prettyscore.video.models import VideoGeneration
from tests.fixtures.ai_provider import API_KEY
from tests.helpers.fake_ai_provider import Reply

CREATE = "/v1/image_to_video"
TASK = "/v1/tasks/task-42"
CLIP = "/files/clip.mp4"
PROMPT = "A slow smile as the wind moves the hair"


def task(status: str, **more) -> Reply:
    return Reply(json={"id": "task-42", "status": status, **more})


@pytest.fixture
def provider(ai_provider, app_settings):
    app_settings(
        VIDEO_ENGINE="http",
        VIDEO_API_BASE=ai_provider.url + "/v1",
        VIDEO_API_KEY=API_KEY,
        VIDEO_MODEL="gen4_turbo",
        VIDEO_POLL_SECONDS=0.02,
        VIDEO_TIMEOUT_SECONDS=3,
    )
    ai_provider.script("POST", CREATE, Reply(json={"id": "task-42"}))
    return ai_provider


@pytest.fixture
def engine(provider) -> HttpVideoEngine:
    return HttpVideoEngine(retry_delays=(0.01, 0.02))


def photo(size=(400, 300)) -> Image.Image:
    return Image.fromarray(data.astronaut()).resize(size)


def render(engine, tmp_path, seconds: int = 5):
    return engine.render(
        photo(), prompt=PROMPT, duration_seconds=seconds, output_path=tmp_path / "out.mp4"
    )


def failure_of(engine, tmp_path) -> str:
    with pytest.raises(DomainError) as raised:
        render(engine, tmp_path)
    assert list(tmp_path.iterdir()) == []  # no clip, no partial download
    return raised.value.message


def test_a_finished_task_gives_the_providers_clip(engine, provider, provider_clip, tmp_path):
    clip_bytes, clip_info = provider_clip
    url = provider.host(CLIP, clip_bytes, "video/mp4")
    provider.script("GET", TASK, task("PENDING"), task("RUNNING"), task("SUCCEEDED", output=[url]))
    info = render(engine, tmp_path, seconds=3)

    assert info.path == tmp_path / "out.mp4" and info.path.read_bytes() == clip_bytes
    assert abs(info.duration_seconds - clip_info.duration_seconds) < 0.1
    assert (info.width, info.height, info.fps) == (320, 180, 24)
    assert info.size_bytes == len(clip_bytes)
    assert [p.name for p in tmp_path.iterdir()] == ["out.mp4"]

    (create,) = provider.received("POST", CREATE)
    assert create.headers["authorization"] == f"Bearer {API_KEY}"
    assert create.headers["x-runway-version"] == "2024-11-06"
    body = create.json
    assert (body["model"], body["promptText"], body["duration"], body["ratio"]) == (
        "gen4_turbo",
        PROMPT,
        5,
        "1280:720",
    )
    assert body["promptImage"].startswith("data:image/jpeg;base64,")
    sent = Image.open(io.BytesIO(base64.b64decode(body["promptImage"].split(",", 1)[1])))
    assert sent.size == (400, 300)
    assert len(provider.received("GET", TASK)) == 3
    assert "authorization" not in provider.received("GET", CLIP)[0].headers


@pytest.mark.parametrize("status", ["FAILED", "CANCELLED"])
def test_a_task_that_fails_gives_the_documents_message_and_no_file(
    engine, provider, tmp_path, status
):
    provider.script("GET", TASK, task("RUNNING"), task(status, failure="Content moderated"))
    assert failure_of(engine, tmp_path) == messages.VIDEO_GENERATION_FAILED


def test_a_task_that_never_finishes_fails_at_the_time_limit_and_is_cancelled(
    engine, provider, app_settings, tmp_path
):
    app_settings(VIDEO_TIMEOUT_SECONDS=0.3)
    provider.script("GET", TASK, task("THROTTLED"), task("RUNNING"))
    provider.script("DELETE", TASK, Reply(204, body=b""))
    assert failure_of(engine, tmp_path) == messages.VIDEO_GENERATION_FAILED
    assert len(provider.received("GET", TASK)) >= 3
    assert len(provider.received("DELETE", TASK)) == 1


@pytest.mark.parametrize(
    "answer",
    [
        Reply(body=b"<html>gateway</html>", content_type="text/html"),
        Reply(json={"task": "no id here"}),
        Reply(json={"id": "../../etc"}),
    ],
    ids=["html", "no-id", "odd-id"],
)
def test_a_malformed_create_answer_fails(engine, provider, tmp_path, answer):
    provider.script("POST", CREATE, answer)
    assert failure_of(engine, tmp_path) == messages.VIDEO_GENERATION_FAILED
    assert provider.received("GET", TASK) == []


@pytest.mark.parametrize(
    ("status", "message"),
    [(429, messages.RATE_LIMIT_EXCEEDED), (402, messages.PLEASE_ADD_CREDITS)],
)
def test_the_providers_rate_limit_and_credits_are_told_apart(
    engine, provider, tmp_path, status, message
):
    provider.script("POST", CREATE, Reply(status, {"error": "no"}))
    assert failure_of(engine, tmp_path) == message
    assert len(provider.received("POST", CREATE)) == 1


@pytest.mark.parametrize(
    "download",
    [b"<html>expired link</html>", b"\x00\x00\x00\x18ftypisom" + b"\x00" * 4000],
    ids=["html", "broken-mp4"],
)
def test_a_download_that_is_not_a_video_is_refused(engine, provider, tmp_path, download):
    url = provider.host(CLIP, download, "video/mp4")
    provider.script("GET", TASK, task("SUCCEEDED", output=[url]))
    assert failure_of(engine, tmp_path) == messages.VIDEO_GENERATION_FAILED


def test_a_provider_clip_is_described_from_the_file(provider_clip, tmp_path):
    clip_bytes, clip_info = provider_clip
    path = tmp_path / "clip.mp4"
    path.write_bytes(clip_bytes)
    info = describe_clip(path)
    assert info is not None and abs(info.duration_seconds - clip_info.duration_seconds) < 0.1
    path.write_bytes(b"not a video at all")
    assert describe_clip(path) is None


def test_http_without_a_key_fails_at_the_first_render(
    provider, monkeypatch, app_settings, tmp_path
):
    monkeypatch.delenv("VIDEO_API_KEY")
    app_settings()
    assert failure_of(get_video_engine(), tmp_path) == messages.VIDEO_GENERATION_FAILED
    assert provider.requests == []


# --- Through render_generation: the row ends completed or failed -------------------------


class _Committing:
    """A session that commits when closed: what session_scope does for the app."""

    def __init__(self, engine):
        self.session = Session(engine, expire_on_commit=False)

    def __getattr__(self, name):
        return getattr(self.session, name)

    def close(self):
        self.session.commit()
        self.session.close()


def run_generation(db, db_engine, store) -> VideoGeneration:
    user_id = accounts.sign_up(db, "remote@example.com", "secret1").user_id
    db.commit()
    buffer = io.BytesIO()
    photo().save(buffer, format="JPEG")
    url = media_url(store.save(buffer.getvalue(), owner=MediaOwner.member(user_id), ext="jpg"))
    job = service.start_generation(
        db, user_id, source_image_url=url, prompt=PROMPT, duration_seconds=5
    )
    db.commit()
    service.render_generation(lambda: contextlib.closing(_Committing(db_engine)), store, job.id)
    db.expire_all()
    return db.get(VideoGeneration, job.id)


def test_a_generation_with_the_http_engine_ends_with_a_playable_video(
    db, db_engine, provider, provider_clip, tmp_path
):
    assert get_video_engine().name == "http"
    store = LocalMediaStore(tmp_path / "media")
    url = provider.host(CLIP, provider_clip[0], "video/mp4")
    provider.script("GET", TASK, task("RUNNING"), task("SUCCEEDED", output=[url]))
    done = run_generation(db, db_engine, store)
    assert done.status == "completed" and done.error is None
    assert store.read(key_from_url(done.video_url)) == provider_clip[0]


def test_a_generation_the_provider_refuses_ends_failed(db, db_engine, provider, tmp_path):
    store = LocalMediaStore(tmp_path / "media")
    provider.script("POST", CREATE, Reply(429, {"error": "Too many requests"}))
    failed = run_generation(db, db_engine, store)
    assert (failed.status, failed.error, failed.video_url) == (
        "failed",
        messages.VIDEO_GENERATION_FAILED,
        None,
    )
