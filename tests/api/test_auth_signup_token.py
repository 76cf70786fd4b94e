"""/auth/v1 sign-up, password and refresh grants, sign-out, the user, and what is not offered.

Spoken to over HTTP as a Supabase client would; every answer is checked in GoTrue's
shape, with and without the X-Supabase-Api-Version header.
"""

# ruff: noqa: F811  (test parameters are the fixtures imported from tests.helpers.auth_api)
from __future__ import annotations

import uuid
from datetime import timedelta

import jwt
import pytest
from sqlmodel import select

from prettyscore.accounts.models import AuthSession, Profile, RefreshToken, User
from prettyscore.core import messages
from prettyscore.partners import service as partners
from prettyscore.partners.models import PartnerStatus
from tests.helpers.auth_api import (  # noqa: F401  (fixtures)
    PASSWORD,
    V2024,
    auth_settings,
    bearer,
    fresh_rate_limits,
    new_email,
    sign_in,
    sign_up,
)


def test_health_and_settings_describe_an_email_only_service(api):
    health = api.get("/auth/v1/health")
    settings = api.get("/auth/v1/settings").json()

    assert health.status_code == 200 and health.json()["name"]
    assert settings["external"]["email"] is True
    assert not any(on for name, on in settings["external"].items() if name != "email")
    assert settings["mailer_autoconfirm"] is True
    assert settings["phone_autoconfirm"] is False
    assert settings["disable_signup"] is False


def test_sign_up_answers_a_session_for_a_confirmed_member_with_their_metadata(api, db, new_email):
    email = new_email()

    session = sign_up(api, email.upper(), data={"display_name": "Ada"})

    assert session["token_type"] == "bearer"
    assert session["access_token"] and session["refresh_token"]
    assert session["expires_in"] > 0 and session["expires_at"] > 0
    user = session["user"]
    assert user["email"] == email
    assert user["user_metadata"] == {"display_name": "Ada"}
    assert user["email_confirmed_at"] is not None
    assert user["identities"][0]["provider"] == "email"
    claims = jwt.decode(session["access_token"], options={"verify_signature": False})
    assert claims["sub"] == user["id"] and claims["amr"][0]["method"] == "password"
    assert db.get(Profile, uuid.UUID(user["id"])) is not None


def test_a_short_password_is_a_weak_password_with_its_reason(api, new_email):
    body = {"email": new_email(), "password": "12345"}

    legacy = api.post("/auth/v1/signup", json=body)
    current = api.post("/auth/v1/signup", json=body, headers=V2024)

    assert legacy.status_code == current.status_code == 422
    assert legacy.json() == {
        "code": 422,
        "error_code": "weak_password",
        "msg": messages.PASSWORD_TOO_SHORT,
        "weak_password": {"reasons": ["length"]},
    }
    assert current.json() == {
        "code": "weak_password",
        "message": messages.PASSWORD_TOO_SHORT,
        "weak_password": {"reasons": ["length"]},
    }


@pytest.mark.parametrize(
    "body", [{}, {"email": "a@example.com"}, {"password": PASSWORD}, {"email": "", "password": ""}]
)
def test_sign_up_needs_an_email_or_phone_and_a_password(api, body):
    answer = api.post("/auth/v1/signup", json=body, headers=V2024)

    assert answer.status_code == 400
    assert answer.json() == {
        "code": "validation_failed",
        "message": messages.MUST_PROVIDE_EMAIL_OR_PHONE,
    }


def test_phone_sign_up_is_refused_as_a_disabled_provider(api):
    answer = api.post("/auth/v1/signup", json={"phone": "+15550100", "password": PASSWORD})

    assert answer.status_code == 400
    assert answer.json()["error_code"] == "phone_provider_disabled"
    assert answer.json()["msg"] == messages.PHONE_SIGNUPS_DISABLED


def test_signing_up_twice_is_user_already_exists_and_keeps_the_first_password(api, new_email):
    email = new_email()
    sign_up(api, email)

    again = api.post(
        "/auth/v1/signup", json={"email": email.title(), "password": "another one"}, headers=V2024
    )

    assert again.status_code == 422
    assert again.json() == {
        "code": "user_already_exists",
        "message": messages.USER_ALREADY_REGISTERED,
    }
    assert sign_in(api, email).status_code == 200


def test_sign_up_with_a_partners_referral_cookie_credits_the_partner(api, db, new_email):
    partner_user = sign_up(api, new_email())["user"]
    account = partners.apply(db, uuid.UUID(partner_user["id"]), "Anna", "ANNA")
    account.status = PartnerStatus.APPROVED
    db.add(account)
    db.commit()

    member = sign_up_with_cookie(api, new_email(), "affiliate_code=ANNA")

    db.expire_all()
    assert db.get(Profile, uuid.UUID(member["user"]["id"])).referred_by_partner == account.id


def sign_up_with_cookie(api, email: str, cookie: str) -> dict:
    answer = api.post(
        "/auth/v1/signup",
        json={"email": email, "password": PASSWORD},
        headers={"Cookie": cookie},
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_password_grant_signs_in(api, new_email):
    email = new_email()
    sign_up(api, email)

    answer = sign_in(api, email.upper())

    assert answer.status_code == 200
    session = answer.json()
    assert session["user"]["email"] == email
    assert session["refresh_token"] and session["token_type"] == "bearer"


def test_a_wrong_password_and_an_unknown_email_get_the_same_answer(api, new_email):
    email = new_email()
    sign_up(api, email)

    wrong_password = sign_in(api, email, "not the password")
    unknown_email = sign_in(api, new_email(), "not the password")

    assert wrong_password.status_code == unknown_email.status_code == 400
    assert (
        wrong_password.json()
        == unknown_email.json()
        == {
            "code": 400,
            "error_code": "invalid_credentials",
            "msg": messages.INVALID_CREDENTIALS,
        }
    )


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"email": "a@example.com"}, "validation_failed"),
        ({"password": PASSWORD}, "validation_failed"),
        ({"phone": "+15550100", "password": PASSWORD}, "phone_provider_disabled"),
    ],
)
def test_password_grant_needs_an_email_and_a_password(api, body, code):
    answer = api.post("/auth/v1/token", params={"grant_type": "password"}, json=body)

    assert answer.status_code == 400
    assert answer.json()["error_code"] == code


@pytest.mark.parametrize(
    ("grant_type", "code"),
    [
        ("id_token", "provider_disabled"),
        ("web3", "web3_provider_disabled"),
        ("client_credentials", "unsupported_grant_type"),
        (None, "unsupported_grant_type"),
    ],
)
def test_grants_not_offered_answer_gotrues_error(api, grant_type, code):
    params = {"grant_type": grant_type} if grant_type else {}

    answer = api.post("/auth/v1/token", params=params, json={"provider": "google"}, headers=V2024)

    assert answer.status_code == 400
    assert answer.json()["code"] == code
    assert answer.json()["message"]


def test_refresh_rotates_the_token_and_a_replay_ends_the_session(api, db, new_email):
    first = sign_up(api, new_email())

    rotated = refresh(api, first["refresh_token"])
    assert rotated.status_code == 200
    second = rotated.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert api.get("/auth/v1/user", headers=bearer(second["access_token"])).status_code == 200

    age_spent_tokens(db)
    replay = refresh(api, first["refresh_token"], headers=V2024)

    assert replay.status_code == 400
    assert replay.json()["code"] == "refresh_token_already_used"
    assert refresh(api, second["refresh_token"]).status_code == 400
    assert api.get("/auth/v1/user", headers=bearer(second["access_token"])).status_code == 401


def age_spent_tokens(db) -> None:
    """Move every spent refresh token's use a minute back: past the grace that lets two
    tabs refresh at the same instant, so presenting one again is a replay."""
    for token in db.exec(select(RefreshToken).where(RefreshToken.used_at.is_not(None))):
        token.used_at -= timedelta(minutes=1)
        db.add(token)
    db.commit()


def refresh(api, refresh_token, headers=None):
    return api.post(
        "/auth/v1/token",
        params={"grant_type": "refresh_token"},
        json={"refresh_token": refresh_token},
        headers=headers,
    )


def test_an_unknown_refresh_token_is_not_found(api):
    answer = refresh(api, "no-such-token")

    assert answer.status_code == 400
    assert answer.json()["error_code"] == "refresh_token_not_found"


def test_get_user_needs_a_valid_bearer_token(api, new_email):
    session = sign_up(api, new_email())

    mine = api.get("/auth/v1/user", headers=bearer(session["access_token"]))
    missing = api.get("/auth/v1/user", headers=V2024)
    forged = api.get("/auth/v1/user", headers=bearer(session["access_token"][:-4] + "AAAA"))

    assert mine.status_code == 200 and mine.json()["id"] == session["user"]["id"]
    assert missing.status_code == 401 and missing.json()["code"] == "no_authorization"
    assert forged.status_code == 401 and forged.json()["error_code"] == "bad_jwt"


def three_sessions(api, email) -> list[dict]:
    sessions = [sign_up(api, email)]
    sessions += [sign_in(api, email).json() for _ in range(2)]
    return sessions


def is_open(api, session) -> bool:
    return api.get("/auth/v1/user", headers=bearer(session["access_token"])).status_code == 200


@pytest.mark.parametrize(
    ("scope", "still_open"),
    [("local", [False, True, True]), ("others", [True, False, False]), ("global", [False] * 3)],
)
def test_logout_scopes(api, new_email, scope, still_open):
    sessions = three_sessions(api, new_email())

    answer = api.post(
        "/auth/v1/logout", params={"scope": scope}, headers=bearer(sessions[0]["access_token"])
    )

    assert answer.status_code == 204
    assert [is_open(api, session) for session in sessions] == still_open
    refreshed = [refresh(api, session["refresh_token"]).status_code for session in sessions]
    assert refreshed == [200 if open_ else 400 for open_ in still_open]


def test_logout_defaults_to_global_and_refuses_unknown_scopes(api, db, new_email):
    email = new_email()
    first, second = sign_up(api, email), sign_in(api, email).json()

    unknown = api.post(
        "/auth/v1/logout", params={"scope": "everyone"}, headers=bearer(first["access_token"])
    )
    default = api.post("/auth/v1/logout", headers=bearer(first["access_token"]))
    again = api.post("/auth/v1/logout", headers=bearer(first["access_token"]))

    assert unknown.status_code == 400
    assert default.status_code == 204
    assert not is_open(api, second)
    assert again.status_code == 401  # already signed out: clients count it as done
    user = db.exec(select(User).where(User.email == email)).one()
    sessions = db.exec(select(AuthSession).where(AuthSession.user_id == user.id)).all()
    assert all(session.revoked_at is not None for session in sessions)


def test_providers_not_offered_answer_gotrues_errors(api, new_email):
    session = sign_up(api, new_email())
    auth = bearer(session["access_token"])
    identity_id = session["user"]["identities"][0]["identity_id"]

    oauth = api.get("/auth/v1/authorize", params={"provider": "github"}, headers=V2024)
    sso = api.post("/auth/v1/sso", json={"domain": "example.com"}, headers=V2024)
    link = api.get(
        "/auth/v1/user/identities/authorize", params={"provider": "github"}, headers=auth
    )
    unlink = api.delete(f"/auth/v1/user/identities/{identity_id}", headers=auth)
    unlink_other = api.delete(f"/auth/v1/user/identities/{uuid.uuid4()}", headers=auth)

    assert (oauth.status_code, oauth.json()["code"]) == (400, "provider_disabled")
    assert oauth.json()["message"] == messages.PROVIDER_NOT_ENABLED
    assert (sso.status_code, sso.json()["code"]) == (400, "sso_provider_not_found")
    assert (link.status_code, link.json()["error_code"]) == (400, "provider_disabled")
    assert (unlink.status_code, unlink.json()["error_code"]) == (
        422,
        "single_identity_not_deletable",
    )
    assert (unlink_other.status_code, unlink_other.json()["error_code"]) == (
        404,
        "identity_not_found",
    )
    assert is_open(api, session)


def test_a_malformed_body_is_a_validation_error_not_a_crash(api):
    answer = api.post(
        "/auth/v1/token", params={"grant_type": "password"}, json={"email": ["not", "a string"]}
    )

    assert answer.status_code == 400
    assert answer.json()["error_code"] == "validation_failed"
