"""My Photos served with the member's newest photo in it (SQLite and PostgreSQL).

``fill_my_photos`` is called with real requests (a Starlette app over httpx's ASGI
transport) carrying the cookies a browser would hold, on a migrated database, and the
loading view's markup as the build prerenders it.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Route

from prettyscore.accounts import service
from prettyscore.core.model_types import utcnow
from prettyscore.photos.early import MY_PHOTOS_PHOTO, fill_my_photos
from prettyscore.photos.media_api import ACCESS_COOKIE
from prettyscore.photos.models import Photo
from prettyscore.ui import early_photo
from prettyscore.web.browser_key import BROWSER_COOKIE, issue_browser_key
from tests.photos.test_media_api import app_settings  # noqa: F401  (the app's database)

# The frame as the build prerenders it (React's markup of ``early_photo.frame``).
PAGE = (
    '<main><h1>My Dashboard</h1><div class="rt-Grid">'
    f'<div {early_photo.ATTRIBUTE}="{MY_PHOTOS_PHOTO}" hidden="" class="rt-Box css-1">'
    '<style data-emotion="css 2">.css-2{width:100%;}</style>'
    '<img alt="Your newest photo" fetchpriority="high" class="css-2"/></div></div>'
    "<p>Loading your photos...</p></main>"
)


def served(cookies: dict[str, str]) -> str:
    """The page as /dashboard answers a browser holding ``cookies`` ("static" if unfilled)."""

    async def dashboard(request):
        filled = await fill_my_photos(request, PAGE)
        return HTMLResponse(filled) if filled is not None else PlainTextResponse("static")

    async def call() -> str:
        app = Starlette(routes=[Route("/dashboard", dashboard)])
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
            http.cookies.update(cookies)
            return (await http.get("/dashboard")).text

    return asyncio.run(call())


_BROWSER_KEYS: dict = {}


def browser_key_of(tokens) -> str:
    """The key the server gave the browser the session was opened in."""
    return _BROWSER_KEYS.setdefault(tokens.user_id, issue_browser_key())


def in_a_browser(db, tokens):
    """The session as a browser holds it: its refresh token bound to the browser's key."""
    service.bind_browser(db, browser_key_of(tokens), tokens.refresh_token)
    db.commit()
    return tokens


def session_cookies(tokens) -> dict[str, str]:
    return {ACCESS_COOKIE: tokens.access_token, BROWSER_COOKIE: browser_key_of(tokens)}


def add_photo(db, user_id, name: str, *, age_minutes: int, edited: bool = False) -> Photo:
    photo = Photo(
        user_id=user_id,
        original_image_url=f"/media/u/{user_id}/{name}.jpg",
        edited_image_url=f"/media/u/{user_id}/{name}-edited.jpg" if edited else None,
        score=8.0,
        rating_label="Stunning",
        breakdown={"symmetry": 8.0},
        created_at=utcnow() - timedelta(minutes=age_minutes),
    )
    db.add(photo)
    db.commit()
    return photo


@pytest.fixture
def member(db, app_settings):  # noqa: F811
    tokens = service.sign_up(db, f"early-{uuid.uuid4().hex[:8]}@example.com", "secret1")
    db.commit()
    return in_a_browser(db, tokens)


def shown_photo(page: str) -> str | None:
    """The address the frame shows, if it is shown."""
    frame = page.split(f'{early_photo.ATTRIBUTE}="{MY_PHOTOS_PHOTO}"', 1)[1].split("</div>")[0]
    if "hidden" in frame.split(">")[0]:
        return None
    return frame.split('<img src="', 1)[1].split('"', 1)[0] if '<img src="' in frame else None


def test_the_member_sees_their_newest_photo_as_its_card_shows_it(db, member):
    add_photo(db, member.user_id, "older", age_minutes=60)
    add_photo(db, member.user_id, "newest", age_minutes=1, edited=True)
    page = served(session_cookies(member))
    assert shown_photo(page) == f"/media/u/{member.user_id}/newest-edited.jpg"
    # The rest of the page is as the build made it.
    assert page.startswith("<main><h1>My Dashboard</h1>")
    assert page.endswith("<p>Loading your photos...</p></main>")


def test_the_browsers_key_alone_still_names_the_member(db, member):
    add_photo(db, member.user_id, "only", age_minutes=5)
    page = served({BROWSER_COOKIE: browser_key_of(member)})
    assert shown_photo(page) == f"/media/u/{member.user_id}/only.jpg"


def test_a_refresh_token_cookie_or_another_browsers_key_names_nobody(db, member):
    add_photo(db, member.user_id, "only", age_minutes=5)
    assert served({"ps_refresh_token": member.refresh_token}) == "static"
    assert served({BROWSER_COOKIE: "another-browser"}) == "static"


def test_each_member_sees_only_their_own_photo(db, member):
    other = in_a_browser(db, service.sign_up(db, "other-early@example.com", "secret2"))
    add_photo(db, member.user_id, "mine", age_minutes=10)
    add_photo(db, other.user_id, "theirs", age_minutes=1)
    assert shown_photo(served(session_cookies(member))) == f"/media/u/{member.user_id}/mine.jpg"
    assert shown_photo(served(session_cookies(other))) == f"/media/u/{other.user_id}/theirs.jpg"


def test_visitors_members_without_photos_and_bad_cookies_get_the_static_page(db, member):
    assert served({}) == "static"
    assert served(session_cookies(member)) == "static"  # no photo yet
    add_photo(db, member.user_id, "saved", age_minutes=1)
    assert served({ACCESS_COOKIE: "forged", BROWSER_COOKIE: "forged"}) == "static"
    service.sign_out(db, member.access_token)
    db.commit()
    assert served(session_cookies(member)) == "static"


def test_the_address_is_written_as_an_attribute_value():
    page = early_photo.fill(PAGE, MY_PHOTOS_PHOTO, '/media/u/x/a"b<c&d.jpg')
    assert '<img src="/media/u/x/a&quot;b&lt;c&amp;d.jpg" alt="Your newest photo"' in page


def test_only_stored_photos_and_existing_frames_are_filled():
    assert early_photo.fill(PAGE, MY_PHOTOS_PHOTO, "https://elsewhere.example/a.jpg") == PAGE
    assert early_photo.fill(PAGE, "another-slot", "/media/u/x/a.jpg") == PAGE
    assert early_photo.fill("<main>no frame</main>", MY_PHOTOS_PHOTO, "/media/a.jpg") == (
        "<main>no frame</main>"
    )


def test_what_a_tab_remembers_is_a_stored_photo_or_nothing():
    kept = early_photo.remember("results", "/media/v/abc/photo.jpg")
    dropped = early_photo.remember("results", "")
    assert "sessionStorage.setItem" in str(kept) and "/media/v/abc/photo.jpg" in str(kept)
    assert "sessionStorage.removeItem" in str(dropped)
    assert "setItem" not in str(early_photo.remember("results", "javascript:alert(1)"))
