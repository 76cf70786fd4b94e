"""Request bodies read with a cap, before anything parses them.

FastAPI reads a whole JSON body into memory before validating it, so a 200 MB sign-up
body grew a worker by as much. Every API route reads its body through ``read_body``
first: a declared length over the limit is refused at once, and a body that passes the
limit while it arrives (an endless chunked one) is cut off there, with 413.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import Request
from starlette.responses import Response

from prettyscore.api.errors import GuardedRoute
from prettyscore.core import messages
from prettyscore.core.errors import DomainError

#: The auth API's bodies are a few fields: an email, a password, a code.
AUTH_MAX_BODY_BYTES = 64 * 1024


class BodyTooLarge(DomainError):
    status = 413
    code = "request_too_large"


async def read_body(request: Request, limit: int, text: str = messages.REQUEST_TOO_LARGE) -> None:
    """Read the body into the request (where FastAPI will find it), refusing it with
    ``text`` as soon as it passes ``limit`` bytes, or at once when its declared length
    does."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(text)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(text)
        chunks.append(chunk)
    # Starlette's Request.body() returns this cached value instead of reading again.
    request._body = b"".join(chunks)


class AuthRoute(GuardedRoute):
    """An auth API route: its body capped at ``AUTH_MAX_BODY_BYTES`` before parsing."""

    def get_route_handler(self) -> Callable:
        handler = super().get_route_handler()

        async def capped(request: Request) -> Response:
            await read_body(request, AUTH_MAX_BODY_BYTES)
            return await handler(request)

        return capped
