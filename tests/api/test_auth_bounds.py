"""/auth/v1 is bounded: bodies are capped before they are read, and over-long passwords
are refused like any bad password (never a 500 that tells whether the account exists)."""

# ruff: noqa: F811  (test parameters are the fixtures imported from tests.helpers.auth_api)
from __future__ import annotations

from prettyscore.api.bodies import AUTH_MAX_BODY_BYTES
from prettyscore.core import messages
from tests.helpers.auth_api import (  # noqa: F401  (fixtures)
    V2024,
    auth_settings,
    bearer,
    fresh_rate_limits,
    new_email,
    sign_in,
    sign_up,
)

LONG_PASSWORD = "p" * 5000  # over passlib's 4,096 bytes


def test_a_body_over_the_cap_is_refused_before_it_is_read(api, new_email):
    padding = "x" * (AUTH_MAX_BODY_BYTES + 1)
    answer = api.post(
        "/auth/v1/signup",
        json={"email": new_email(), "password": "secret12", "data": {"bio": padding}},
        headers=V2024,
    )
    assert answer.status_code == 413
    assert answer.json() == {"code": "request_too_large", "message": messages.REQUEST_TOO_LARGE}


def test_an_endless_body_is_cut_off_at_the_cap(api):
    sent = []

    def endless():
        while True:
            sent.append(64 * 1024)
            yield b" " * (64 * 1024)
            if sum(sent) > 50 * AUTH_MAX_BODY_BYTES:
                return  # the server should have stopped reading long before

    answer = api.post("/auth/v1/signup", content=endless(), headers=V2024)
    assert answer.status_code == 413


def test_a_normal_sign_up_still_fits(api, new_email):
    assert sign_up(api, new_email())["user"]["email"]


def test_an_over_long_password_is_a_weak_password_at_sign_up(api, new_email):
    answer = api.post(
        "/auth/v1/signup", json={"email": new_email(), "password": LONG_PASSWORD}, headers=V2024
    )
    assert answer.status_code == 422
    assert answer.json()["code"] == "weak_password"
    assert answer.json()["message"] == messages.PASSWORD_TOO_LONG


def test_an_over_long_password_signs_nobody_in_and_tells_nothing(api, new_email):
    email = new_email()
    sign_up(api, email)
    known = sign_in(api, email, LONG_PASSWORD)
    unknown = sign_in(api, new_email(), LONG_PASSWORD)
    assert known.status_code == unknown.status_code == 400
    assert known.json() == unknown.json()
    assert known.json()["error_code"] == "invalid_credentials"


def test_changing_to_an_over_long_password_is_refused(api, new_email):
    session = sign_up(api, new_email())
    answer = api.put(
        "/auth/v1/user",
        json={"password": LONG_PASSWORD},
        headers={**bearer(session["access_token"]), **V2024},
    )
    assert answer.status_code == 422
    assert answer.json()["code"] == "weak_password"
