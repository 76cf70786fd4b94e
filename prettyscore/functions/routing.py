"""How a server function route reads its request and shapes its errors.

- The body is read with a cap before anything parses it: the API sits outside the
  upload limit of the pages, and a photo may come inline as a data URL (base64 makes
  10 MB about 13.4 MB), so anything larger is refused with 413 while it arrives.
- Errors keep the GoTrue shape of ``prettyscore.api.errors`` and add ``error`` (the same
  text), the field the Supabase functions clients read their message from.
- Input errors answer 400 (the services' ValidationFailed is 422, GoTrue's choice for
  the auth routes); limits and permissions keep their 401/402/403/404.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.responses import Response

from prettyscore.api.bodies import read_body
from prettyscore.api.errors import GuardedRoute
from prettyscore.core import constants, messages
from prettyscore.core.errors import DomainError

#: A 10 MB photo as base64, plus room for the rest of the body.
MAX_BODY_BYTES = (constants.MAX_UPLOAD_BYTES + 2) // 3 * 4 + 64 * 1024
_KEPT_HEADERS_EXCLUDED = ("content-length", "content-type")


class FunctionRoute(GuardedRoute):
    """A server function: capped body, errors a Supabase functions client can read."""

    def get_route_handler(self) -> Callable:
        handler = super().get_route_handler()

        async def function_handler(request: Request) -> Response:
            try:
                await read_body(request, MAX_BODY_BYTES, messages.FILE_TOO_LARGE)
                response = await handler(request)
            except (DomainError, RequestValidationError) as error:
                response = await _error_response(request, error)
            return with_error_field(response) if response.status_code >= 400 else response

        return function_handler


async def _error_response(request: Request, error: Exception) -> Response:
    """The API's own answer for ``error`` (its handlers own the shape), input errors as 400."""
    if isinstance(error, DomainError) and error.status == 422:
        error = DomainError(error.message, code=error.code, status=400)
    handlers = request.app.exception_handlers
    for kind in type(error).__mro__:
        if kind in handlers:
            return await handlers[kind](request, error)
    raise error


def with_error_field(response: Response) -> Response:
    """The same JSON error with ``error`` added: the message Supabase clients show."""
    try:
        body = json.loads(response.body)
    except (AttributeError, ValueError):
        return response
    if not isinstance(body, dict) or "error" in body:
        return response
    body["error"] = body.get("message") or body.get("msg") or ""
    headers = {
        name: value
        for name, value in response.headers.items()
        if name.lower() not in _KEPT_HEADERS_EXCLUDED
    }
    return JSONResponse(body, status_code=response.status_code, headers=headers)
