"""The media route on a migrated database (SQLite and PostgreSQL), with real sessions, on
both stores: a local folder, and a bucket of a real S3 server (``MEDIA_STORE=s3``).

The route runs in a Starlette app driven by httpx through its ASGI transport (real HTTP
requests and responses, in process), with the app's own engine pointed at the test
database. Members are created
with the accounts service, and their browsers bound to their sessions, so their cookies
are the ones a browser would hold: the access token and the browser's key.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest
from PIL import Image
from skimage import data as skdata
from sqlalchemy import func, update
from sqlmodel import select
from starlette.applications import Starlette

from prettyscore.accounts import mfa, service, tokens
from prettyscore.accounts.models import AuthSession, MfaFactor, RefreshToken
from prettyscore.core.db import get_engine
from prettyscore.core.images import decode_upload, encode_jpeg
from prettyscore.core.media import (
    LocalMediaStore,
    MediaOwner,
    MediaStore,
    get_media_store,
    media_url,
)
from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import get_settings
from prettyscore.photos.media_api import (
    ACCESS_COOKIE,
    VISITOR_COOKIE,
    media_routes,
)
from prettyscore.photos.models import Photo
from prettyscore.web.browser_key import BROWSER_COOKIE, issue_browser_key
from tests.fixtures.media import STORES

VISITOR_SECRET = "the-visitors-own-cookie-secret"


def cookies(**values: str) -> dict[str, str]:
    """A Cookie header as a browser sends it."""
    return {"Cookie": "; ".join(f"{name}={value}" for name, value in values.items())}


_BROWSER_KEYS: dict = {}


def browser_key_of(session_tokens) -> str:
    """The key the server gave the browser the session was opened in (bound by
    ``in_a_browser``)."""
    return _BROWSER_KEYS.setdefault(session_tokens.user_id, issue_browser_key())


def in_a_browser(db, session_tokens):
    """The session as a browser holds it: its refresh token bound to the browser's key."""
    service.bind_browser(db, browser_key_of(session_tokens), session_tokens.refresh_token)
    db.commit()
    return session_tokens


def member_cookies(session_tokens) -> dict[str, str]:
    return cookies(
        **{
            ACCESS_COOKIE: session_tokens.access_token,
            BROWSER_COOKIE: browser_key_of(session_tokens),
        }
    )


def browser_cookie(session_tokens) -> dict[str, str]:
    return cookies(**{BROWSER_COOKIE: browser_key_of(session_tokens)})


@pytest.fixture(params=STORES)
def app_settings(
    request, db_engine, migrated_database_url, tmp_path, monkeypatch
) -> Iterator[None]:
    """The app's settings and engine point at the test database and a tmp media folder,
    or a bucket of its own."""
    monkeypatch.setenv("DATABASE_URL", migrated_database_url)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("SECRET_KEY", "media-route-test-secret-of-at-least-32-bytes")
    if request.param == "s3":
        request.getfixturevalue("s3_settings")
    get_settings.cache_clear()
    get_engine.cache_clear()
    try:
        yield
    finally:
        get_engine().dispose()
        monkeypatch.undo()
        get_settings.cache_clear()
        get_engine.cache_clear()


class Client:
    """A small synchronous front to httpx.AsyncClient over the app's ASGI interface."""

    def __init__(self, app):
        self.app = app

    def request(self, method: str, url: str, headers: dict | None = None) -> httpx.Response:
        async def call() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
                return await http.request(method, url, headers=headers)

        return asyncio.run(call())

    def get(self, url: str, headers: dict | None = None) -> httpx.Response:
        return self.request("GET", url, headers)

    def head(self, url: str, headers: dict | None = None) -> httpx.Response:
        return self.request("HEAD", url, headers)


@pytest.fixture
def client(app_settings) -> Client:
    return Client(Starlette(routes=media_routes()))


@pytest.fixture
def store(app_settings) -> MediaStore:
    return get_media_store()


@pytest.fixture
def photo_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(skdata.astronaut()).save(buffer, "JPEG")
    return encode_jpeg(decode_upload(buffer.getvalue()))


@pytest.fixture
def owner(db, app_settings):
    session_tokens = service.sign_up(db, "owner@example.com", "secret1")
    db.commit()
    return in_a_browser(db, session_tokens)


@pytest.fixture
def stranger(db, app_settings):
    session_tokens = service.sign_up(db, "stranger@example.com", "secret2")
    db.commit()
    return in_a_browser(db, session_tokens)


@pytest.fixture
def owners_key(store, owner, photo_bytes) -> str:
    return store.save(photo_bytes, owner=MediaOwner.member(owner.user_id), ext="jpg")


def list_photo(db, user_id, *, original: str, edited: str | None = None, listed: bool = True):
    db.add(
        Photo(
            user_id=user_id,
            original_image_url=original,
            edited_image_url=edited,
            score=9.6,
            rating_label="Stunning",
            breakdown={"symmetry": 9.5},
            public_listing=listed,
        )
    )
    db.commit()


# ---------------------------------------------------------------------------
# Members' private files
# ---------------------------------------------------------------------------
def test_the_owner_gets_the_file_privately_cached(client, owner, owners_key, photo_bytes):
    response = client.get(media_url(owners_key), headers=member_cookies(owner))
    assert response.status_code == 200
    assert response.content == photo_bytes
    assert response.headers["content-type"] == "image/jpeg"
    assert response.headers["cache-control"] == "private, max-age=3600"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["vary"] == "Cookie, Authorization"


def test_head_answers_like_get_without_the_body(client, owner, owners_key, photo_bytes):
    response = client.head(media_url(owners_key), headers=member_cookies(owner))
    assert response.status_code == 200
    assert int(response.headers["content-length"]) == len(photo_bytes)
    assert response.content == b""


def test_a_range_is_answered_with_those_bytes_only(client, store, owner):
    video = bytes(range(256)) * 400
    key = store.save(video, owner=MediaOwner.member(owner.user_id), ext="mp4")
    ranged = {**member_cookies(owner), "Range": "bytes=1000-1999"}
    response = client.get(media_url(key), headers=ranged)
    assert response.status_code == 206
    assert response.content == video[1000:2000]
    assert response.headers["content-range"] == f"bytes 1000-1999/{len(video)}"
    assert response.headers["content-type"] == "video/mp4"
    whole = client.get(media_url(key), headers=member_cookies(owner))
    assert whole.status_code == 200 and whole.content == video
    assert whole.headers["accept-ranges"] == "bytes"


def test_the_file_comes_from_the_app_itself_never_a_link_to_the_storage(client, owner, owners_key):
    response = client.get(media_url(owners_key), headers=member_cookies(owner))
    assert response.status_code == 200 and "location" not in response.headers
    endpoint = get_settings().s3_endpoint_url or "no endpoint"
    assert endpoint not in str(response.headers)


def test_another_member_and_a_visitor_get_404_like_for_a_missing_file(
    client, owner, stranger, owners_key, store
):
    url = media_url(owners_key)
    missing = media_url(store.save(b"x", owner=MediaOwner.member(owner.user_id), ext="png"))
    store.delete(missing.removeprefix("/media/"))
    as_stranger = client.get(url, headers=member_cookies(stranger))
    as_visitor = client.get(url)
    with_garbage = client.get(url, headers=cookies(ps_access_token="nope", ps_browser="x"))
    as_owner_missing = client.get(missing, headers=member_cookies(owner))
    answers = [as_stranger, as_visitor, with_garbage, as_owner_missing]
    assert [answer.status_code for answer in answers] == [404] * 4
    assert len({answer.content for answer in answers}) == 1  # nothing tells them apart


def test_an_expired_access_token_in_a_browser_with_a_live_session_still_works(
    client, db, owner, owners_key
):
    expired, _ = tokens.issue_access_token(
        db,
        user_id=owner.user_id,
        session_id=db.exec(select(AuthSession.id)).first(),
        email=owner.email,
        aal="aal1",
        amr=[{"method": "password", "timestamp": 0}],
        issued_at=utcnow() - timedelta(hours=3),
    )
    assert service.resolve_user(db, expired) is None
    headers = cookies(**{ACCESS_COOKIE: expired, BROWSER_COOKIE: browser_key_of(owner)})
    tokens_before = db.exec(select(func.count()).select_from(RefreshToken)).one()

    assert client.get(media_url(owners_key), headers=headers).status_code == 200
    assert client.get(media_url(owners_key), headers=headers).status_code == 200

    # looked up, not rotated: no new token, the browser's one is still unspent
    db.expire_all()
    assert db.exec(select(func.count()).select_from(RefreshToken)).one() == tokens_before
    record = db.exec(
        select(RefreshToken).where(
            RefreshToken.token_hash == tokens.hash_secret(owner.refresh_token)
        )
    ).one()
    assert record.used_at is None


def test_a_refresh_token_in_a_cookie_or_another_browsers_key_is_not_enough(
    client, owner, owners_key
):
    as_before = cookies(ps_refresh_token=owner.refresh_token)  # where it used to be kept
    another_browser = cookies(**{BROWSER_COOKIE: "another-browser"})
    assert client.get(media_url(owners_key), headers=as_before).status_code == 404
    assert client.get(media_url(owners_key), headers=another_browser).status_code == 404


def test_a_browser_whose_session_is_spent_expired_or_revoked_sees_nothing(
    client, db, owner, owners_key
):
    only_the_browser = browser_cookie(owner)
    assert client.get(media_url(owners_key), headers=only_the_browser).status_code == 200

    long_ago = utcnow() - timedelta(minutes=5)
    db.execute(update(RefreshToken).values(used_at=long_ago))
    db.commit()
    assert client.get(media_url(owners_key), headers=only_the_browser).status_code == 404

    db.execute(update(RefreshToken).values(used_at=None, expires_at=long_ago))
    db.commit()
    assert client.get(media_url(owners_key), headers=only_the_browser).status_code == 404

    db.execute(update(RefreshToken).values(expires_at=utcnow() + timedelta(days=1)))
    db.commit()
    assert client.get(media_url(owners_key), headers=only_the_browser).status_code == 200
    service.sign_out(db, owner.access_token)
    db.commit()
    assert client.get(media_url(owners_key), headers=member_cookies(owner)).status_code == 404


# ---------------------------------------------------------------------------
# Leaderboard photos
# ---------------------------------------------------------------------------
def test_a_listed_photo_is_served_to_everyone(client, db, owner, stranger, store, owners_key):
    edited_key = store.save(b"edited", owner=MediaOwner.member(owner.user_id), ext="png")
    list_photo(db, owner.user_id, original=media_url(owners_key), edited=media_url(edited_key))
    for headers in ({}, member_cookies(stranger), member_cookies(owner)):
        response = client.get(media_url(owners_key), headers=headers)
        assert response.status_code == 200
        assert response.headers["cache-control"] == "public, max-age=3600"
    edited = client.get(media_url(edited_key))
    assert edited.status_code == 200 and edited.content == b"edited"
    assert edited.headers["content-type"] == "image/png"


def test_an_unlisted_photo_stays_private(client, db, owner, stranger, owners_key):
    list_photo(db, owner.user_id, original=media_url(owners_key), listed=False)
    assert client.get(media_url(owners_key), headers=member_cookies(stranger)).status_code == 404
    assert client.get(media_url(owners_key), headers=member_cookies(owner)).status_code == 200


def test_a_listed_row_of_someone_else_cannot_publish_the_owners_file(
    client, db, stranger, owners_key
):
    list_photo(db, stranger.user_id, original=media_url(owners_key))
    assert client.get(media_url(owners_key)).status_code == 404
    assert client.get(media_url(owners_key), headers=member_cookies(stranger)).status_code == 404


# ---------------------------------------------------------------------------
# Visitors' files
# ---------------------------------------------------------------------------
def test_a_visitor_file_is_served_only_with_the_right_visitor_cookie(client, store, owner):
    key = store.save(b"visitor result", owner=MediaOwner.visitor(VISITOR_SECRET), ext="jpg")
    mine = client.get(media_url(key), headers=cookies(**{VISITOR_COOKIE: VISITOR_SECRET}))
    assert mine.status_code == 200 and mine.content == b"visitor result"
    assert mine.headers["cache-control"] == "private, max-age=3600"
    wrong = cookies(**{VISITOR_COOKIE: VISITOR_SECRET + "x"})
    assert client.get(media_url(key), headers=wrong).status_code == 404
    assert client.get(media_url(key)).status_code == 404
    assert client.get(media_url(key), headers=member_cookies(owner)).status_code == 404
    # the visitor id itself is public (it is in the URL): presenting it proves nothing
    public_id = key.split("/")[1]
    assert client.get(media_url(key), headers=cookies(ps_visitor=public_id)).status_code == 404


# ---------------------------------------------------------------------------
# Keys that are not ours
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "path",
    [
        "/media/u/%2e%2e/%2e%2e/outside.txt",
        "/media/%2e%2e/outside.txt",
        "/media/%2Ftmp%2Foutside.txt",
        "/media/u%5C..%5C..%5Coutside.txt",
        "/media/u/",
        "/media/u",
        "/media/",
    ],
)
def test_traversal_and_folder_requests_get_404(client, store, owner, owners_key, path):
    if isinstance(store, LocalMediaStore):
        (store.root.parent / "outside.txt").write_text("must never be served")
    folder = "/media/" + owners_key.rsplit("/", 1)[0]
    for url in (path, folder, folder + "/"):
        response = client.get(url, headers=member_cookies(owner))
        assert response.status_code == 404
        assert b"must never be served" not in response.content
        assert owners_key.rsplit("/", 1)[1].encode() not in response.content  # no listing


def test_an_api_client_gets_its_own_file_with_a_bearer_token_and_nobody_elses(
    client, owner, stranger, owners_key, photo_bytes
):
    def bearer(session_tokens) -> dict[str, str]:
        return {"Authorization": f"Bearer {session_tokens.access_token}"}

    as_owner = client.get(media_url(owners_key), headers=bearer(owner))
    as_stranger = client.get(media_url(owners_key), headers=bearer(stranger))

    assert as_owner.status_code == 200 and as_owner.content == photo_bytes
    assert as_stranger.status_code == 404


def test_a_password_only_session_of_a_member_with_an_authenticator_sees_no_photo(
    client, db, owner, owners_key
):
    owner_now = service.resolve_user(db, owner.access_token)
    enrolment = mfa.enroll_totp(db, owner_now, "phone")
    db.get(MfaFactor, enrolment.factor_id).status = "verified"
    db.commit()
    password_only = service.sign_in(db, "owner@example.com", "secret1")
    db.commit()
    service.bind_browser(db, "a-second-browser", password_only.refresh_token)
    db.commit()

    by_bearer = client.get(
        media_url(owners_key), headers={"Authorization": f"Bearer {password_only.access_token}"}
    )
    by_access_cookie = client.get(
        media_url(owners_key), headers=cookies(**{ACCESS_COOKIE: password_only.access_token})
    )
    by_browser_key_alone = client.get(
        media_url(owners_key), headers=cookies(**{BROWSER_COOKIE: "a-second-browser"})
    )

    assert [
        by_bearer.status_code,
        by_access_cookie.status_code,
        by_browser_key_alone.status_code,
    ] == [404] * 3
