"""/auth/v1 rate limits: 429 with Retry-After, the same for known and unknown emails.

The limits are set small for each test through the settings' environment variables; the
counts start from zero in every test (``fresh_rate_limits``). The shared-storage test
runs the limiter on Redis, as several workers would.
"""

# ruff: noqa: F811  (test parameters are the fixtures imported from tests.helpers.auth_api)
from __future__ import annotations

import uuid

import pytest

from prettyscore.core import messages
from prettyscore.core.rate_limits import limiter_for
from tests.conftest import REDIS_SKIP_REASON, redis_url
from tests.helpers.auth_api import (  # noqa: F401  (fixtures)
    PASSWORD,
    V2024,
    auth_settings,
    fresh_rate_limits,
    mails_to,
    new_email,
    sign_in,
    sign_up,
)


def status_and_body(answer) -> tuple[int, dict]:
    return answer.status_code, answer.json()


def assert_rate_limited(answer, code: str = "over_request_rate_limit") -> None:
    assert answer.status_code == 429
    assert answer.json()["error_code"] == code
    assert int(answer.headers["Retry-After"]) >= 1


def test_failed_sign_ins_per_email_from_one_address_lock_known_and_unknown_emails_alike(
    api, new_email, auth_settings
):
    auth_settings(RATE_LIMIT_SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS="3 per 15 minutes")
    known, unknown = new_email(), new_email()
    sign_up(api, known)

    answers = {}
    for email in (known, unknown):
        failures = [sign_in(api, email, "wrong password") for _ in range(3)]
        assert [answer.status_code for answer in failures] == [400] * 3
        answers[email] = sign_in(api, email)  # even the right password now waits

    assert_rate_limited(answers[known])
    assert status_and_body(answers[known]) == status_and_body(answers[unknown])
    assert answers[known].json()["msg"] == messages.OVER_REQUEST_RATE_LIMIT
    other = new_email()
    sign_up(api, other)
    assert sign_in(api, other).status_code == 200


def test_failed_sign_ins_per_address_lock_the_address_for_every_email(
    api, new_email, auth_settings
):
    auth_settings(RATE_LIMIT_SIGN_IN_FAILURES_PER_ADDRESS="3 per 15 minutes")
    member = new_email()
    sign_up(api, member)

    failures = [sign_in(api, new_email(), "wrong password") for _ in range(3)]
    refused = sign_in(api, member)
    code_guess = api.post(
        "/auth/v1/verify",
        json={"type": "email", "email": member, "token": "123456"},
        headers=V2024,
    )

    assert [answer.status_code for answer in failures] == [400] * 3
    assert_rate_limited(refused)
    assert (code_guess.status_code, code_guess.json()["code"]) == (429, "over_request_rate_limit")


def test_successful_sign_ins_do_not_count(api, new_email, auth_settings):
    auth_settings(
        RATE_LIMIT_SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS="2 per 15 minutes",
        RATE_LIMIT_SIGN_IN_FAILURES_PER_ADDRESS="2 per 15 minutes",
    )
    email = new_email()
    sign_up(api, email)

    assert [sign_in(api, email).status_code for _ in range(3)] == [200] * 3


def test_sign_ups_per_address(api, new_email, auth_settings):
    auth_settings(RATE_LIMIT_SIGN_UPS_PER_ADDRESS="2 per hour")
    sign_up(api, new_email())
    sign_up(api, new_email())

    third = api.post("/auth/v1/signup", json={"email": new_email(), "password": PASSWORD})

    assert_rate_limited(third)


def test_one_mail_a_minute_per_email_known_or_not(api, outbox, new_email):
    known, unknown = new_email(), new_email()
    sign_up(api, known)

    first = {
        email: api.post("/auth/v1/recover", json={"email": email}) for email in (known, unknown)
    }
    again = {
        email: api.post("/auth/v1/recover", json={"email": email}) for email in (known, unknown)
    }
    otp = api.post("/auth/v1/otp", json={"email": known})
    resend = api.post("/auth/v1/resend", json={"type": "signup", "email": unknown})

    assert all(status_and_body(answer) == (200, {}) for answer in first.values())
    for answer in (again[known], again[unknown], otp, resend):
        assert_rate_limited(answer, "over_email_send_rate_limit")
    assert status_and_body(again[known]) == status_and_body(again[unknown])
    assert again[known].json()["msg"].startswith("For security purposes")
    assert len(mails_to(outbox, known)) == 1


def test_mails_per_address(api, new_email, auth_settings):
    auth_settings(RATE_LIMIT_MAILS_PER_ADDRESS="2 per hour")

    answers = [api.post("/auth/v1/recover", json={"email": new_email()}) for _ in range(3)]

    assert [answer.status_code for answer in answers[:2]] == [200, 200]
    assert_rate_limited(answers[2])


@pytest.fixture
def redis_limiters():
    """Two limiters on one Redis, as two workers would have, under a prefix of their own."""
    url = redis_url()
    if url is None:
        pytest.skip(REDIS_SKIP_REASON)
    prefix = f"prettyscore-rate-limits-test-{uuid.uuid4().hex[:8]}"
    first, second = limiter_for(url, key_prefix=prefix), limiter_for(url, key_prefix=prefix)
    yield first, second
    first.reset()


def test_workers_on_redis_share_their_counts(redis_limiters):
    first, second = redis_limiters

    assert first.hit("2 per minute", "sign-ups-address", "203.0.113.9")
    assert second.hit("2 per minute", "sign-ups-address", "203.0.113.9")

    assert not first.hit("2 per minute", "sign-ups-address", "203.0.113.9")
    assert not second.allows("2 per minute", "sign-ups-address", "203.0.113.9")
    assert second.allows("2 per minute", "sign-ups-address", "198.51.100.7")
    assert 1 <= first.retry_after("2 per minute", "sign-ups-address", "203.0.113.9") <= 60
    second.reset()
    assert first.allows("2 per minute", "sign-ups-address", "203.0.113.9")
