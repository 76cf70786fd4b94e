"""The ``http`` edit engine: an OpenAI-compatible image-edit API does the edit.

``POST {EDIT_API_BASE}/images/edits`` as multipart form data: ``model``, ``prompt``,
``n=1``, ``size`` (the API's landscape, portrait or square size closest to the photo's
shape) and ``image`` (the photo as a PNG, at most 1536 pixels on its long side), with
``Authorization: Bearer EDIT_API_KEY``. The answer is ``{"data": [{"b64_json": ...}]}``
or ``{"data": [{"url": ...}]}`` (the URL is then downloaded, without the key).

The returned image is decoded like an upload (anything that is not an image is refused),
then brought back to the photo's own shape and size, so before and after line up. The
upscale preset is finished here: whatever size the API returns, the result ends at a
3840-pixel long side (the local engine's upscale).

Every failure is a DomainError the editor shows (``FAILED_TO_EDIT_PHOTO``, or the
provider's rate-limit and credit messages), and ``edit_photo`` then gives the free edit
back. Retries and timeouts: ``prettyscore.core.provider_http``.
"""

from __future__ import annotations

import base64
import binascii
import logging

import numpy as np
from PIL import Image, ImageOps

from prettyscore.core import constants, images, messages
from prettyscore.core.errors import DomainError
from prettyscore.core.provider_http import RETRY_DELAYS_SECONDS, ProviderClient
from prettyscore.core.settings import Settings, get_settings
from prettyscore.editing import presets
from prettyscore.editing.engines.base import require_prompt

log = logging.getLogger(__name__)

MAX_SENT_SIDE = 1536
# The sizes gpt-image-1 makes; a photo gets the one closest to its shape.
LANDSCAPE, PORTRAIT, SQUARE = (1536, 1024), (1024, 1536), (1024, 1024)


def requested_size(width: int, height: int) -> tuple[int, int]:
    """The API size for a photo of this shape: landscape, portrait or square."""
    ratio = width / height
    if ratio >= 1.2:
        return LANDSCAPE
    if ratio <= 1 / 1.2:
        return PORTRAIT
    return SQUARE


def as_sent(image: Image.Image) -> bytes:
    """The photo as the PNG the API receives (no larger than the API works at)."""
    sent = image.convert("RGB")
    if max(sent.size) > MAX_SENT_SIDE:
        sent = sent.copy()
        sent.thumbnail((MAX_SENT_SIDE, MAX_SENT_SIDE), Image.Resampling.LANCZOS)
    return images.encode_png(sent)


def fitted(result: Image.Image, size: tuple[int, int]) -> Image.Image:
    """``result`` cropped to the shape of ``size`` (centred) and resized to it."""
    if result.size == size:
        return result
    return ImageOps.fit(result, size, Image.Resampling.LANCZOS, centering=(0.5, 0.5))


def upscaled(result: Image.Image, source_size: tuple[int, int]) -> Image.Image:
    """The upscale preset's result: the photo's shape, 3840 pixels on the long side."""
    from prettyscore.editing.engines.local import upscale

    width, height = source_size
    factor = min(result.width / width, result.height / height)
    shaped = fitted(result, (max(1, round(width * factor)), max(1, round(height * factor))))
    return Image.fromarray(upscale(np.asarray(shaped.convert("RGB"))), "RGB")


class HttpEditEngine:
    """Edits through a remote image-edit API; settings are read at each edit."""

    name = "http"

    def __init__(self, *, retry_delays: tuple[float, ...] = RETRY_DELAYS_SECONDS):
        self.retry_delays = retry_delays

    def edit(self, image: Image.Image, prompt: str) -> Image.Image:
        text = require_prompt(prompt)
        settings = get_settings()
        with self._client(settings) as client:
            width, height = requested_size(*image.size)
            response = client.call(
                "POST",
                "images/edits",
                data={
                    "model": settings.edit_model,
                    "prompt": text,
                    "n": "1",
                    "size": f"{width}x{height}",
                },
                files={"image": ("photo.png", as_sent(image), "image/png")},
            )
            result = self._image_from(client, client.json_object(response))
        if presets.preset_named(text) == presets.UPSCALE_PROMPT:
            return upscaled(result, image.size)
        return fitted(result, image.size)

    def _client(self, settings: Settings) -> ProviderClient:
        if not settings.edit_api_key or not settings.edit_api_base:
            log.error("EDIT_ENGINE=http needs EDIT_API_KEY and EDIT_API_BASE; edits fail until set")
            raise DomainError(messages.FAILED_TO_EDIT_PHOTO, code="edit_failed", status=503)
        return ProviderClient(
            name="Photo edit",
            base=settings.edit_api_base,
            key=settings.edit_api_key,
            timeout_seconds=settings.edit_timeout_seconds,
            failure_message=messages.FAILED_TO_EDIT_PHOTO,
            failure_code="edit_failed",
            retry_delays=self.retry_delays,
        )

    def _image_from(self, client: ProviderClient, body: dict) -> Image.Image:
        """The first image of the answer, decoded and checked like an upload."""
        data = body.get("data")
        first = data[0] if isinstance(data, list) and data else None
        if not isinstance(first, dict):
            raise client.fail(f"no data[0] in the answer (keys: {sorted(body)[:10]})")
        if isinstance(first.get("b64_json"), str):
            try:
                raw = base64.b64decode(first["b64_json"], validate=True)
            except (binascii.Error, ValueError):
                raise client.fail("b64_json is not base64") from None
        elif isinstance(first.get("url"), str):
            raw = client.fetch(first["url"], max_bytes=constants.MAX_UPLOAD_BYTES)
        else:
            raise client.fail("data[0] has neither b64_json nor url")
        try:
            return images.decode_upload(raw)
        except DomainError as refused:
            raise client.fail(f"the result is not a usable image: {refused.message}") from None
