"""My Photos' early photo: /dashboard served with the member's newest photo in it.

The page is prerendered and the same for everyone; its photos arrive only once the app
has loaded and asked for them. When the request comes from a member's browser, the
server puts that member's newest photo (the grid's first card, in its default order) into
the page's loading view (``ui.early_photo``), so it paints with the page itself.
"""

from __future__ import annotations

import uuid

from sqlmodel import Session, select
from starlette.requests import Request

from prettyscore.core.db import run_in_session
from prettyscore.photos.media_api import ACCESS_COOKIE, viewer_id
from prettyscore.photos.models import Photo
from prettyscore.photos.service import SORTS
from prettyscore.ui import early_photo
from prettyscore.web.browser_key import browser_key_from

MY_PHOTOS_PHOTO = "my-photos"


def newest_photo_url(db: Session, user_id: uuid.UUID) -> str | None:
    """The address of the member's newest photo as its card shows it (edited if edited)."""
    row = db.exec(
        select(Photo.edited_image_url, Photo.original_image_url)
        .where(Photo.user_id == user_id)
        .order_by(*SORTS["latest"])
        .limit(1)
    ).first()
    return (row[0] or row[1]) if row else None


def _requester_newest_photo(
    db: Session, access_token: str | None, browser_key: str | None
) -> str | None:
    user_id = viewer_id(db, access_token, browser_key)
    return newest_photo_url(db, user_id) if user_id else None


async def fill_my_photos(request: Request, page_html: str) -> str | None:
    """The page with the requester's newest photo shown, or None (a visitor, no photos)."""
    access_token = request.cookies.get(ACCESS_COOKIE)
    browser_key = browser_key_from(request.headers.get("cookie"))
    if not (access_token or browser_key):
        return None
    url = await run_in_session(_requester_newest_photo, access_token, browser_key)
    return early_photo.fill(page_html, MY_PHOTOS_PHOTO, url) if url else None
