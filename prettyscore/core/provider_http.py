"""Calling an outside AI provider over HTTP: retries, the user's messages, safe downloads.

The photo-edit and image-to-video ``http`` engines share these rules:

- a 5xx answer or a connection that could not be made is retried (twice, after a short,
  growing pause); the provider did not do the work, so asking again is safe;
- a read timeout is *not* retried: the provider got the request and may still be doing
  (and charging for) it, and the member has already waited the whole timeout;
- 429 is the provider's rate limit (``RATE_LIMIT_EXCEEDED``, with its ``Retry-After``
  passed on) and 402 its credits (``PLEASE_ADD_CREDITS``), neither retried; anything
  else is the caller's failure message, with the real reason in the log;
- results are downloaded without the API key (they live on other hosts, e.g. signed
  storage URLs) and with a size limit;
- the key is never written to a log: it is masked out of every logged reason.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx
from PIL import Image

from prettyscore.core import messages
from prettyscore.core.errors import DomainError
from prettyscore.core.rate_limits import RateLimited

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_SECONDS = 10.0
RETRY_DELAYS_SECONDS = (0.5, 1.5)
# How long a member waits after the provider's rate limit, when it does not say.
DEFAULT_RETRY_AFTER_SECONDS = 60
_RETRIED_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError)


def _retry_after(response: httpx.Response) -> int:
    """The provider's wait in seconds, as its ``Retry-After`` gives it, else a minute."""
    given = response.headers.get("Retry-After", "").strip()
    return max(1, int(given)) if given.isdigit() else DEFAULT_RETRY_AFTER_SECONDS


class ProviderClient:
    """One provider's API (``base`` URL and bearer ``key``) for the length of one job.

    ``failure_message``/``failure_code`` make the error the member sees for any failure
    that is not the provider's rate limit or credits.
    """

    def __init__(
        self,
        *,
        name: str,
        base: str,
        key: str,
        timeout_seconds: float,
        failure_message: str,
        failure_code: str,
        headers: dict[str, str] | None = None,
        retry_delays: tuple[float, ...] = RETRY_DELAYS_SECONDS,
    ):
        self.name = name
        self.failure_message = failure_message
        self.failure_code = failure_code
        self.retry_delays = retry_delays
        self._key = key
        self._timeout = httpx.Timeout(timeout_seconds, connect=CONNECT_TIMEOUT_SECONDS)
        self._api = httpx.Client(
            base_url=base.rstrip("/") + "/",
            timeout=self._timeout,
            headers={"Authorization": f"Bearer {key}", **(headers or {})},
        )

    def close(self) -> None:
        self._api.close()

    def __enter__(self) -> ProviderClient:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- failures -------------------------------------------------------------------------

    def fail(self, reason: str) -> DomainError:
        """The member's error for a failure whose ``reason`` goes to the log (key masked)."""
        log.warning("%s provider failed: %s", self.name, self._masked(reason))
        return DomainError(self.failure_message, code=self.failure_code, status=502)

    def _masked(self, text: str) -> str:
        return text.replace(self._key, "***") if self._key else text

    def _refusal(self, response: httpx.Response) -> DomainError:
        """The error for a 4xx/5xx answer that will not be retried."""
        reason = f"HTTP {response.status_code} from {response.request.url.path}: "
        reason += response.text[:300]
        if response.status_code == 429:
            log.warning("%s provider rate limit: %s", self.name, self._masked(reason))
            return RateLimited(
                messages.RATE_LIMIT_EXCEEDED,
                retry_after=_retry_after(response),
                code="rate_limited",
            )
        if response.status_code == 402:
            log.warning("%s provider credits: %s", self.name, self._masked(reason))
            return DomainError(messages.PLEASE_ADD_CREDITS, code="payment_required", status=402)
        return self.fail(reason)

    # -- API calls ------------------------------------------------------------------------

    def call(self, method: str, path: str, **request: Any) -> httpx.Response:
        """A 2xx answer to ``method path`` (relative to the base), after retries."""
        attempts = len(self.retry_delays) + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                response = self._api.request(method, path.lstrip("/"), **request)
            except _RETRIED_ERRORS as error:
                if last:
                    raise self.fail(f"{method} {path}: {type(error).__name__}: {error}") from None
            except httpx.HTTPError as error:  # read/write timeouts and the like: no retry
                raise self.fail(f"{method} {path}: {type(error).__name__}: {error}") from None
            else:
                if response.is_success:
                    return response
                if response.status_code < 500 or last:
                    raise self._refusal(response)
                log.info("%s provider answered %s; retrying", self.name, response.status_code)
            time.sleep(self.retry_delays[attempt])
        raise AssertionError("unreachable")

    def json_object(self, response: httpx.Response) -> dict[str, Any]:
        """The answer's JSON object, or the failure error for anything else."""
        try:
            body = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise self.fail(f"not JSON: {response.text[:200]!r}") from None
        if not isinstance(body, dict):
            raise self.fail(f"not a JSON object: {response.text[:200]!r}")
        return body

    # -- downloads ------------------------------------------------------------------------

    @contextmanager
    def _download(self, url: str, timeout_seconds: float | None) -> Iterator[httpx.Response]:
        """A streamed GET of a result URL: http(s) only, without the API key."""
        if not url.startswith(("https://", "http://")):
            raise self.fail(f"result URL is not http(s): {url[:100]!r}")
        timeout = self._timeout
        if timeout_seconds is not None:
            timeout = httpx.Timeout(timeout_seconds, connect=CONNECT_TIMEOUT_SECONDS)
        try:
            with (
                httpx.Client(timeout=timeout, follow_redirects=True) as client,
                client.stream("GET", url) as response,
            ):
                if not response.is_success:
                    raise self.fail(f"download answered HTTP {response.status_code}")
                yield response
        except httpx.HTTPError as error:
            raise self.fail(f"download failed: {type(error).__name__}: {error}") from None

    def fetch(self, url: str, *, max_bytes: int) -> bytes:
        """The bytes at ``url`` (at most ``max_bytes``)."""
        chunks, size = [], 0
        with self._download(url, None) as response:
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > max_bytes:
                    raise self.fail(f"download larger than {max_bytes} bytes")
                chunks.append(chunk)
        return b"".join(chunks)

    def fetch_to(
        self, url: str, path: Path, *, max_bytes: int, timeout_seconds: float | None = None
    ) -> int:
        """Write the bytes at ``url`` to ``path`` (at most ``max_bytes``); returns the size."""
        size = 0
        with self._download(url, timeout_seconds) as response, path.open("wb") as file:
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > max_bytes:
                    raise self.fail(f"download larger than {max_bytes} bytes")
                file.write(chunk)
        return size


# -- what providers are sent ----------------------------------------------------------------

T = TypeVar("T")

# A photo at least this much wider than tall is landscape (the other way round, portrait).
SHAPE_RATIO = 1.2


def closest_shape(width: int, height: int, landscape: T, portrait: T, square: T) -> T:
    """Of a provider's landscape, portrait and square outputs, the one nearest the photo."""
    ratio = width / height
    if ratio >= SHAPE_RATIO:
        return landscape
    if ratio <= 1 / SHAPE_RATIO:
        return portrait
    return square


def bounded(image: Image.Image, max_side: int) -> Image.Image:
    """The photo in RGB, shrunk (never enlarged) to at most ``max_side`` pixels: providers
    work at about that size, and a smaller upload is faster."""
    sent = image.convert("RGB")
    if max(sent.size) > max_side:
        sent = sent.copy()
        sent.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    return sent
