"""Errors of the REST API in GoTrue's JSON shape, so Supabase clients understand them.

GoTrue answers a client that sends ``X-Supabase-Api-Version: 2024-01-01`` (every current
Supabase library does) with ``{"code": "<error_code>", "message": "..."}`` and that header
back; older clients get ``{"code": <status>, "error_code": "...", "msg": "..."}``. Both
carry the same machine-readable code and the text a user may see.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException

from prettyscore.core.errors import DomainError

log = logging.getLogger(__name__)

API_VERSION_HEADER = "X-Supabase-Api-Version"
API_VERSION_2024 = date(2024, 1, 1)
UNEXPECTED_MESSAGE = "Something went wrong on our side. Please try again."

_STATUS_CODES = {
    400: "bad_request",
    401: "no_authorization",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "request_too_large",
    422: "validation_failed",
    429: "over_request_rate_limit",
    500: "unexpected_failure",
}


class ApiError(BaseModel):
    """GoTrue's error body: ``{"code": "<error_code>", "message": "..."}`` for clients
    sending X-Supabase-Api-Version 2024-01-01, else ``{"code": <status>, "error_code":
    "...", "msg": "..."}``."""

    model_config = ConfigDict(extra="allow")

    code: int | str
    message: str | None = None
    msg: str | None = None
    error_code: str | None = None


def error_responses(**described: str) -> dict:
    """OpenAPI ``responses`` for the given statuses (``e400="Invalid input"``)."""
    return {
        int(status.removeprefix("e")): {"model": ApiError, "description": text}
        for status, text in described.items()
    }


#: What every authentication route may answer besides its success.
AUTH_ERRORS = error_responses(
    e400="Invalid input, invalid credentials, or a method not enabled here",
    e401="No bearer token, or an invalid or ended session",
    e403="Not allowed: an expired code, or a second factor required (aal2)",
    e404="No such factor or challenge of this user",
    e422="A rule broken: weak password, user already registered, an unusable code",
    e429="Too many attempts or mails: wait for the Retry-After seconds",
)


def _speaks_2024(request: Request) -> bool:
    raw = request.headers.get(API_VERSION_HEADER, "")
    try:
        return date.fromisoformat(raw) >= API_VERSION_2024
    except ValueError:
        return False


def error_response(
    request: Request,
    status: int,
    error_code: str,
    message: str,
    headers: dict | None = None,
    details: dict | None = None,
) -> JSONResponse:
    """One error, shaped for the client that asked; ``details`` are extra top-level
    fields some errors carry (GoTrue's ``weak_password: {"reasons": [...]}``)."""
    if _speaks_2024(request):
        body: dict = {"code": error_code, "message": message}
        headers = {**(headers or {}), API_VERSION_HEADER: API_VERSION_2024.isoformat()}
    else:
        body = {"code": status, "error_code": error_code, "msg": message}
    return JSONResponse({**(details or {}), **body}, status_code=status, headers=headers)


async def _domain_error(request: Request, error: DomainError) -> JSONResponse:
    headers = getattr(error, "headers", None)
    details = getattr(error, "details", None)
    return error_response(request, error.status, error.code, error.message, headers, details)


async def _validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
    problems = "; ".join(
        f"{'.'.join(str(part) for part in issue.get('loc', ())[1:]) or 'body'}: {issue['msg']}"
        for issue in error.errors()
    )
    return error_response(request, 400, "validation_failed", problems or "Invalid request")


async def _http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
    code = _STATUS_CODES.get(error.status_code, "bad_request")
    return error_response(
        request, error.status_code, code, str(error.detail), getattr(error, "headers", None)
    )


def install_error_handlers(app: FastAPI) -> None:
    """Domain errors, bad bodies and unknown routes all answer in the GoTrue shape."""
    app.add_exception_handler(DomainError, _domain_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)


class GuardedRoute(APIRoute):
    """A route whose unexpected failures are logged and answered as a clean 500.

    Kept per route rather than app-wide, because the API app wraps the whole Reflex app:
    an app-wide handler would also swallow the Reflex app's own errors.
    """

    def get_route_handler(self) -> Callable:
        handler = super().get_route_handler()

        async def guarded(request: Request):
            try:
                return await handler(request)
            except (DomainError, RequestValidationError, StarletteHTTPException):
                raise
            except Exception:
                log.exception("%s %s failed unexpectedly", request.method, request.url.path)
                return error_response(request, 500, "unexpected_failure", UNEXPECTED_MESSAGE)

        return guarded
