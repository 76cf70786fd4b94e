"""``GET /media/{key}``: stored photos, served only to those who may see them.

- ``u/<user id>/...`` (a member's file): to that member, recognised from the access token
  cookie, else the session bound to the browser's key (``web.browser_key``), or, for
  API clients, an ``Authorization: Bearer`` access token; to everyone
  when a leaderboard photo (``public_listing``) of that member uses the file.
- ``v/<visitor id>/...`` (a visitor's result): only to the browser whose ``ps_visitor``
  cookie hashes to the visitor id.

Everyone else gets the same 404 as for a file that does not exist (never 403), so a URL
reveals nothing. Files are read off the event loop, from whichever store is configured
(``MediaStore.open``): a local file is sent as it is (FileResponse), an object of S3
storage is streamed from the bucket, a range at a time when the browser asks for one (a
video's seeking). The bucket itself stays private: no URL of it ever reaches a browser.
Mount the routes with ``Starlette(routes=media_routes())`` through
``rx.App(api_transformer=...)``.
"""

from __future__ import annotations

import hmac
import logging
import re
import uuid
from email.utils import formatdate

import anyio
from sqlalchemy import or_
from sqlmodel import Session, select
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from prettyscore.accounts import service
from prettyscore.accounts.bearer import bearer_token
from prettyscore.core.db import run_in_session
from prettyscore.core.media import (
    MEMBER,
    InvalidMediaKey,
    MediaKey,
    MediaStoreUnavailable,
    StoredFile,
    get_media_store,
    media_url,
    parse_key,
    visitor_id,
)
from prettyscore.photos.models import Photo
from prettyscore.web.browser_key import browser_key_from

log = logging.getLogger(__name__)

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
    try:
        stored = await anyio.to_thread.run_sync(_open, parsed.key)
    except MediaStoreUnavailable as error:
        log.warning("A stored file could not be served: %s", error)
        return PlainTextResponse(
            "Service Unavailable", status_code=503, headers={"Cache-Control": "no-store"}
        )
    if stored is None:
        return _not_found()
    headers = _headers(visibility)
    if stored.path is not None:
        return FileResponse(
            stored.path, media_type=parsed.content_type, stat_result=stored.stat, headers=headers
        )
    return _streamed(request, stored, parsed.content_type, headers)


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


def _open(key: str) -> StoredFile | None:
    return get_media_store().open(key)


_ONE_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


def _streamed(request: Request, stored: StoredFile, media_type: str, headers: dict) -> Response:
    """A file of object storage, streamed: whole, or the one byte range asked for (206).

    A HEAD gets the headers alone; several ranges, or one past the end, get the whole file
    (allowed by RFC 9110, and what a browser's video player copes with)."""
    headers = {
        **headers,
        "Accept-Ranges": "bytes",
        "Last-Modified": formatdate(stored.modified, usegmt=True),
    }
    first, last = _byte_range(request.headers.get("range"), stored.size)
    status = 200
    if (first, last) != (0, stored.size - 1):
        status = 206
        headers["Content-Range"] = f"bytes {first}-{last}/{stored.size}"
    headers["Content-Length"] = str(last - first + 1)
    if request.method == "HEAD" or stored.size == 0:
        return Response(status_code=status, media_type=media_type, headers=headers)
    return StreamingResponse(
        stored.chunks(first, last), status_code=status, media_type=media_type, headers=headers
    )


def _byte_range(header: str | None, size: int) -> tuple[int, int]:
    """The inclusive byte range of a single ``Range: bytes=a-b`` that fits; else the whole."""
    whole = (0, size - 1)
    match = _ONE_RANGE.fullmatch((header or "").strip())
    if match is None or size == 0 or match.group(1) == match.group(2) == "":
        return whole
    start, end = match.groups()
    if start == "":  # the last N bytes
        return (max(0, size - int(end)), size - 1) if int(end) > 0 else whole
    first, last = int(start), min(int(end) if end else size - 1, size - 1)
    return (first, last) if first <= last else whole


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
