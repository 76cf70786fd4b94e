"""An ASGI middleware that caps request bodies on upload paths while they arrive.

Reflex's ``/_upload`` endpoint (and Starlette's form parser behind it) accepts bodies of
any size and spools them to disk before our handler sees a byte. This middleware sits in
front of the whole backend (``rx.App(api_transformer=...)``) and:

- answers 413 at once when the declared Content-Length is over the limit, without
  reading the body;
- otherwise counts the bytes of each ``http.request`` message as the app asks for them,
  and the moment the total passes the limit it answers 413 and stops handing the app any
  more body. An endless chunked upload is thus cut off after ``limit`` bytes, and the
  middleware itself buffers nothing.

The limit is the file limit plus a small allowance for the multipart envelope (the
boundary lines, part headers and Reflex's small form fields). An upload handler that
takes several photos at once ("which photo shows you best") has its own limit, by the
handler the request names (the ``Reflex-Event-Handler`` header): every photo still
counts against the file limit, read by the handler, but all of them travel in one body.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any

from prettyscore.core import messages

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MULTIPART_ENVELOPE_BYTES = 64 * 1024
LIMITED_METHODS = ("POST", "PUT", "PATCH")
DEFAULT_PATHS = ("/_upload", "/api/")
HANDLER_HEADER = b"reflex-event-handler"


class BodyTooLarge(Exception):
    """Raised into the app when its request body passed the limit (413 already sent).

    Deliberately not a ValueError or RuntimeError: upload handlers catch those and would
    try to answer 400 themselves.
    """


def limit_request_body(
    app: ASGIApp,
    *,
    max_bytes: int,
    paths: tuple[str, ...] = DEFAULT_PATHS,
    envelope_bytes: int = MULTIPART_ENVELOPE_BYTES,
    methods: tuple[str, ...] = LIMITED_METHODS,
    handler_limits: Mapping[str, int] | None = None,
) -> ASGIApp:
    """Wrap ``app`` so bodies sent to ``paths`` may not exceed ``max_bytes + envelope_bytes``
    (``handler_limits[name] + envelope_bytes`` for an upload to the handler ``name``).

    Use it as ``rx.App(api_transformer=functools.partial(limit_request_body,
    max_bytes=constants.MAX_UPLOAD_BYTES, paths=("/_upload", "/api/")))``.
    """
    default = max_bytes + envelope_bytes
    larger = {
        name.encode("latin-1"): most + envelope_bytes
        for name, most in (handler_limits or {}).items()
    }

    async def limited_app(scope: Scope, receive: Receive, send: Send) -> None:
        if not _is_limited(scope, paths, methods):
            await app(scope, receive, send)
            return
        limit = larger.get(_header(scope, HANDLER_HEADER), default)
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            log.info("Upload refused: Content-Length %s over %s bytes", declared, limit)
            await _send_too_large(send)
            return
        await _BodyGuard(app, limit).run(scope, receive, send)

    return limited_app


def _is_limited(scope: Scope, paths: tuple[str, ...], methods: tuple[str, ...]) -> bool:
    return (
        scope["type"] == "http"
        and scope.get("method", "GET").upper() in methods
        and scope.get("path", "").startswith(paths)
    )


def _header(scope: Scope, wanted: bytes) -> bytes | None:
    """The first value of the header ``wanted`` (lower case), or None."""
    for name, value in scope.get("headers", ()):
        if name.lower() == wanted:
            return value
    return None


def _declared_length(scope: Scope) -> int | None:
    """The Content-Length header as a number, or None when absent or not a number."""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class _BodyGuard:
    """One request: counts the body the app receives and cuts it off at the limit."""

    def __init__(self, app: ASGIApp, limit: int):
        self.app = app
        self.limit = limit
        self.received = 0
        self.response_started = False
        self.refused = False

    async def run(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app with the counting ``receive``; swallow the app's failure after a 413."""

        async def counting_receive() -> Message:
            if self.refused:  # never read past the limit, however often the app asks
                raise BodyTooLarge(messages.FILE_TOO_LARGE)
            message = await receive()
            if message["type"] == "http.request":
                self.received += len(message.get("body", b""))
                if self.received > self.limit:
                    await self._refuse(send)
            return message

        async def guarded_send(message: Message) -> None:
            if self.refused:  # our 413 is the answer; the app's own reply is dropped
                return
            if message["type"] == "http.response.start":
                self.response_started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except Exception:
            if not self.refused:
                raise
            log.debug("App stopped after an oversized body", exc_info=True)

    async def _refuse(self, send: Send) -> None:
        """Answer 413 (unless the app already answered) and stop feeding the app."""
        log.info("Upload cut off after %s bytes (limit %s)", self.received, self.limit)
        if not self.response_started and not self.refused:
            await _send_too_large(send)
        self.refused = True
        raise BodyTooLarge(messages.FILE_TOO_LARGE)


async def _send_too_large(send: Send) -> None:
    """413 with the documented message as JSON; the connection is closed after it."""
    body = json.dumps({"detail": messages.FILE_TOO_LARGE}).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode("ascii")),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
