"""The ``http`` edit engine against a fake OpenAI-compatible provider on 127.0.0.1: what
it sends, the images it brings back, and what the member sees when the provider fails."""

from __future__ import annotations

import base64
import contextlib
import io
import logging
import socket

import numpy as np
import pytest
from PIL import Image
from sqlmodel import Session

from prettyscore.core import constants, images, messages
from prettyscore.core.errors import DomainError
from prettyscore.core.media import LocalMediaStore, MediaOwner, MediaStore
from prettyscore.editing import presets, service
from prettyscore.editing.engines import engine_named, get_edit_engine
from prettyscore.editing.engines.http import HttpEditEngine
from tests.fixtures.ai_provider import API_KEY
from tests.helpers.fake_ai_provider import Reply

EDITS = "/v1/images/edits"
PROMPT = "Make the sky a deep orange sunset"
SOURCE_SIZE = (300, 200)


def two_halves(width: int, height: int) -> Image.Image:
    """Red on the left, blue on the right: easy to recognise after a resize."""
    pixels = np.zeros((height, width, 3), np.uint8)
    pixels[:, : width // 2] = (220, 30, 30)
    pixels[:, width // 2 :] = (30, 30, 220)
    return Image.fromarray(pixels)


def encoded(image: Image.Image, fmt: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


def b64_answer(image: Image.Image) -> Reply:
    return Reply(json={"data": [{"b64_json": base64.b64encode(encoded(image)).decode()}]})


def source() -> Image.Image:
    return Image.new("RGB", SOURCE_SIZE, (128, 128, 128))


def assert_two_halves(image: Image.Image, size=SOURCE_SIZE) -> None:
    assert image.size == size
    pixels = np.asarray(image).astype(int)
    width = size[0]
    assert np.abs(pixels[:, : width // 2 - 12] - (220, 30, 30)).max() <= 6
    assert np.abs(pixels[:, width // 2 + 12 :] - (30, 30, 220)).max() <= 6


@pytest.fixture
def provider_env(ai_provider, app_settings):
    app_settings(
        EDIT_ENGINE="http",
        EDIT_API_BASE=ai_provider.url + "/v1",
        EDIT_API_KEY=API_KEY,
        EDIT_MODEL="gpt-image-1",
        EDIT_TIMEOUT_SECONDS=2,
    )
    return ai_provider


@pytest.fixture
def engine(provider_env) -> HttpEditEngine:
    """The engine with quick retries (the pauses are what the retry tests would wait)."""
    return HttpEditEngine(retry_delays=(0.01, 0.02))


def failure_of(engine, prompt: str = PROMPT) -> str:
    with pytest.raises(DomainError) as raised:
        engine.edit(source(), prompt)
    return raised.value.message


def test_an_edit_sends_the_photo_and_prompt_and_returns_the_providers_image(engine, provider_env):
    provider_env.script("POST", EDITS, b64_answer(two_halves(1536, 1024)))
    edited = engine.edit(source(), PROMPT)
    assert_two_halves(edited)

    (request,) = provider_env.received("POST", EDITS)
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.fields == {
        "model": "gpt-image-1",
        "prompt": PROMPT,
        "n": "1",
        "size": "1536x1024",
    }
    filename, content_type, data = request.files["image"]
    assert content_type == "image/png" and data.startswith(b"\x89PNG\r\n\x1a\n")
    sent = Image.open(io.BytesIO(data))
    assert sent.size == SOURCE_SIZE and sent.getpixel((10, 10)) == (128, 128, 128)


def test_the_settings_choose_the_http_engine(provider_env):
    assert get_edit_engine().name == "http" and engine_named("http").name == "http"


def test_an_answer_with_a_url_is_downloaded_without_the_key(engine, provider_env):
    url = provider_env.host(
        "/files/result.jpg", encoded(two_halves(1024, 1536), "JPEG"), "image/jpeg"
    )
    provider_env.script("POST", EDITS, Reply(json={"data": [{"url": url}]}))
    portrait = Image.new("RGB", (200, 300), (128, 128, 128))
    edited = engine.edit(portrait, PROMPT)
    assert edited.size == (200, 300)
    assert provider_env.received("POST", EDITS)[0].fields["size"] == "1024x1536"
    (download,) = provider_env.received("GET", "/files/result.jpg")
    assert "authorization" not in download.headers


def test_a_result_of_another_shape_is_brought_back_to_the_photos_shape(engine, provider_env):
    provider_env.script("POST", EDITS, b64_answer(two_halves(1024, 1024)))
    edited = engine.edit(Image.new("RGB", (400, 200)), PROMPT)
    assert edited.size == (400, 200)


def test_the_upscale_preset_ends_at_a_3840_pixel_long_side(engine, provider_env):
    provider_env.script("POST", EDITS, b64_answer(two_halves(1536, 1024)))
    upscaled = engine.edit(source(), presets.UPSCALE_PROMPT)
    assert upscaled.size == (presets.UPSCALE_LONG_SIDE, 2560)
    assert_two_halves(upscaled.resize(SOURCE_SIZE), SOURCE_SIZE)


def test_server_errors_are_retried_until_an_answer_succeeds(engine, provider_env):
    provider_env.script(
        "POST", EDITS, Reply(500), Reply(503, body=b"busy"), b64_answer(two_halves(1536, 1024))
    )
    assert_two_halves(engine.edit(source(), PROMPT))
    assert len(provider_env.received("POST", EDITS)) == 3


def test_server_errors_every_time_fail_after_three_attempts(engine, provider_env):
    provider_env.script("POST", EDITS, Reply(502, body=b"bad gateway", content_type="text/html"))
    assert failure_of(engine) == messages.FAILED_TO_EDIT_PHOTO
    assert len(provider_env.received("POST", EDITS)) == 3


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (429, messages.RATE_LIMIT_EXCEEDED),
        (402, messages.PLEASE_ADD_CREDITS),
        (400, messages.FAILED_TO_EDIT_PHOTO),
    ],
)
def test_client_errors_are_not_retried_and_say_what_happened(engine, provider_env, status, message):
    provider_env.script("POST", EDITS, Reply(status, {"error": {"message": "no"}}))
    assert failure_of(engine) == message
    assert len(provider_env.received("POST", EDITS)) == 1


def test_a_provider_slower_than_the_timeout_fails_without_a_second_charge(
    engine, provider_env, app_settings
):
    app_settings(EDIT_TIMEOUT_SECONDS=0.3)
    provider_env.script("POST", EDITS, Reply(delay=1.0, json={"data": []}))
    assert failure_of(engine) == messages.FAILED_TO_EDIT_PHOTO
    assert len(provider_env.received("POST", EDITS)) == 1


@pytest.mark.parametrize(
    "answer",
    [
        Reply(body=b"<html>Internal proxy page</html>", content_type="text/html"),
        Reply(json=["not", "an", "object"]),
        Reply(json={"data": []}),
        Reply(json={"data": [{"b64_json": "%%% not base64 %%%"}]}),
        Reply(json={"data": [{"b64_json": base64.b64encode(b"plain text, no image").decode()}]}),
        Reply(json={"data": [{"url": "file:///etc/passwd"}]}),
    ],
    ids=["html", "json-list", "no-image", "bad-base64", "not-an-image", "file-url"],
)
def test_an_answer_without_a_usable_image_fails(engine, provider_env, answer):
    provider_env.script("POST", EDITS, answer)
    assert failure_of(engine) == messages.FAILED_TO_EDIT_PHOTO


def test_the_key_never_reaches_the_log(engine, provider_env, caplog):
    echo = {"error": {"message": f"Incorrect API key provided: {API_KEY}"}}
    provider_env.script("POST", EDITS, Reply(401, echo))
    with caplog.at_level(logging.DEBUG):
        assert failure_of(engine) == messages.FAILED_TO_EDIT_PHOTO
    assert "401" in caplog.text and API_KEY not in caplog.text


def test_http_without_a_key_fails_at_the_first_edit_with_the_reason_logged(
    provider_env, app_settings, monkeypatch, caplog
):
    monkeypatch.delenv("EDIT_API_KEY")
    app_settings()
    with caplog.at_level(logging.ERROR):
        assert failure_of(get_edit_engine()) == messages.FAILED_TO_EDIT_PHOTO
    assert "EDIT_API_KEY" in caplog.text
    assert provider_env.requests == []


# --- Through edit_photo: only a successful remote edit uses a free edit -----------------


@pytest.fixture
def db_factory(db_engine):
    @contextlib.contextmanager
    def factory():
        with Session(db_engine, expire_on_commit=False) as session:
            yield session
            session.commit()

    return factory


def edit_stored_photo(db_factory, store: MediaStore, who: str) -> service.EditOutcome:
    owner = MediaOwner.visitor("visitor-secret-for-http-edits")
    key = store.save(encoded(source(), "JPEG"), owner=owner, ext="jpg")
    return service.edit_photo(
        db_factory,
        store,
        owner_key=who,
        image_key=key,
        prompt=PROMPT,
        media_owner=owner,
    )


def test_a_rate_limited_edit_uses_no_free_edit_and_a_success_uses_one(
    provider_env, db_factory, tmp_path
):
    store = LocalMediaStore(tmp_path / "media")
    provider_env.script("POST", EDITS, Reply(429, {"error": {"message": "slow down"}}))
    with pytest.raises(DomainError) as refused:
        edit_stored_photo(db_factory, store, "v:remote")
    assert refused.value.message == messages.RATE_LIMIT_EXCEEDED
    assert int(refused.value.headers["Retry-After"]) >= 1  # what a REST caller is told
    with db_factory() as db:
        assert service.edits_remaining(db, "v:remote") == constants.FREE_EDITS

    provider_env.script("POST", EDITS, b64_answer(two_halves(1536, 1024)))
    outcome = edit_stored_photo(db_factory, store, "v:remote")
    assert outcome.remaining == constants.FREE_EDITS - 1
    assert_two_halves(images.decode_upload(store.read(outcome.image_key)))


def test_a_provider_that_cannot_be_reached_fails_the_edit(engine, app_settings):
    with socket.socket() as closed:  # a port that was free a moment ago: nobody listens
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    app_settings(EDIT_API_BASE=f"http://127.0.0.1:{port}/v1")
    assert failure_of(engine) == messages.FAILED_TO_EDIT_PHOTO
