"""The ``http`` video engine: a remote image-to-video task API makes the clip.

The API shape is Runway's (``VIDEO_API_BASE``, default ``https://api.dev.runwayml.com/v1``),
with ``Authorization: Bearer VIDEO_API_KEY`` and ``X-Runway-Version: 2024-11-06``:

1. ``POST /image_to_video`` with JSON ``{model, promptImage, promptText, duration,
   ratio}``: the photo as a JPEG data URI, the member's prompt (or the default one), the
   provider's duration nearest above the one asked for (5 or 10 s) and the landscape,
   portrait or square output closest to the photo → ``{"id": ...}``;
2. ``GET /tasks/{id}`` every ``VIDEO_POLL_SECONDS`` → ``{"status": PENDING | THROTTLED |
   RUNNING | SUCCEEDED | FAILED | CANCELLED, "output": [video URL], "failure": ...}``;
3. the first output URL is downloaded (without the key) to a hidden file next to
   ``output_path``, checked to be an MP4 whose frames decode, and renamed into place.

The whole job (create, polling, download) must end within ``VIDEO_TIMEOUT_SECONDS``; a
task still running then is cancelled (``DELETE /tasks/{id}``, best effort) so it is not
paid for. Any failure raises ``DomainError(messages.VIDEO_GENERATION_FAILED)`` (or the
provider's rate-limit and credit messages on create) and leaves no file behind.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import logging
import os
import pathlib
import time
import uuid

import cv2
from PIL import Image

from prettyscore.core import images, messages
from prettyscore.core.errors import DomainError
from prettyscore.core.provider_http import RETRY_DELAYS_SECONDS, ProviderClient
from prettyscore.core.settings import Settings, get_settings
from prettyscore.video.engines.base import VideoInfo, clamp_duration

log = logging.getLogger(__name__)

API_VERSION = "2024-11-06"
PROVIDER_DURATIONS = (5, 10)
MAX_SENT_SIDE = 1600
MAX_VIDEO_BYTES = 200 * 1024 * 1024
# The provider's output sizes ("width:height"): landscape, portrait, square.
LANDSCAPE, PORTRAIT, SQUARE = "1280:720", "720:1280", "960:960"
WAITING = frozenset({"PENDING", "THROTTLED", "RUNNING"})
FINISHED_BADLY = frozenset({"FAILED", "CANCELLED"})


def provider_duration(seconds: int | None) -> int:
    """The provider's clip length for the one asked for: the nearest one not shorter."""
    wanted = clamp_duration(seconds)
    return next((d for d in PROVIDER_DURATIONS if d >= wanted), PROVIDER_DURATIONS[-1])


def ratio_for(width: int, height: int) -> str:
    """The provider's output shape closest to the photo's."""
    ratio = width / height
    if ratio >= 1.2:
        return LANDSCAPE
    if ratio <= 1 / 1.2:
        return PORTRAIT
    return SQUARE


def data_uri(image: Image.Image) -> str:
    """The photo as a JPEG data URI (no metadata, at most MAX_SENT_SIDE pixels)."""
    sent = image.convert("RGB")
    if max(sent.size) > MAX_SENT_SIDE:
        sent = sent.copy()
        sent.thumbnail((MAX_SENT_SIDE, MAX_SENT_SIDE), Image.Resampling.LANCZOS)
    encoded = base64.b64encode(images.encode_jpeg(sent, quality=90)).decode("ascii")
    return f"data:image/jpeg;base64,{encoded}"


def describe_clip(path: pathlib.Path) -> VideoInfo | None:
    """The clip's figures if it is an MP4 whose first frame decodes, else None."""
    with path.open("rb") as file:
        if file.read(12)[4:8] != b"ftyp":
            return None
    capture = cv2.VideoCapture(str(path))
    try:
        if not capture.isOpened():
            return None
        decoded, _frame = capture.read()
        fps = capture.get(cv2.CAP_PROP_FPS)
        frames = capture.get(cv2.CAP_PROP_FRAME_COUNT)
        width = int(capture.get(cv2.CAP_PROP_FRAME_WIDTH))
        height = int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
    finally:
        capture.release()
    if not decoded or fps <= 0 or frames <= 0 or width <= 0 or height <= 0:
        return None
    return VideoInfo(
        path=path,
        duration_seconds=frames / fps,
        width=width,
        height=height,
        fps=round(fps),
        size_bytes=path.stat().st_size,
    )


class HttpVideoEngine:
    """Image-to-video through a remote task API; settings are read at each render."""

    name = "http"

    def __init__(self, *, retry_delays: tuple[float, ...] = RETRY_DELAYS_SECONDS):
        self.retry_delays = retry_delays

    def render(
        self,
        image: Image.Image,
        *,
        prompt: str | None,
        duration_seconds: int,
        output_path: pathlib.Path,
    ) -> VideoInfo:
        settings = get_settings()
        deadline = time.monotonic() + settings.video_timeout_seconds
        output_path = pathlib.Path(output_path)
        temp_path = output_path.with_name(f".{output_path.name}.{uuid.uuid4().hex[:12]}.part")
        try:
            with self._client(settings) as client:
                task_id = self._create(client, settings, image, prompt, duration_seconds)
                video_url = self._wait(client, settings, task_id, deadline)
                remaining = max(1.0, deadline - time.monotonic())
                client.fetch_to(
                    video_url, temp_path, max_bytes=MAX_VIDEO_BYTES, timeout_seconds=remaining
                )
                info = describe_clip(temp_path)
                if info is None:
                    raise client.fail("the download is not a decodable MP4")
            os.replace(temp_path, output_path)
            return dataclasses.replace(info, path=output_path)
        except DomainError:
            raise
        except Exception as error:
            log.warning("remote video render failed: %s", error, exc_info=True)
            raise DomainError(messages.VIDEO_GENERATION_FAILED, code="video_failed") from error
        finally:
            with contextlib.suppress(OSError):
                temp_path.unlink()  # gone already after the rename; a partial file otherwise

    def _client(self, settings: Settings) -> ProviderClient:
        if not settings.video_api_key or not settings.video_api_base:
            log.error("VIDEO_ENGINE=http needs VIDEO_API_KEY and VIDEO_API_BASE")
            raise DomainError(messages.VIDEO_GENERATION_FAILED, code="video_failed", status=503)
        return ProviderClient(
            name="Video",
            base=settings.video_api_base,
            key=settings.video_api_key,
            timeout_seconds=min(60.0, settings.video_timeout_seconds),
            failure_message=messages.VIDEO_GENERATION_FAILED,
            failure_code="video_failed",
            headers={"X-Runway-Version": API_VERSION},
            retry_delays=self.retry_delays,
        )

    def _create(
        self,
        client: ProviderClient,
        settings: Settings,
        image: Image.Image,
        prompt: str | None,
        duration_seconds: int,
    ) -> str:
        """Start the task; its id."""
        payload = {
            "model": settings.video_model,
            "promptImage": data_uri(image),
            "promptText": ((prompt or "").strip() or messages.VIDEO_DEFAULT_PROMPT)[:1000],
            "duration": provider_duration(duration_seconds),
            "ratio": ratio_for(*image.size),
        }
        body = client.json_object(client.call("POST", "image_to_video", json=payload))
        task_id = body.get("id")
        if not isinstance(task_id, str) or not task_id or "/" in task_id:
            raise client.fail(f"the create answer has no usable task id: {str(body)[:200]}")
        return task_id

    def _wait(
        self, client: ProviderClient, settings: Settings, task_id: str, deadline: float
    ) -> str:
        """Poll the task until it succeeds (its video URL), fails, or time runs out."""
        while True:
            task = client.json_object(client.call("GET", f"tasks/{task_id}"))
            status = task.get("status")
            if status == "SUCCEEDED":
                output = task.get("output")
                if isinstance(output, list) and output and isinstance(output[0], str):
                    return output[0]
                raise client.fail(f"task {task_id} succeeded without an output URL")
            if status in FINISHED_BADLY:
                failure = task.get("failure") or task.get("failureCode") or "no reason given"
                raise client.fail(f"task {task_id} ended {status}: {str(failure)[:300]}")
            if status not in WAITING:
                raise client.fail(f"task {task_id} has an unknown status {str(status)[:50]!r}")
            if time.monotonic() + settings.video_poll_seconds > deadline:
                self._cancel(client, task_id)
                raise client.fail(f"task {task_id} still {status} at the time limit")
            time.sleep(settings.video_poll_seconds)

    def _cancel(self, client: ProviderClient, task_id: str) -> None:
        """Ask the provider to drop a task nobody will wait for (best effort)."""
        with contextlib.suppress(DomainError):
            client.call("DELETE", f"tasks/{task_id}")
