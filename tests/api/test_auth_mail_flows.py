"""/auth/v1 sign-in by mail: codes and links from /otp, /recover, /resend, email change and
reauthentication; /verify by code, by token hash and by link; PKCE flows.

The mails are read from the server's outbox, exactly as a member would read them.
"""

# ruff: noqa: F811  (test parameters are the fixtures imported from tests.helpers.auth_api)
from __future__ import annotations

import base64
import hashlib
import secrets
import uuid
from datetime import timedelta

import jwt
import pytest
from sqlmodel import select

from prettyscore.accounts.models import AuthSession, MfaFactor, User
from prettyscore.core import messages
from tests.helpers.auth_api import (  # noqa: F401  (fixtures)
    PASSWORD,
    V2024,
    auth_settings,
    bearer,
    code_in,
    fragment_of,
    fresh_rate_limits,
    link_query,
    mails_to,
    new_email,
    open_link,
    query_of,
    reset_page_link_in,
    sign_in,
    sign_up,
    verify_link_in,
)

# Mail limits high enough for a test that mails one address more than once a minute.
SEVERAL_MAILS = "10 per minute"


def amr_method(session: dict) -> str:
    claims = jwt.decode(session["access_token"], options={"verify_signature": False})
    return claims["amr"][-1]["method"]


def request_otp(api, email: str, **body):
    return api.post("/auth/v1/otp", json={"email": email, **body})


def verify_code(api, email: str, code: str, verify_type: str = "email", headers=None):
    body = {"type": verify_type, "email": email, "token": code}
    return api.post("/auth/v1/verify", json=body, headers=headers)


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


# ---------------------------------------------------------------------------
# /otp and /verify
# ---------------------------------------------------------------------------
def test_otp_creates_the_member_and_the_code_signs_them_in_once(api, db, outbox, new_email):
    email = new_email()

    answer = request_otp(api, email, data={"plan": "free"})
    assert (answer.status_code, answer.json()) == (200, {})
    user = db.exec(select(User).where(User.email == email)).one()
    assert user.email_confirmed_at is None and user.user_metadata == {"plan": "free"}
    code = code_in(outbox, email)

    first = verify_code(api, email, code)
    second = verify_code(api, email, code, headers=V2024)

    assert first.status_code == 200
    session = first.json()
    assert session["user"]["email"] == email
    assert session["user"]["email_confirmed_at"] is not None
    assert amr_method(session) == "otp"
    assert (second.status_code, second.json()) == (
        403,
        {"code": "otp_expired", "message": messages.OTP_EXPIRED},
    )


def test_otp_for_a_known_member_leaves_the_password_working(api, outbox, new_email):
    email = new_email()
    sign_up(api, email)

    assert request_otp(api, email, create_user=False).json() == {}
    assert verify_code(api, email, code_in(outbox, email), "magiclink").status_code == 200
    assert sign_in(api, email).status_code == 200


def test_otp_without_sign_ups_answers_an_unknown_email_like_a_known_one(api, db, outbox, new_email):
    known, unknown = new_email(), new_email()
    sign_up(api, known)

    answers = [request_otp(api, email, create_user=False) for email in (known, unknown)]

    assert [(answer.status_code, answer.json()) for answer in answers] == [(200, {})] * 2
    assert db.exec(select(User).where(User.email == unknown)).first() is None
    assert mails_to(outbox, unknown) == []  # no mail, no account: nothing to sign in to
    assert len(mails_to(outbox, known)) == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "validation_failed"),
        ({"phone": "+15550100"}, "phone_provider_disabled"),
        ({"email": "not-an-email"}, "email_address_invalid"),
    ],
)
def test_otp_needs_an_email(api, body, code):
    answer = api.post("/auth/v1/otp", json=body)

    assert answer.status_code == 400
    assert answer.json()["error_code"] == code


def test_a_wrong_code_and_a_code_for_an_unknown_email_look_the_same(api, outbox, new_email):
    email = new_email()
    request_otp(api, email)
    right = code_in(outbox, email)
    wrong = f"{(int(right) + 1) % 1_000_000:06d}"

    for answer in (verify_code(api, email, wrong), verify_code(api, new_email(), right)):
        assert answer.status_code == 403
        assert answer.json() == {
            "code": 403,
            "error_code": "otp_expired",
            "msg": messages.OTP_EXPIRED,
        }


def test_a_new_mail_voids_the_previous_code(api, outbox, new_email, auth_settings):
    auth_settings(RATE_LIMIT_MAILS_PER_EMAIL=SEVERAL_MAILS)
    email = new_email()
    request_otp(api, email)
    old = code_in(outbox, email)
    request_otp(api, email)
    new = code_in(outbox, email)

    if old != new:
        assert verify_code(api, email, old).status_code == 403
    assert verify_code(api, email, new).status_code == 200


def test_codes_expire(api, outbox, new_email, auth_settings, clock):
    auth_settings(OTP_TTL_SECONDS="1")
    email = new_email()
    request_otp(api, email)
    code = code_in(outbox, email)

    clock.advance(seconds=1.2)

    assert verify_code(api, email, code).status_code == 403


def test_after_five_wrong_codes_the_right_one_is_void_too(api, outbox, new_email, auth_settings):
    auth_settings(RATE_LIMIT_MAILS_PER_EMAIL=SEVERAL_MAILS)
    email = new_email()
    request_otp(api, email)
    right = code_in(outbox, email)
    wrong = [f"{(int(right) + step) % 1_000_000:06d}" for step in range(1, 6)]

    answers = [verify_code(api, email, code).status_code for code in wrong]

    assert answers == [403] * 5
    assert verify_code(api, email, right).status_code == 403
    request_otp(api, email)
    assert verify_code(api, email, code_in(outbox, email)).status_code == 200


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"email": "a@example.com", "token": "123456"}, "validation_failed"),
        ({"type": "email", "email": "a@example.com"}, "validation_failed"),
        ({"type": "email", "token": "123456"}, "validation_failed"),
        ({"type": "carrier_pigeon", "token": "123456", "email": "a@b.co"}, "validation_failed"),
        ({"type": "sms", "token": "123456", "phone": "+15550100"}, "phone_provider_disabled"),
    ],
)
def test_verify_needs_a_type_a_token_and_where_it_was_sent(api, body, code):
    answer = api.post("/auth/v1/verify", json=body)

    assert answer.status_code == 400
    assert answer.json()["error_code"] == code


# ---------------------------------------------------------------------------
# Links
# ---------------------------------------------------------------------------
def test_the_magic_link_redirects_with_the_session_in_the_fragment(api, outbox, new_email):
    email = new_email()
    request_otp(api, email)
    link = verify_link_in(outbox, email)

    answer = open_link(api, link)

    assert answer.status_code == 303
    location = answer.headers["location"]
    assert location.startswith(f"{api.base_url}/dashboard#")
    session = fragment_of(location)
    assert session["token_type"] == "bearer" and session["type"] == "magiclink"
    assert int(session["expires_in"]) > 0 and session["refresh_token"]
    user = api.get("/auth/v1/user", headers=bearer(session["access_token"])).json()
    assert user["email"] == email
    assert amr_method(session) == "magiclink"
    # The code of the same mail is spent with its link.
    assert verify_code(api, email, code_in(outbox, email)).status_code == 403


def test_a_spent_link_redirects_with_the_error(api, outbox, new_email):
    email = new_email()
    request_otp(api, email)
    link = verify_link_in(outbox, email)
    open_link(api, link)

    again = open_link(api, link)

    assert again.status_code == 303
    error = fragment_of(again.headers["location"])
    assert error == {
        "error": "access_denied",
        "error_code": "otp_expired",
        "error_description": messages.EMAIL_LINK_EXPIRED,
    }


@pytest.mark.parametrize(
    ("redirect_to", "lands_on"),
    [
        ("/photos?tab=mine", "/photos?tab=mine#"),
        ("{base}/welcome", "/welcome#"),
        ("https://evil.example/steal", "/dashboard#"),
        ("//evil.example/steal", "/dashboard#"),
    ],
)
def test_links_return_only_to_this_site(api, outbox, new_email, redirect_to, lands_on):
    email = new_email()
    api.post(
        "/auth/v1/otp",
        json={"email": email},
        params={"redirect_to": redirect_to.format(base=api.base_url)},
    )

    answer = open_link(api, verify_link_in(outbox, email))

    assert answer.headers["location"].startswith(f"{api.base_url}{lands_on}")


def test_a_link_can_be_spent_by_its_token_hash(api, outbox, new_email):
    email = new_email()
    request_otp(api, email)
    token_hash = link_query(verify_link_in(outbox, email))["token"]

    first = api.post("/auth/v1/verify", json={"type": "magiclink", "token_hash": token_hash})
    second = api.post("/auth/v1/verify", json={"type": "magiclink", "token_hash": token_hash})

    assert first.status_code == 200 and first.json()["user"]["email"] == email
    assert second.status_code == 403 and second.json()["error_code"] == "otp_expired"


# ---------------------------------------------------------------------------
# PKCE
# ---------------------------------------------------------------------------
def start_pkce_sign_in(api, outbox, email, challenge, method="s256") -> str:
    """Request a PKCE magic link and open it: the auth code the redirect carries."""
    api.post(
        "/auth/v1/otp",
        json={"email": email, "code_challenge": challenge, "code_challenge_method": method},
        params={"redirect_to": "/auth/callback"},
    )
    link = verify_link_in(outbox, email)
    assert link_query(link)["token"].startswith("pkce_")
    answer = open_link(api, link)
    assert answer.status_code == 303
    location = answer.headers["location"]
    assert location.startswith(f"{api.base_url}/auth/callback?code=")
    return query_of(location)["code"]


def exchange(api, auth_code, verifier, headers=None):
    return api.post(
        "/auth/v1/token",
        params={"grant_type": "pkce"},
        json={"auth_code": auth_code, "code_verifier": verifier},
        headers=headers,
    )


def test_pkce_s256_flow_from_the_mail_to_a_session_once(api, outbox, new_email):
    email = new_email()
    verifier, challenge = pkce_pair()
    auth_code = start_pkce_sign_in(api, outbox, email, challenge)

    session = exchange(api, auth_code, verifier)
    replay = exchange(api, auth_code, verifier, headers=V2024)

    assert session.status_code == 200
    assert session.json()["user"]["email"] == email
    assert amr_method(session.json()) == "magiclink"
    assert (replay.status_code, replay.json()["code"]) == (404, "flow_state_not_found")


def test_pkce_plain_flow(api, outbox, new_email):
    verifier = secrets.token_urlsafe(48)
    auth_code = start_pkce_sign_in(api, outbox, new_email(), verifier, method="plain")

    assert exchange(api, auth_code, verifier).status_code == 200


def test_pkce_refuses_a_wrong_verifier_and_keeps_the_code_for_the_right_one(api, outbox, new_email):
    verifier, challenge = pkce_pair()
    auth_code = start_pkce_sign_in(api, outbox, new_email(), challenge)

    wrong = exchange(api, auth_code, pkce_pair()[0], headers=V2024)

    assert wrong.status_code == 400
    assert wrong.json() == {"code": "bad_code_verifier", "message": messages.BAD_CODE_VERIFIER}
    assert exchange(api, auth_code, verifier).status_code == 200


def test_pkce_auth_codes_expire(api, outbox, new_email, auth_settings, clock):
    auth_settings(FLOW_STATE_TTL_SECONDS="1")
    verifier, challenge = pkce_pair()
    auth_code = start_pkce_sign_in(api, outbox, new_email(), challenge)

    clock.advance(seconds=1.2)
    answer = exchange(api, auth_code, verifier)

    assert (answer.status_code, answer.json()["error_code"]) == (422, "flow_state_expired")


@pytest.mark.parametrize(
    "body",
    [
        {"auth_code": "", "code_verifier": "x"},
        {"auth_code": "x"},
    ],
)
def test_pkce_grant_needs_a_code_and_a_verifier(api, body):
    answer = api.post("/auth/v1/token", params={"grant_type": "pkce"}, json=body)

    assert (answer.status_code, answer.json()["error_code"]) == (400, "validation_failed")


def test_a_pkce_link_is_not_spent_by_token_hash(api, outbox, new_email):
    email = new_email()
    _, challenge = pkce_pair()
    request_otp(api, email, code_challenge=challenge, code_challenge_method="s256")
    token_hash = link_query(verify_link_in(outbox, email))["token"]

    answer = api.post("/auth/v1/verify", json={"type": "magiclink", "token_hash": token_hash})

    assert answer.status_code == 400
    assert answer.json()["msg"] == messages.VERIFY_PKCE_LINK_BY_GET


def test_half_a_pkce_challenge_is_refused(api, new_email):
    answer = request_otp(api, new_email(), code_challenge="x" * 43)

    assert (answer.status_code, answer.json()["error_code"]) == (400, "validation_failed")


# ---------------------------------------------------------------------------
# Recovery
# ---------------------------------------------------------------------------
def test_recover_answers_the_same_for_known_and_unknown_emails(api, outbox, new_email):
    known, unknown = new_email(), new_email()
    sign_up(api, known)

    answers = [api.post("/auth/v1/recover", json={"email": email}) for email in (known, unknown)]

    assert [(answer.status_code, answer.json()) for answer in answers] == [(200, {})] * 2
    assert len(mails_to(outbox, known)) == 1 and mails_to(outbox, unknown) == []


def test_the_recovery_code_signs_in_for_a_password_change(api, outbox, new_email):
    email = new_email()
    sign_up(api, email)
    api.post("/auth/v1/recover", json={"email": email})

    answer = verify_code(api, email, code_in(outbox, email), "recovery")

    assert answer.status_code == 200
    session = answer.json()
    assert amr_method(session) == "recovery"
    changed = api.put(
        "/auth/v1/user",
        json={"password": "a new password"},
        headers=bearer(session["access_token"]),
    )
    assert changed.status_code == 200
    assert sign_in(api, email, "a new password").status_code == 200
    assert sign_in(api, email).status_code == 400


def test_the_recovery_mail_still_opens_the_reset_page(api, outbox, new_email):
    email = new_email()
    sign_up(api, email)
    api.post("/auth/v1/recover", json={"email": email})

    link = reset_page_link_in(outbox, email)

    assert link.startswith(f"{api.base_url}/auth/reset?token=")
    assert "/auth/v1/verify" not in outbox.text(outbox.latest(email))


def test_recovery_with_pkce_goes_through_verify_to_the_app(api, outbox, new_email):
    email = new_email()
    sign_up(api, email)
    verifier, challenge = pkce_pair()
    api.post(
        "/auth/v1/recover",
        json={"email": email, "code_challenge": challenge, "code_challenge_method": "s256"},
        params={"redirect_to": "/account/password"},
    )

    location = open_link(api, verify_link_in(outbox, email)).headers["location"]
    assert location.startswith(f"{api.base_url}/account/password?code=")
    session = exchange(api, query_of(location)["code"], verifier)

    assert session.status_code == 200 and amr_method(session.json()) == "recovery"


# ---------------------------------------------------------------------------
# Resend
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"email": "a@example.com"}, "validation_failed"),
        ({"type": "signup"}, "validation_failed"),
        ({"type": "sms", "phone": "+15550100"}, "phone_provider_disabled"),
    ],
)
def test_resend_needs_an_email_and_a_type(api, body, code):
    answer = api.post("/auth/v1/resend", json=body, headers=V2024)

    assert (answer.status_code, answer.json()["code"]) == (400, code)


def test_resend_answers_the_same_for_every_email(api, outbox, new_email, auth_settings):
    auth_settings(RATE_LIMIT_MAILS_PER_EMAIL=SEVERAL_MAILS)
    confirmed, pending, unknown = new_email(), new_email(), new_email()
    sign_up(api, confirmed)
    request_otp(api, pending)  # created by /otp, not yet confirmed
    mailed_before = len(mails_to(outbox, pending))

    answers = [
        api.post("/auth/v1/resend", json={"type": "signup", "email": email})
        for email in (confirmed, pending, unknown)
    ]

    assert [(answer.status_code, answer.json()) for answer in answers] == [(200, {})] * 3
    assert mails_to(outbox, confirmed) == [] and mails_to(outbox, unknown) == []
    assert len(mails_to(outbox, pending)) == mailed_before + 1
    assert verify_code(api, pending, code_in(outbox, pending), "signup").status_code == 200


# ---------------------------------------------------------------------------
# PUT /user: metadata, email change, password and reauthentication
# ---------------------------------------------------------------------------
def test_update_user_merges_metadata(api, new_email):
    session = sign_up(api, new_email(), data={"keep": 1, "drop": 2})
    auth = bearer(session["access_token"])

    answer = api.put("/auth/v1/user", json={"data": {"drop": None, "add": "x"}}, headers=auth)

    assert answer.status_code == 200
    assert answer.json()["user_metadata"] == {"keep": 1, "add": "x"}
    assert api.get("/auth/v1/user", headers=auth).json()["user_metadata"] == {"keep": 1, "add": "x"}


def test_names_in_the_metadata_keep_no_direction_override_or_control(api, new_email):
    session = sign_up(api, new_email(), data={"name": "\x1b[31mAnn\x07", "plan": "\x07"})
    auth = bearer(session["access_token"])

    answer = api.put("/auth/v1/user", json={"data": {"full_name": "Bob\u202eevil"}}, headers=auth)

    assert answer.status_code == 200
    assert answer.json()["user_metadata"] == {
        "name": "[31mAnn",
        "plan": "\x07",  # not a name: the client's own data, as sent
        "full_name": "Bobevil",  # would show as "Boblive"
    }


def test_an_email_change_applies_when_the_new_address_verifies(api, outbox, new_email):
    old, new = new_email(), new_email()
    session = sign_up(api, old)
    auth = bearer(session["access_token"])

    answer = api.put(
        "/auth/v1/user", json={"email": new, "current_password": PASSWORD}, headers=auth
    )

    assert answer.status_code == 200
    assert answer.json()["email"] == old and answer.json()["new_email"] == new
    assert outbox.latest(old)["Subject"] == messages.EMAIL_CHANGE_NOTICE_SUBJECT
    changed = verify_code(api, new, code_in(outbox, new), "email_change")
    assert changed.status_code == 200
    assert changed.json()["user"]["email"] == new
    assert api.get("/auth/v1/user", headers=auth).json()["email"] == new
    assert sign_in(api, new).status_code == 200


def test_an_email_change_to_a_taken_address_is_refused(api, new_email):
    taken = new_email()
    sign_up(api, taken)
    session = sign_up(api, new_email())

    answer = api.put(
        "/auth/v1/user",
        json={"email": taken, "current_password": PASSWORD},
        headers=bearer(session["access_token"]),
    )

    assert (answer.status_code, answer.json()["error_code"]) == (422, "email_exists")


def test_a_new_password_follows_the_sign_up_rules(api, new_email):
    email = new_email()
    auth = bearer(sign_up(api, email)["access_token"])

    weak = api.put(
        "/auth/v1/user", json={"password": "123", "current_password": PASSWORD}, headers=auth
    )
    same = api.put(
        "/auth/v1/user", json={"password": PASSWORD, "current_password": PASSWORD}, headers=auth
    )

    assert (weak.status_code, weak.json()["error_code"]) == (422, "weak_password")
    assert weak.json()["weak_password"] == {"reasons": ["length"]}
    assert (same.status_code, same.json()["error_code"]) == (422, "same_password")


def test_a_password_change_ends_the_other_sessions(api, new_email):
    email = new_email()
    current, other = sign_up(api, email), sign_in(api, email).json()

    api.put(
        "/auth/v1/user",
        json={"password": "brand new pw", "current_password": PASSWORD},
        headers=bearer(current["access_token"]),
    )

    assert api.get("/auth/v1/user", headers=bearer(current["access_token"])).status_code == 200
    assert api.get("/auth/v1/user", headers=bearer(other["access_token"])).status_code == 401


def sign_in_a_day_ago(db, session: dict) -> None:
    """Make the session one signed in more than 24 hours ago."""
    claims = jwt.decode(session["access_token"], options={"verify_signature": False})
    row = db.get(AuthSession, uuid.UUID(claims["session_id"]))
    row.created_at -= timedelta(hours=25)
    db.add(row)
    db.commit()


def test_an_old_session_needs_the_mailed_nonce_to_change_the_password(api, db, outbox, new_email):
    email = new_email()
    session = sign_up(api, email)
    auth = bearer(session["access_token"])
    sign_in_a_day_ago(db, session)

    without = api.put("/auth/v1/user", json={"password": "brand new pw"}, headers=auth)
    assert (without.status_code, without.json()["error_code"]) == (400, "reauthentication_needed")
    assert api.get("/auth/v1/reauthenticate", headers=auth).json() == {}
    nonce = code_in(outbox, email)
    wrong = api.put(
        "/auth/v1/user",
        json={"password": "brand new pw", "nonce": f"{(int(nonce) + 1) % 10**6:06d}"},
        headers=auth,
    )
    right = api.put(
        "/auth/v1/user", json={"password": "brand new pw", "nonce": nonce}, headers=auth
    )
    reused = api.put("/auth/v1/user", json={"password": "third pw!", "nonce": nonce}, headers=auth)

    assert (wrong.status_code, wrong.json()["error_code"]) == (422, "reauthentication_not_valid")
    assert right.status_code == 200
    assert (reused.status_code, reused.json()["error_code"]) == (422, "reauthentication_not_valid")
    assert sign_in(api, email, "brand new pw").status_code == 200


def test_a_token_alone_changes_neither_password_nor_email_the_current_password_does(
    api, clock, outbox, new_email
):
    email, new = new_email(), new_email()
    auth = bearer(sign_up(api, email)["access_token"])
    clock.advance(minutes=6)  # no longer a fresh sign-in; the token is good for an hour

    password = api.put("/auth/v1/user", json={"password": "stolen pw!"}, headers=auth)
    address = api.put("/auth/v1/user", json={"email": new_email()}, headers=auth)
    wrong = api.put(
        "/auth/v1/user",
        json={"password": "stolen pw!", "email": new_email(), "current_password": "a guess!"},
        headers=auth,
    )
    right = api.put(
        "/auth/v1/user",
        json={"password": "brand new pw", "email": new, "current_password": PASSWORD},
        headers=auth,
    )

    for refused in (password, address):
        assert (refused.status_code, refused.json()["error_code"]) == (
            400,
            "reauthentication_needed",
        )
        assert refused.json()["msg"] == messages.CURRENT_PASSWORD_NEEDED
    assert (wrong.status_code, wrong.json()["error_code"]) == (400, "invalid_credentials")
    assert wrong.json()["msg"] == messages.CURRENT_PASSWORD_WRONG
    assert right.status_code == 200 and right.json()["new_email"] == new
    assert sign_in(api, email, "stolen pw!").status_code == 400
    assert sign_in(api, email, "brand new pw").status_code == 200
    assert verify_code(api, new, code_in(outbox, new), "email_change").status_code == 200


def test_wrong_current_passwords_count_as_failed_sign_ins(api, auth_settings, new_email):
    auth_settings(RATE_LIMIT_SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS="3 per 15 minutes")
    email = new_email()
    auth = bearer(sign_up(api, email)["access_token"])

    def change(current_password: str):
        body = {"password": "brand new pw", "current_password": current_password}
        return api.put("/auth/v1/user", json=body, headers=auth)

    guesses = [change(f"guess number {n}").status_code for n in range(3)]
    right = change(PASSWORD)

    assert guesses == [400] * 3
    assert right.status_code == 429 and int(right.headers["Retry-After"]) >= 1
    assert sign_in(api, email).status_code == 429  # the same budget as the sign-in's


def test_reauthenticate_needs_a_session(api):
    assert api.get("/auth/v1/reauthenticate").status_code == 401


def test_five_wrong_nonces_void_the_mailed_one(api, db, outbox, new_email):
    email = new_email()
    session = sign_up(api, email)
    auth = bearer(session["access_token"])
    sign_in_a_day_ago(db, session)
    api.get("/auth/v1/reauthenticate", headers=auth)
    nonce = code_in(outbox, email)

    for step in range(1, 6):
        wrong = f"{(int(nonce) + step) % 10**6:06d}"
        api.put("/auth/v1/user", json={"password": "brand new pw", "nonce": wrong}, headers=auth)
    right = api.put(
        "/auth/v1/user", json={"password": "brand new pw", "nonce": nonce}, headers=auth
    )

    assert (right.status_code, right.json()["error_code"]) == (422, "reauthentication_not_valid")
    assert sign_in(api, email).status_code == 200


def test_otp_answers_the_same_for_known_and_unknown_emails(api, new_email):
    known = new_email()
    sign_up(api, known)

    answers = [request_otp(api, email) for email in (known, new_email())]

    assert [(answer.status_code, answer.json()) for answer in answers] == [(200, {})] * 2


def test_a_member_with_a_second_factor_changes_credentials_only_at_aal2(api, db, new_email):
    session = sign_up(api, new_email())
    auth = bearer(session["access_token"])
    db.add(
        MfaFactor(
            user_id=uuid.UUID(session["user"]["id"]),
            factor_type="totp",
            status="verified",
            secret="JBSWY3DPEHPK3PXP",
        )
    )
    db.commit()

    password = api.put("/auth/v1/user", json={"password": "brand new pw"}, headers=auth)
    email = api.put("/auth/v1/user", json={"email": new_email()}, headers=auth)
    metadata = api.put("/auth/v1/user", json={"data": {"theme": "dark"}}, headers=auth)

    assert (password.status_code, password.json()["error_code"]) == (403, "insufficient_aal")
    assert (email.status_code, email.json()["error_code"]) == (403, "insufficient_aal")
    assert metadata.status_code == 200
