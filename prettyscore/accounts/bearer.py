"""Who is calling: the user behind the request's bearer access token.

Every protected route takes ``user: CurrentUser = Depends(require_user)``; nothing in a
body or query decides identity. A token is valid only if its signature, audience and
expiry check out and its session is still open, so signing out takes effect at once.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.security import HTTPBearer

from prettyscore.accounts import service
from prettyscore.accounts.service import CurrentUser
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import NotAuthenticated, PermissionDenied

MISSING_TOKEN = "This endpoint requires a valid Bearer token"
INVALID_TOKEN = "Invalid JWT: unable to parse or verify signature, or the session has ended"
INSUFFICIENT_AAL = "AAL2 required: verify your second factor first"

# Declares the scheme in the OpenAPI description (the interactive page's Authorize box).
bearer_scheme = HTTPBearer(auto_error=False, bearerFormat="JWT", scheme_name="bearer")


def bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer ...`` header, or None."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


async def require_session(request: Request) -> CurrentUser:
    """The signed-in user at any assurance level, or a 401 in GoTrue's shape.

    For the auth routes a half-signed-in user needs: reading their user, listing and
    verifying factors, signing out.
    """
    token = bearer_token(request)
    if token is None:
        raise NotAuthenticated(MISSING_TOKEN, code="no_authorization")
    user = await run_in_session(service.resolve_user, token)
    if user is None:
        raise NotAuthenticated(INVALID_TOKEN, code="bad_jwt")
    return user


async def require_user(request: Request) -> CurrentUser:
    """The signed-in user, fully: a member with a verified second factor must have proved
    it in this session (aal2), or the password alone would open everything."""
    user = await require_session(request)
    if await run_in_session(service.lacks_second_factor, user.id, user.aal):
        raise PermissionDenied(INSUFFICIENT_AAL, code="insufficient_aal")
    return user
