"""Domain errors: raised by services, carrying the text the user should see.

Pages turn a ``DomainError`` into a toast with ``error.message``; the REST API turns it
into a JSON error with ``error.status``. Anything else is unexpected: it is logged and
the user gets a generic message.
"""

from __future__ import annotations


class DomainError(Exception):
    """A failure the user caused or may fix; ``message`` is shown to them verbatim."""

    status: int = 400
    code: str = "bad_request"

    def __init__(self, message: str, *, code: str | None = None, status: int | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status


class ValidationFailed(DomainError):
    """Input broke a documented rule; ``field``, when given, names the form field it
    concerns (so a page can show the message beside it; its code is then
    ``invalid_<field>``)."""

    status = 422
    code = "validation_failed"

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        code: str | None = None,
        status: int | None = None,
    ):
        if code is None and field is not None:
            code = f"invalid_{field}"
        super().__init__(message, code=code, status=status)
        self.field = field


class NotAuthenticated(DomainError):
    """The action needs a signed-in user."""

    status = 401
    code = "not_authenticated"


class PermissionDenied(DomainError):
    """The user is signed in but may not do this."""

    status = 403
    code = "forbidden"


class NotFound(DomainError):
    """The thing does not exist, or the user may not know that it does."""

    status = 404
    code = "not_found"


class Conflict(DomainError):
    """A uniqueness rule: the thing already exists."""

    status = 409
    code = "conflict"
