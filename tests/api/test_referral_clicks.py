"""A partner's clicks count people, not calls: a browser's clicks on one partner's link
(the track-referral function or /r/{code}) count once a day, and one address's calls for
one partner are limited (429 with Retry-After; the link just goes home). Over real HTTP,
on both databases; beside PostgreSQL the counts live in Redis, as with several workers.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import httpx
import pytest

from prettyscore.core import messages
from prettyscore.core.settings import get_settings
from prettyscore.partners.models import PartnerAccount
from prettyscore.web.browser_key import browser_cookie_name, issue_browser_key
from tests.api.functions_support import call
from tests.api.test_functions_access import clicks, partner
from tests.conftest import REDIS_SKIP_REASON, redis_url

#: The calls one address may make for one partner's code in an hour.
CALLS_PER_ADDRESS_PER_HOUR = 20


@pytest.fixture
def counts_where_the_app_keeps_them(api_server, migrated_database_url) -> Iterator[None]:
    """The server counts in memory beside SQLite and in Redis beside PostgreSQL. Every
    test's partner is new, so no count of another test (or process) is ever its own."""
    environment = pytest.MonkeyPatch()
    if migrated_database_url.startswith("postgres"):
        url = redis_url()
        if url is None:
            pytest.skip(REDIS_SKIP_REASON)
        environment.setenv("REDIS_URL", url)
    get_settings.cache_clear()
    yield
    environment.undo()
    get_settings.cache_clear()


def a_browser() -> dict[str, str]:
    """The Cookie header of a browser of its own (a key the server issued, as each page
    answer gives one to a browser that has none)."""
    cookie = browser_cookie_name(get_settings().secure_cookies)
    return {"Cookie": f"{cookie}={issue_browser_key()}"}


def track(api: httpx.Client, code: str, headers: dict | None = None) -> httpx.Response:
    return api.post("/functions/v1/track-referral", json={"code": code}, headers=headers or {})


def follow(api: httpx.Client, code: str, headers: dict | None = None) -> httpx.Response:
    return api.get(f"/r/{code}", headers=headers or {}, follow_redirects=False)


def approved_partner(db) -> tuple[PartnerAccount, str]:
    code = "P" + secrets.token_hex(3).upper()
    return partner(db, code, approve=True), code


def test_one_browser_counts_once_however_often_it_calls(api, db, counts_where_the_app_keeps_them):
    account, code = approved_partner(db)
    browser = a_browser()

    answers = [call(api, "track-referral", code=code) for _ in range(11)]  # no cookie
    answers += [track(api, code, browser) for _ in range(3)]
    answers += [follow(api, code, browser)]

    assert [answer.status_code for answer in answers[:-1]] == [200] * 14
    assert {answer.json()["success"] for answer in answers[:-1]} == {True}
    assert all("affiliate_code=" in answer.headers["set-cookie"] for answer in answers)
    assert clicks(db, account) == 2  # the address without a browser key, and the browser


def test_one_address_is_limited_however_many_browsers_it_claims(
    api, db, counts_where_the_app_keeps_them
):
    account, code = approved_partner(db)
    other, other_code = approved_partner(db)

    allowed = [track(api, code, a_browser()) for _ in range(CALLS_PER_ADDRESS_PER_HOUR)]
    refused = track(api, code, a_browser())
    link = follow(api, code, a_browser())

    assert {answer.status_code for answer in allowed} == {200}
    assert refused.status_code == 429
    assert refused.json()["error"] == messages.OVER_REQUEST_RATE_LIMIT
    assert int(refused.headers["Retry-After"]) >= 1
    assert "set-cookie" not in refused.headers
    assert (link.status_code, link.headers["location"]) == (302, "/")
    assert "set-cookie" not in link.headers
    assert clicks(db, account) == CALLS_PER_ADDRESS_PER_HOUR
    assert track(api, other_code, a_browser()).json() == {"success": True}
    assert clicks(db, other) == 1
