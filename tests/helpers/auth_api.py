"""What the /auth/v1 tests share: fresh rate limits, settings of the moment, mail reading.

Import the fixtures into a test module (``from tests.helpers.auth_api import ...``):
``fresh_rate_limits`` is autouse there, so every test starts with no counted attempts.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from prettyscore.core.rate_limits import reset_rate_limits
from prettyscore.core.settings import get_settings
from tests.helpers.api_server import Outbox

V2024 = {"X-Supabase-Api-Version": "2024-01-01"}
PASSWORD = "correct horse"

_CODE = re.compile(r"Your code: (\d{6})")
_VERIFY_LINK = re.compile(r"(https?://\S+/auth/v1/verify\?\S+)")
_RESET_LINK = re.compile(r"(https?://\S+/auth/reset\?token=\S+)")


@pytest.fixture(autouse=True)
def fresh_rate_limits() -> Iterator[None]:
    """Every test counts its own attempts only (the server shares this process's limiter)."""
    reset_rate_limits()
    yield
    reset_rate_limits()


@pytest.fixture
def auth_settings(api_server) -> Iterator:
    """Set some of the server's settings (env names) for one test: ``auth_settings(X="1")``."""
    environment = pytest.MonkeyPatch()

    def apply(**values: str) -> None:
        for name, value in values.items():
            environment.setenv(name, value)
        get_settings.cache_clear()

    yield apply
    environment.undo()
    get_settings.cache_clear()


@pytest.fixture
def new_email() -> Iterator:
    """A fresh address per call, so mail from other tests never answers for this one."""
    return lambda: f"member-{uuid.uuid4().hex[:12]}@example.com"


def bearer(access_token: str) -> dict:
    return {"Authorization": f"Bearer {access_token}"}


def sign_up(api: httpx.Client, email: str, password: str = PASSWORD, **body) -> dict:
    answer = api.post("/auth/v1/signup", json={"email": email, "password": password, **body})
    assert answer.status_code == 200, answer.text
    return answer.json()


def sign_in(api: httpx.Client, email: str, password: str = PASSWORD) -> httpx.Response:
    return api.post(
        "/auth/v1/token",
        params={"grant_type": "password"},
        json={"email": email, "password": password},
    )


def mails_to(outbox: Outbox, address: str) -> list:
    return outbox.messages(address)


def code_in(outbox: Outbox, address: str) -> str:
    """The 6-digit code of the newest mail to ``address``."""
    match = _CODE.search(Outbox.text(outbox.latest(address)))
    assert match, "no code in the mail"
    return match.group(1)


def verify_link_in(outbox: Outbox, address: str) -> str:
    """The /auth/v1/verify link of the newest mail to ``address``."""
    match = _VERIFY_LINK.search(Outbox.text(outbox.latest(address)))
    assert match, "no verify link in the mail"
    return match.group(1)


def reset_page_link_in(outbox: Outbox, address: str) -> str:
    match = _RESET_LINK.search(Outbox.text(outbox.latest(address)))
    assert match, "no /auth/reset link in the mail"
    return match.group(1)


def link_query(link: str) -> dict:
    """The query of a link, one value per name."""
    return {name: values[0] for name, values in parse_qs(urlsplit(link).query).items()}


def open_link(api: httpx.Client, link: str) -> httpx.Response:
    """GET a mailed link on the API server (no redirect followed)."""
    parts = urlsplit(link)
    return api.get(parts.path, params=link_query(link))


def fragment_of(location: str) -> dict:
    return {name: values[0] for name, values in parse_qs(urlsplit(location).fragment).items()}


def query_of(location: str) -> dict:
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}
