"""Strangers who have the password cannot lock the owner out of their authenticator.

Wrong codes are counted per factor and address, and per factor from anywhere (100 a
day): ten addresses with the password spend the factor's day over the REST API. A
stranger's correct code is then refused, even from the owner's own address; the owner's
correct code, typed on the sign-in page of a browser that has signed in to the account
before, passes. Pages are driven through the app's event socket (SQLite with in-memory
tab states, PostgreSQL with Redis); the guesses are HTTP requests from 127.0.0.2-11.
"""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest
from reflex_base.utils.form import FORM_DATA_ENTRIES_KEY

from prettyscore.accounts import mfa, service
from prettyscore.accounts.form_state import AuthFormState
from prettyscore.accounts.models import MfaFactorStatus
from prettyscore.accounts.state import AuthState
from prettyscore.core import messages
from prettyscore.web.browser_key import issue_browser_key
from tests.fixtures.event_socket import (
    EventSockets,
    browser_cookie,
    event_sockets,
    handed_ticket,
    redirects,
    seen,
)
from tests.fixtures.totp import fresh_code, wrong_code
from tests.helpers.auth_api import fresh_rate_limits  # noqa: F401  (fixture)
from tests.security.test_browser_keys import given_cookie, hand_over

PASSWORD = "secret12"
GUESSING_ADDRESSES = [f"127.0.0.{n}" for n in range(2, 12)]


def form(**fields: str) -> dict:
    """A form as the browser's ``getFormData`` sends it."""
    return {"form": {FORM_DATA_ENTRIES_KEY: [[name, value] for name, value in fields.items()]}}


@pytest.fixture
def owner(db_factory, app_database) -> service.SessionTokens:
    """A member, signed up a moment ago."""
    with db_factory() as db:
        return service.sign_up(db, f"owner-{uuid.uuid4().hex[:8]}@example.com", PASSWORD)


def add_authenticator(db_factory, tokens: service.SessionTokens) -> tuple[str, str]:
    """The member's verified authenticator, none of its codes used yet: (id, secret)."""
    with db_factory() as db:
        enrolment = mfa.enroll_totp(db, service.resolve_user(db, tokens.access_token))
        mfa.list_factors(db, tokens.user_id)[0].status = MfaFactorStatus.VERIFIED
    return str(enrolment.factor_id), enrolment.secret


def spend_the_factors_day(api, email: str, factor: str, secret: str) -> None:
    """Ten addresses with the password send ten wrong codes each (two challenges)."""
    body = {"email": email, "password": PASSWORD}
    access = api.post("/auth/v1/token", params={"grant_type": "password"}, json=body)
    headers = {"Authorization": f"Bearer {access.json()['access_token']}"}
    for address in GUESSING_ADDRESSES:
        transport = httpx.HTTPTransport(local_address=address)
        with httpx.Client(base_url=api.base_url, transport=transport, timeout=30) as there:
            for _ in range(2):
                challenge = there.post(
                    f"/auth/v1/factors/{factor}/challenge", json={}, headers=headers
                ).json()["id"]
                for _ in range(5):
                    answer = there.post(
                        f"/auth/v1/factors/{factor}/verify",
                        json={"challenge_id": challenge, "code": wrong_code(secret)},
                        headers=headers,
                    )
                    assert answer.status_code == 422, answer.text


async def sign_in_with_code(app: EventSockets, key: str, email: str, code: str) -> list:
    """A new tab of the browser holding ``key`` signs in: password, then the code."""
    tab = app.socket(browser_cookie(key), path="/auth")
    await tab.connect()
    first = await tab.send(AuthFormState, "submit_sign_in", form(email=email, password=PASSWORD))
    assert redirects(first) == []  # the second step
    return await tab.send(AuthFormState, "submit_second_step", form(code=code))


@pytest.mark.parametrize("then", ["stays signed in", "signs out"])
def test_a_known_browsers_correct_code_passes_the_lock_out_strangers_stay_locked_out(
    api, db_factory, owner, state_manager_url, then
):
    email = owner.email

    async def first_sign_in() -> str:
        """The owner's browser signs in (before the authenticator), and perhaps out: its
        key afterwards (each replaced the one before)."""
        async with event_sockets(state_manager_url) as app:
            key = issue_browser_key()
            tab = app.socket(browser_cookie(key), path="/auth")
            await tab.connect()
            signed_in = await tab.send(
                AuthFormState, "submit_sign_in", form(email=email, password=PASSWORD)
            )
            assert redirects(signed_in) == ["/dashboard"]
            key = given_cookie(hand_over(handed_ticket(signed_in), key))[1]
            if then == "signs out":
                signed_out = await tab.send(AuthState, "sign_out")
                assert redirects(signed_out) == ["/auth"]
                key = given_cookie(hand_over(handed_ticket(signed_out), key))[1]
            return key

    owners_browser = asyncio.run(first_sign_in())
    factor, secret = add_authenticator(db_factory, owner)
    spend_the_factors_day(api, email, factor, secret)

    async def both_sign_in() -> tuple[list, list]:
        async with event_sockets(state_manager_url) as app:
            code = fresh_code(secret)
            stranger = await sign_in_with_code(app, issue_browser_key(), email, code)
            owners = await sign_in_with_code(app, owners_browser, email, code)
            return stranger, owners

    stranger, owners = asyncio.run(both_sign_in())
    assert redirects(stranger) == []
    assert messages.RATE_LIMIT_EXCEEDED in seen(stranger)
    assert redirects(owners) == ["/dashboard"]


def test_a_known_browser_still_has_a_budget_of_wrong_codes_of_its_own(
    db_factory, owner, state_manager_url
):
    email = owner.email

    async def scenario() -> list:
        async with event_sockets(state_manager_url) as app:
            key = issue_browser_key()
            tab = app.socket(browser_cookie(key), path="/auth")
            await tab.connect()
            signed_in = await tab.send(
                AuthFormState, "submit_sign_in", form(email=email, password=PASSWORD)
            )
            known = given_cookie(hand_over(handed_ticket(signed_in), key))[1]
            _, secret = add_authenticator(db_factory, owner)
            tab = app.socket(browser_cookie(known), path="/auth")
            await tab.connect()
            await tab.send(AuthFormState, "submit_sign_in", form(email=email, password=PASSWORD))
            for _ in range(10):  # each try is a new challenge: the browser's count stops it
                wrong = await tab.send(
                    AuthFormState, "submit_second_step", form(code=wrong_code(secret))
                )
                assert messages.MFA_INVALID_CODE in seen(wrong)
            return await tab.send(
                AuthFormState, "submit_second_step", form(code=fresh_code(secret))
            )

    right_code_too_late = asyncio.run(scenario())
    assert redirects(right_code_too_late) == []
    assert messages.RATE_LIMIT_EXCEEDED in seen(right_code_too_late)
