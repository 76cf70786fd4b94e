"""``GET /media/{key}``: stored photos, served only to those who may see them.

- ``u/<user id>/...`` (a member's file): to that member, recognised from the access token
  cookie, else the session bound to the browser's key (``web.browser_key``), or, for
  API clients, an ``Authorization: Bearer`` access token; to everyone
  when a leaderboard photo (``public_listing``) of that member uses the file.
- ``v/<visitor id>/...`` (a visitor's result): only to the browser whose ``ps_visitor``
  cookie hashes to the visitor id.

Everyone else gets the same 404 as for a file that does not exist (never 403), so a URL
reveals nothing. Files are read off the event loop (FileResponse streams them through a
worker thread). Mount the routes with ``Starlette(routes=media_routes())`` through
``rx.App(api_transformer=...)``.
"""

from __future__ import annotations

import hmac
import os
import stat
import uuid
from pathlib import Path

import anyio
from sqlalchemy import or_
from sqlmodel import Session, select
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

from prettyscore.accounts import service
from prettyscore.accounts.bearer import bearer_token
from prettyscore.core.db import run_in_session
from prettyscore.core.media import (
    MEMBER,
    InvalidMediaKey,
    MediaKey,
    get_media_store,
    media_url,
    parse_key,
    visitor_id,
)
from prettyscore.photos.models import Photo
from prettyscore.web.browser_key import browser_key_from

ACCESS_COOKIE = "ps_access_token"
VISITOR_COOKIE = "ps_visitor"
MAX_AGE_SECONDS = 3600
PRIVATE = "private"
PUBLIC = "public"


def media_routes() -> list[Route]:
    """The media route(s), to mount on the backend's Starlette app."""
    return [Route("/media/{key:path}", serve_media, methods=["GET", "HEAD"])]


async def serve_media(request: Request) -> Response:
    """The file of the key in the path, if the requester may see it; 404 otherwise."""
    try:
        parsed = parse_key(request.path_params["key"])
    except InvalidMediaKey:
        return _not_found()
    visibility = await _visibility(request, parsed)
    if visibility is None:
        return _not_found()
    found = await anyio.to_thread.run_sync(_find_file, parsed.key)
    if found is None:
        return _not_found()
    path, file_stat = found
    return FileResponse(
        path,
        media_type=parsed.content_type,
        stat_result=file_stat,
        headers=_headers(visibility),
    )


async def _visibility(request: Request, parsed: MediaKey) -> str | None:
    """PUBLIC, PRIVATE (the owner may see it) or None (nobody here may)."""
    if parsed.owner.kind != MEMBER:
        secret = request.cookies.get(VISITOR_COOKIE, "")
        if secret and hmac.compare_digest(visitor_id(secret), parsed.owner.owner_id):
            return PRIVATE
        return None
    return await run_in_session(
        member_file_visibility,
        parsed,
        access_token=bearer_token(request) or request.cookies.get(ACCESS_COOKIE),
        browser_key=browser_key_from(request.headers.get("cookie")),
    )


def member_file_visibility(
    db: Session, parsed: MediaKey, *, access_token: str | None, browser_key: str | None
) -> str | None:
    """Whether a member's file is listed (PUBLIC), the viewer's own (PRIVATE), or neither."""
    owner_id = uuid.UUID(parsed.owner.owner_id)
    if is_listed(db, owner_id, media_url(parsed.key)):
        return PUBLIC
    if viewer_id(db, access_token, browser_key) == owner_id:
        return PRIVATE
    return None


def is_listed(db: Session, owner_id: uuid.UUID, url: str) -> bool:
    """Whether a leaderboard photo of ``owner_id`` shows the file at ``url``.

    The owner condition stops a row that points at someone else's file from making it
    public.
    """
    query = (
        select(Photo.id)
        .where(
            Photo.user_id == owner_id,
            Photo.public_listing.is_(True),
            or_(Photo.original_image_url == url, Photo.edited_image_url == url),
        )
        .limit(1)
    )
    return db.exec(query).first() is not None


def viewer_id(db: Session, access_token: str | None, browser_key: str | None) -> uuid.UUID | None:
    """The member behind the cookies: the access token, else the session the browser is
    signed in to (looked at, not renewed: an image request cannot take new tokens)."""
    user = service.resolve_member(db, access_token) if access_token else None
    if user is not None:
        return user.id
    return service.browser_member(db, browser_key)


def _find_file(key: str) -> tuple[Path, os.stat_result] | None:
    """The stored file of ``key`` and its stat, if it is a regular file (so no listings).

    Runs on a worker thread: resolving and stat-ing touch the disk.
    """
    try:
        path = get_media_store().path(key)
        result = os.stat(path)
    except (InvalidMediaKey, FileNotFoundError, NotADirectoryError):
        return None
    return (path, result) if stat.S_ISREG(result.st_mode) else None


def _headers(visibility: str) -> dict[str, str]:
    headers = {
        "Cache-Control": f"{visibility}, max-age={MAX_AGE_SECONDS}",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'",
    }
    if visibility == PRIVATE:
        headers["Vary"] = "Cookie, Authorization"
    return headers


def _not_found() -> Response:
    """One answer for 'no such file' and 'not yours', so existence is never revealed."""
    return PlainTextResponse("Not Found", status_code=404, headers={"Cache-Control": "no-store"})
