"""Referral links (document 001 §2 /r/{code}, §7 track-referral) and sign-up credit:
the link counts clicks for approved partners only (a browser once a day: see
tests/api/test_referral_clicks.py) and leaves the 60-day cookie, over real HTTP through
the route the app mounts; a member who signs up with the cookie is credited to that
partner, never to themselves. Both databases."""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import Iterator
from http.cookies import SimpleCookie

import httpx
import pytest
from sqlmodel import select
from starlette.applications import Starlette

from prettyscore.accounts.models import Profile
from prettyscore.core.db import get_engine
from prettyscore.core.settings import get_settings
from prettyscore.partners import referrals
from prettyscore.partners.api import partner_routes
from prettyscore.partners.models import PartnerAccount, PartnerStatus
from prettyscore.web.browser_key import browser_cookie_name, issue_browser_key

SIXTY_DAYS = 60 * 24 * 60 * 60


def clicks(db, account: PartnerAccount) -> int:
    db.rollback()
    db.expire_all()  # read what other sessions committed
    return db.get(PartnerAccount, account.id).total_clicks


def a_browser() -> referrals.Clicker:
    """A browser of its own (its key), at a documentation address."""
    return referrals.Clicker("192.0.2.10", secrets.token_urlsafe(12))


def referrer_of(db, user_id):
    return db.exec(select(Profile.referred_by_partner).where(Profile.id == user_id)).one()


# ---------------------------------------------------------------------------
# track-referral
# ---------------------------------------------------------------------------
def test_an_approved_partners_code_counts_a_click(db, make_partner):
    anna = make_partner("ANNA")
    assert referrals.track_referral(db, "ANNA", a_browser()) == "ANNA"
    assert referrals.track_referral(db, "anna", a_browser()) == "ANNA"
    db.commit()
    assert clicks(db, anna) == 2


@pytest.mark.parametrize("status", [PartnerStatus.PENDING, PartnerStatus.SUSPENDED])
def test_a_pending_or_suspended_partner_gets_no_click(db, make_partner, status):
    partner = make_partner("WAIT", status=status)
    assert referrals.track_referral(db, "WAIT", a_browser()) is None
    db.commit()
    assert clicks(db, partner) == 0


@pytest.mark.parametrize("code", ["NOBODY", "", "AN-NA", "A" * 11, None])
def test_an_unknown_code_counts_nothing(db, make_partner, code):
    anna = make_partner("ANNA")
    assert referrals.track_referral(db, code, a_browser()) is None
    db.commit()
    assert clicks(db, anna) == 0


def test_simultaneous_clicks_all_count(db, db_factory, make_partner):
    anna = make_partner("ANNA")
    start = threading.Barrier(8)

    def click():
        start.wait()
        with db_factory() as session:
            referrals.track_referral(session, "ANNA", a_browser())

    threads = [threading.Thread(target=click) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert clicks(db, anna) == 8


# ---------------------------------------------------------------------------
# /r/{code} over HTTP
# ---------------------------------------------------------------------------
@pytest.fixture
def link_client(db_engine, migrated_database_url, monkeypatch) -> Iterator[LinkClient]:
    """An HTTP client of the referral route, the app's engine on the test database."""
    monkeypatch.setenv("DATABASE_URL", migrated_database_url)
    get_settings.cache_clear()
    get_engine.cache_clear()
    try:
        yield LinkClient()
    finally:
        get_engine().dispose()
        get_engine.cache_clear()


class LinkClient:
    """Requests to the route the app mounts, over its ASGI interface (no redirects
    followed, so the response of the link itself is what is seen)."""

    def request(self, method: str, path: str, headers: dict | None = None) -> httpx.Response:
        async def call() -> httpx.Response:
            transport = httpx.ASGITransport(app=Starlette(routes=partner_routes()))
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
                return await http.request(method, path, headers=headers)

        return asyncio.run(call())

    def get(self, path: str, headers: dict | None = None) -> httpx.Response:
        return self.request("GET", path, headers)


def set_cookie(response) -> SimpleCookie:
    jar = SimpleCookie()
    for header in response.headers.get_list("set-cookie"):
        jar.load(header)
    return jar


def test_the_link_counts_sets_the_60_day_cookie_and_goes_home(db, make_partner, link_client):
    anna = make_partner("ANNA")
    response = link_client.get("/r/anna")
    assert response.status_code == 302
    assert response.headers["location"] == "/"
    assert "Redirecting..." in response.text
    cookie = set_cookie(response)["affiliate_code"]
    assert cookie.value == "ANNA"
    assert cookie["max-age"] == str(SIXTY_DAYS)
    assert cookie["path"] == "/"
    assert cookie["httponly"] and cookie["samesite"].lower() == "lax"
    assert clicks(db, anna) == 1

    cookie = browser_cookie_name(get_settings().secure_cookies)
    another_browser = {"Cookie": f"{cookie}={issue_browser_key()}"}
    link_client.get("/r/ANNA/", another_browser)  # the trailing slash too
    assert clicks(db, anna) == 2


@pytest.mark.parametrize("path", ["/r/NOBODY", "/r/WAIT", "/r/%3Cscript%3E"])
def test_other_codes_just_go_home_without_a_cookie(db, make_partner, link_client, path):
    make_partner("WAIT", status=PartnerStatus.PENDING)
    response = link_client.get(path)
    assert (response.status_code, response.headers["location"]) == (302, "/")
    assert "set-cookie" not in response.headers


def test_a_link_preview_head_request_counts_nothing(db, make_partner, link_client):
    anna = make_partner("ANNA")
    response = link_client.request("HEAD", "/r/ANNA")
    assert response.status_code == 302
    assert "set-cookie" not in response.headers
    assert clicks(db, anna) == 0


# ---------------------------------------------------------------------------
# Credit at sign-up
# ---------------------------------------------------------------------------
def test_the_cookie_is_read_from_the_cookie_header():
    header = "ps_visitor=abc; affiliate_code=ANNA; ps_access_token=x.y.z"
    assert referrals.referral_code_from_cookies(header) == "ANNA"
    assert referrals.referral_code_from_cookies("ps_visitor=abc") is None
    assert referrals.referral_code_from_cookies("") is None
    assert referrals.referral_code_from_cookies(None) is None


def test_signing_up_with_the_cookie_credits_the_partner(db, make_partner):
    anna = make_partner("ANNA")
    tokens = referrals.sign_up_with_referral(
        db, "new@example.com", "secret12", referral_code="ANNA"
    )
    db.commit()
    assert referrer_of(db, tokens.user_id) == anna.id


@pytest.mark.parametrize(
    ("code", "status"),
    [(None, "approved"), ("NOBODY", "approved"), ("ANNA", PartnerStatus.PENDING)],
)
def test_no_credit_without_an_approved_partners_code(db, make_partner, code, status):
    make_partner("ANNA", status=status)
    tokens = referrals.sign_up_with_referral(db, "new@example.com", "secret12", referral_code=code)
    db.commit()
    assert referrer_of(db, tokens.user_id) is None


def test_a_partner_cannot_refer_themselves_and_credit_is_not_moved(db, make_partner):
    anna, bob = make_partner("ANNA"), make_partner("BOB")
    referred = referrals.sign_up_with_referral(db, "r@example.com", "secret12", referral_code="BOB")
    db.add(Profile(id=anna.user_id))
    db.commit()

    assert referrals.attribute_referral(db, anna.user_id, "ANNA") is None
    assert referrals.attribute_referral(db, referred.user_id, "ANNA") is None
    db.commit()
    assert referrer_of(db, anna.user_id) is None
    assert referrer_of(db, referred.user_id) == bob.id
