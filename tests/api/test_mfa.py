"""Second factors over HTTP: enrol an authenticator, challenge it, verify a code, remove it.

Members are created through the accounts service on the test's own connection to the
server's database (the sign-up route lives elsewhere); everything after that is HTTP, as
a Supabase client or ``curl`` would speak it, including the real ``supabase-auth`` client.
"""

from __future__ import annotations

import threading
import time
import uuid
import xml.etree.ElementTree as ElementTree
from datetime import timedelta
from typing import Annotated
from urllib.parse import parse_qs, unquote, urlparse

import httpx
import jwt
import pyotp
import pytest
from fastapi import Depends, FastAPI
from sqlmodel import select
from supabase_auth import SyncGoTrueClient
from supabase_auth.errors import AuthApiError
from supabase_auth.types import Session as ClientSession

from prettyscore.accounts import api_shapes, mfa, service
from prettyscore.accounts.bearer import require_user
from prettyscore.accounts.models import AuthSession, MfaChallenge, MfaFactor, RefreshToken
from prettyscore.accounts.service import CurrentUser
from prettyscore.accounts.tokens import hash_secret
from prettyscore.api.errors import install_error_handlers
from prettyscore.core import messages
from prettyscore.core.rate_limits import get_rate_limiter
from tests.fixtures.totp import fresh_code, wrong_code
from tests.helpers.api_server import serving

PASSWORD = "secret12"
API_2024 = {"X-Supabase-Api-Version": "2024-01-01"}


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------
def new_member(db, prefix: str = "mfa") -> service.SessionTokens:
    """A signed-up member and their first (aal1) session."""
    tokens = service.sign_up(db, f"{prefix}-{uuid.uuid4().hex[:8]}@example.com", PASSWORD)
    db.commit()
    return tokens


def sign_in_again(db, email: str) -> service.SessionTokens:
    tokens = service.sign_in(db, email, PASSWORD)
    db.commit()
    return tokens


def bearer(tokens_or_access) -> dict:
    access = getattr(tokens_or_access, "access_token", tokens_or_access)
    return {"Authorization": f"Bearer {access}", **API_2024}


def claims(access_token: str) -> dict:
    return jwt.decode(access_token, options={"verify_signature": False})


def enrol(api, tokens, **body) -> dict:
    answer = api.post(
        "/auth/v1/factors", json={"factor_type": "totp", **body}, headers=bearer(tokens)
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def start_challenge(api, tokens, factor_id: str) -> dict:
    answer = api.post(f"/auth/v1/factors/{factor_id}/challenge", json={}, headers=bearer(tokens))
    assert answer.status_code == 200, answer.text
    return answer.json()


def send_code(api, tokens, factor_id: str, challenge_id: str, code: str) -> httpx.Response:
    return api.post(
        f"/auth/v1/factors/{factor_id}/verify",
        json={"challenge_id": challenge_id, "code": code},
        headers=bearer(tokens),
    )


def enrolled_and_verified(api, db, prefix: str = "mfa"):
    """A member with a verified authenticator: (their aal2 tokens, the factor, its secret)."""
    tokens = new_member(db, prefix)
    factor = enrol(api, tokens, friendly_name="Phone")
    challenge = start_challenge(api, tokens, factor["id"])
    secret = factor["totp"]["secret"]
    answer = send_code(api, tokens, factor["id"], challenge["id"], fresh_code(secret))
    assert answer.status_code == 200, answer.text
    return answer.json(), factor, secret


def error_code(answer: httpx.Response) -> str:
    return answer.json()["code"]


# ---------------------------------------------------------------------------
# Enrolment
# ---------------------------------------------------------------------------
def test_enrolling_gives_the_secret_its_uri_and_an_svg_qr_code(api, db):
    tokens = new_member(db)

    factor = enrol(api, tokens, friendly_name="My phone")

    assert factor["type"] == "totp"
    assert factor["friendly_name"] == "My phone"
    totp = factor["totp"]
    uri = urlparse(totp["uri"])
    assert uri.scheme == "otpauth" and uri.netloc == "totp"
    assert unquote(uri.path) == f"/PrettyScore:{tokens.email}"
    assert parse_qs(uri.query)["secret"] == [totp["secret"]]
    assert parse_qs(uri.query)["issuer"] == ["PrettyScore"]
    svg = ElementTree.fromstring(totp["qr_code"])
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert "#" not in totp["qr_code"]  # safe inside a data: URI
    row = db.get(MfaFactor, uuid.UUID(factor["id"]))
    assert (row.status, row.user_id) == ("unverified", tokens.user_id)


def test_the_issuer_named_by_the_client_is_used(api, db):
    tokens = new_member(db)

    factor = enrol(api, tokens, issuer="Acme")

    assert parse_qs(urlparse(factor["totp"]["uri"]).query)["issuer"] == ["Acme"]


def test_enrolment_refusals_carry_gotrue_codes(api, db):
    tokens = new_member(db)
    enrol(api, tokens, friendly_name="Phone")

    same_name = api.post(
        "/auth/v1/factors",
        json={"factor_type": "totp", "friendly_name": "Phone"},
        headers=bearer(tokens),
    )
    phone = api.post(
        "/auth/v1/factors",
        json={"factor_type": "phone", "phone": "+15555550100"},
        headers=bearer(tokens),
    )
    unknown = api.post("/auth/v1/factors", json={"factor_type": "sms"}, headers=bearer(tokens))
    anonymous = api.post("/auth/v1/factors", json={"factor_type": "totp"}, headers=API_2024)

    assert (same_name.status_code, error_code(same_name)) == (422, "mfa_factor_name_conflict")
    assert (phone.status_code, error_code(phone)) == (422, "mfa_phone_enroll_not_enabled")
    assert (unknown.status_code, error_code(unknown)) == (400, "validation_failed")
    assert anonymous.status_code == 401


def test_a_member_has_at_most_ten_factors(api, db):
    tokens = new_member(db)
    for number in range(10):
        enrol(api, tokens, friendly_name=f"Device {number}")

    eleventh = api.post(
        "/auth/v1/factors",
        json={"factor_type": "totp", "friendly_name": "Device 10"},
        headers=bearer(tokens),
    )

    assert (eleventh.status_code, error_code(eleventh)) == (422, "too_many_enrolled_mfa_factors")


def test_with_a_verified_factor_a_password_session_cannot_enrol_another(api, db):
    session, _, _ = enrolled_and_verified(api, db)
    password_only = sign_in_again(db, session["user"]["email"])

    answer = api.post(
        "/auth/v1/factors", json={"factor_type": "totp"}, headers=bearer(password_only)
    )

    assert (answer.status_code, error_code(answer)) == (403, "insufficient_aal")
    assert enrol(api, session["access_token"], friendly_name="Tablet")["id"]


# ---------------------------------------------------------------------------
# Challenge and verification
# ---------------------------------------------------------------------------
def test_a_verified_code_raises_the_session_to_aal2_with_totp_first(api, db):
    tokens = new_member(db)
    factor = enrol(api, tokens, friendly_name="Phone")
    before = int(time.time())
    challenge = start_challenge(api, tokens, factor["id"])
    assert challenge["type"] == "totp"
    assert before + 295 <= challenge["expires_at"] <= int(time.time()) + 305

    answer = send_code(
        api, tokens, factor["id"], challenge["id"], fresh_code(factor["totp"]["secret"])
    )

    assert answer.status_code == 200, answer.text
    session = answer.json()
    assert session["token_type"] == "bearer"
    assert session["expires_at"] - session["expires_in"] == pytest.approx(time.time(), abs=5)
    assert session["refresh_token"] != tokens.refresh_token
    issued = claims(session["access_token"])
    assert issued["aal"] == "aal2"
    assert issued["session_id"] == claims(tokens.access_token)["session_id"]
    assert [entry["method"] for entry in issued["amr"]] == ["totp", "password"]
    assert [(f["id"], f["status"]) for f in session["user"]["factors"]] == [
        (factor["id"], "verified")
    ]
    row = db.get(AuthSession, uuid.UUID(issued["session_id"]))
    db.refresh(row)
    assert (row.aal, str(row.factor_id)) == ("aal2", factor["id"])


def test_refreshing_an_aal2_session_keeps_aal2_and_the_old_refresh_token_is_spent(api, db):
    tokens = new_member(db)
    factor = enrol(api, tokens)
    challenge = start_challenge(api, tokens, factor["id"])
    code = fresh_code(factor["totp"]["secret"])
    session = send_code(api, tokens, factor["id"], challenge["id"], code).json()

    renewed = service.refresh_session(db, session["refresh_token"])
    db.commit()

    assert claims(renewed.access_token)["aal"] == "aal2"
    assert claims(renewed.access_token)["amr"][0]["method"] == "totp"
    password_era = db.exec(
        select(RefreshToken).where(RefreshToken.token_hash == hash_secret(tokens.refresh_token))
    ).one()
    db.refresh(password_era)
    assert password_era.used_at is not None


def test_a_wrong_code_is_refused_with_gotrues_message(api, db):
    tokens = new_member(db)
    factor = enrol(api, tokens)
    challenge = start_challenge(api, tokens, factor["id"])

    answer = send_code(
        api, tokens, factor["id"], challenge["id"], wrong_code(factor["totp"]["secret"])
    )
    legacy = api.post(
        f"/auth/v1/factors/{factor['id']}/verify",
        json={"challenge_id": challenge["id"], "code": "000000x"},
        headers={"Authorization": f"Bearer {tokens.access_token}"},
    )
    empty = send_code(api, tokens, factor["id"], challenge["id"], "")

    assert answer.status_code == 422
    assert answer.json() == {
        "code": "mfa_verification_failed",
        "message": messages.MFA_INVALID_CODE,
    }
    assert legacy.json()["msg"] == messages.MFA_INVALID_CODE
    assert (empty.status_code, error_code(empty)) == (400, "validation_failed")
    assert db.get(MfaFactor, uuid.UUID(factor["id"])).status == "unverified"
    assert claims(tokens.access_token)["aal"] == "aal1"


def test_a_code_is_accepted_once_and_a_challenge_is_spent_once(api, db):
    session, factor, secret = enrolled_and_verified(api, db)
    accepted_step = db.exec(
        select(MfaFactor.last_used_step).where(MfaFactor.id == uuid.UUID(factor["id"]))
    ).one()
    # The code just accepted: still inside the server's window (now, or one step either
    # side) for the rest of this test.
    used_code = pyotp.TOTP(secret).generate_otp(accepted_step)
    spent_challenge = db.exec(
        select(MfaChallenge.id).where(MfaChallenge.factor_id == uuid.UUID(factor["id"]))
    ).one()

    again = start_challenge(api, session["access_token"], factor["id"])
    replay = send_code(api, session["access_token"], factor["id"], again["id"], used_code)
    reused = send_code(api, session["access_token"], factor["id"], str(spent_challenge), used_code)

    assert (replay.status_code, error_code(replay)) == (422, "mfa_verification_failed")
    assert (reused.status_code, error_code(reused)) == (422, "mfa_challenge_expired")


def test_a_factor_name_is_one_line_without_direction_overrides(api, db):
    factor = enrol(api, new_member(db), friendly_name="My\tphone\u202e\x07")

    assert factor["friendly_name"] == "My phone"


def test_an_expired_challenge_is_refused(api, db):
    tokens = new_member(db)
    factor = enrol(api, tokens)
    challenge = start_challenge(api, tokens, factor["id"])
    row = db.get(MfaChallenge, uuid.UUID(challenge["id"]))
    row.created_at -= timedelta(minutes=5, seconds=1)
    db.add(row)
    db.commit()

    answer = send_code(
        api, tokens, factor["id"], challenge["id"], fresh_code(factor["totp"]["secret"])
    )

    assert (answer.status_code, error_code(answer)) == (422, "mfa_challenge_expired")
    assert challenge["id"] in answer.json()["message"]


def test_a_challenge_of_another_factor_is_not_found(api, db):
    tokens = new_member(db)
    first = enrol(api, tokens, friendly_name="One")
    second = enrol(api, tokens, friendly_name="Two")
    challenge = start_challenge(api, tokens, first["id"])

    answer = send_code(
        api, tokens, second["id"], challenge["id"], fresh_code(second["totp"]["secret"])
    )

    assert (answer.status_code, error_code(answer)) == (422, "mfa_factor_not_found")


def test_five_wrong_codes_void_the_challenge_but_not_the_factor(api, db):
    tokens = new_member(db)
    factor = enrol(api, tokens)
    secret = factor["totp"]["secret"]
    challenge = start_challenge(api, tokens, factor["id"])
    for _ in range(5):
        answer = send_code(api, tokens, factor["id"], challenge["id"], wrong_code(secret))
        assert error_code(answer) == "mfa_verification_failed"

    locked = send_code(api, tokens, factor["id"], challenge["id"], fresh_code(secret))
    fresh = start_challenge(api, tokens, factor["id"])
    accepted = send_code(api, tokens, factor["id"], fresh["id"], fresh_code(secret))

    assert (locked.status_code, error_code(locked)) == (429, "over_request_rate_limit")
    assert 0 < int(locked.headers["Retry-After"]) <= 5 * 60
    assert accepted.status_code == 200


def guess_wrong(api, tokens, factor, challenges: int) -> None:
    """Five wrong codes on each of ``challenges`` new challenges."""
    secret = factor["totp"]["secret"]
    for _ in range(challenges):
        challenge = start_challenge(api, tokens, factor["id"])
        for _ in range(5):
            send_code(api, tokens, factor["id"], challenge["id"], wrong_code(secret))


def try_right_code(api, tokens, factor):
    challenge = start_challenge(api, tokens, factor["id"])
    code = fresh_code(factor["totp"]["secret"])
    return send_code(api, tokens, factor["id"], challenge["id"], code)


def test_ten_wrong_codes_lock_the_factor_whatever_the_challenge(api, db):
    tokens = new_member(db)
    factor = enrol(api, tokens)
    guess_wrong(api, tokens, factor, challenges=2)

    answer = try_right_code(api, tokens, factor)

    assert answer.status_code == 429
    assert answer.json() == {
        "code": "over_request_rate_limit",
        "message": messages.RATE_LIMIT_EXCEEDED,
    }


def test_twenty_wrong_codes_lock_the_factor_for_the_day(api, db):
    tokens = new_member(db)
    factor = enrol(api, tokens)
    guess_wrong(api, tokens, factor, challenges=2)
    quarter_hour = mfa.WRONG_CODES_PER_FACTOR_AND_ADDRESS[1]
    keys = ("mfa-factor-address", factor["id"], "127.0.0.1")
    get_rate_limiter().clear(quarter_hour, *keys)  # 15 minutes later
    assert try_right_code(api, tokens, factor).status_code == 200

    guess_wrong(api, tokens, factor, challenges=2)  # 20 today
    get_rate_limiter().clear(quarter_hour, *keys)  # 15 minutes later
    assert try_right_code(api, tokens, factor).status_code == 429


def test_a_guesser_with_the_password_locks_out_their_own_address_not_the_owner(api, db, api_server):
    owner = new_member(db)
    factor = enrol(api, owner)
    db.get(MfaFactor, uuid.UUID(factor["id"])).status = "verified"  # its codes still unused
    db.commit()
    guesser = sign_in_again(db, owner.email)  # has the password, not the phone
    elsewhere = httpx.HTTPTransport(local_address="127.0.0.2")
    with httpx.Client(base_url=api_server.url, transport=elsewhere, timeout=30) as other:
        guess_wrong(other, guesser, factor, challenges=2)
        locked_out = try_right_code(other, guesser, factor)

    owner_signs_in = try_right_code(api, sign_in_again(db, owner.email), factor)

    assert (locked_out.status_code, error_code(locked_out)) == (429, "over_request_rate_limit")
    assert 0 < int(locked_out.headers["Retry-After"]) <= 15 * 60
    assert owner_signs_in.status_code == 200


def test_two_simultaneous_verifications_of_one_code_let_one_through(api, db, api_server):
    tokens = new_member(db)
    factor = enrol(api, tokens)
    challenges = [start_challenge(api, tokens, factor["id"])["id"] for _ in range(2)]
    code = fresh_code(factor["totp"]["secret"])
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def verify(challenge_id: str) -> None:
        with httpx.Client(base_url=api_server.url, timeout=30) as client:
            barrier.wait()
            statuses.append(send_code(client, tokens, factor["id"], challenge_id, code).status_code)

    workers = [threading.Thread(target=verify, args=(c,)) for c in challenges]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    assert sorted(statuses)[0] == 200
    assert statuses.count(200) == 1


def test_another_members_factor_is_not_found(api, db):
    owner = new_member(db, "owner")
    intruder = new_member(db, "intruder")
    factor = enrol(api, owner)
    challenge = start_challenge(api, owner, factor["id"])
    code = fresh_code(factor["totp"]["secret"])

    attempts = [
        api.post(f"/auth/v1/factors/{factor['id']}/challenge", json={}, headers=bearer(intruder)),
        send_code(api, intruder, factor["id"], challenge["id"], code),
        api.delete(f"/auth/v1/factors/{factor['id']}", headers=bearer(intruder)),
        api.post("/auth/v1/factors/not-a-uuid/challenge", json={}, headers=bearer(intruder)),
    ]

    assert [(a.status_code, error_code(a)) for a in attempts] == [(404, "mfa_factor_not_found")] * 4
    assert db.get(MfaFactor, uuid.UUID(factor["id"])) is not None


# ---------------------------------------------------------------------------
# Removal
# ---------------------------------------------------------------------------
def test_an_unverified_factor_may_be_removed_from_a_password_session(api, db):
    tokens = new_member(db)
    factor = enrol(api, tokens)

    answer = api.delete(f"/auth/v1/factors/{factor['id']}", headers=bearer(tokens))

    assert answer.status_code == 200
    assert answer.json() == {"id": factor["id"]}
    assert db.get(MfaFactor, uuid.UUID(factor["id"])) is None


def test_a_verified_factor_is_removed_only_from_an_aal2_session(api, db):
    session, factor, _ = enrolled_and_verified(api, db)
    password_only = sign_in_again(db, session["user"]["email"])

    refused = api.delete(f"/auth/v1/factors/{factor['id']}", headers=bearer(password_only))
    removed = api.delete(
        f"/auth/v1/factors/{factor['id']}", headers=bearer(session["access_token"])
    )

    assert (refused.status_code, error_code(refused)) == (422, "insufficient_aal")
    assert removed.json() == {"id": factor["id"]}
    row = db.get(AuthSession, uuid.UUID(claims(session["access_token"])["session_id"]))
    db.refresh(row)
    assert (row.aal, row.factor_id) == ("aal1", None)
    assert [entry["method"] for entry in row.amr] == ["password"]


# ---------------------------------------------------------------------------
# The aal2 rule for the rest of the API
# ---------------------------------------------------------------------------
@pytest.fixture
def guarded_url(api_server):
    """A tiny API with one route behind ``require_user``, on the same database."""
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/whoami")
    async def whoami(user: Annotated[CurrentUser, Depends(require_user)]) -> dict:
        return {"id": str(user.id), "aal": user.aal}

    with serving(app) as url:
        yield url


def test_require_user_wants_aal2_once_a_factor_is_verified(api, db, guarded_url):
    tokens = new_member(db)
    before = httpx.get(f"{guarded_url}/whoami", headers=bearer(tokens))
    factor = enrol(api, tokens)
    challenge = start_challenge(api, tokens, factor["id"])
    code = fresh_code(factor["totp"]["secret"])
    session = send_code(api, tokens, factor["id"], challenge["id"], code).json()
    password_only = sign_in_again(db, tokens.email)

    half = httpx.get(f"{guarded_url}/whoami", headers=bearer(password_only))
    full = httpx.get(f"{guarded_url}/whoami", headers=bearer(session["access_token"]))

    assert before.json()["aal"] == "aal1"
    assert (half.status_code, error_code(half)) == (403, "insufficient_aal")
    assert full.json() == {"id": str(tokens.user_id), "aal": "aal2"}


def test_verifying_ends_the_members_other_password_only_sessions(api, db):
    tokens = new_member(db)
    elsewhere = sign_in_again(db, tokens.email)
    factor = enrol(api, tokens)
    challenge = start_challenge(api, tokens, factor["id"])

    send_code(api, tokens, factor["id"], challenge["id"], fresh_code(factor["totp"]["secret"]))

    other = db.get(AuthSession, uuid.UUID(claims(elsewhere.access_token)["session_id"]))
    db.refresh(other)
    assert other.revoked_at is not None
    answer = api.post(
        f"/auth/v1/factors/{factor['id']}/challenge", json={}, headers=bearer(elsewhere)
    )
    assert answer.status_code == 401


# ---------------------------------------------------------------------------
# The real Supabase client
# ---------------------------------------------------------------------------
def supabase_client(api_server) -> SyncGoTrueClient:
    return SyncGoTrueClient(
        url=f"{api_server.url}/auth/v1", auto_refresh_token=False, persist_session=False
    )


def test_the_supabase_client_enrols_verifies_and_unenrols(api_server, db):
    tokens = new_member(db, "client")
    client = supabase_client(api_server)
    # GET /auth/v1/user (what set_session calls) is served by another router: the client
    # is handed the session the sign-in would have returned.
    client._save_session(ClientSession.model_validate(api_shapes.session_json(db, tokens)))
    assert client.mfa.get_authenticator_assurance_level().current_level == "aal1"

    enrolled = client.mfa.enroll({"factor_type": "totp", "friendly_name": "Phone"})
    assert enrolled.totp.qr_code.startswith("data:image/svg+xml;utf-8,<svg")
    challenge = client.mfa.challenge({"factor_id": enrolled.id})
    with pytest.raises(AuthApiError) as refused:
        client.mfa.verify(
            {
                "factor_id": enrolled.id,
                "challenge_id": challenge.id,
                "code": wrong_code(enrolled.totp.secret),
            }
        )
    verified = client.mfa.challenge_and_verify(
        {"factor_id": enrolled.id, "code": fresh_code(enrolled.totp.secret)}
    )
    level = client.mfa.get_authenticator_assurance_level()
    removed = client.mfa.unenroll({"factor_id": enrolled.id})

    assert refused.value.code == "mfa_verification_failed"
    assert refused.value.message == messages.MFA_INVALID_CODE
    assert challenge.factor_type == "totp"
    assert claims(verified.access_token)["aal"] == "aal2"
    assert (level.current_level, level.next_level) == ("aal2", "aal2")
    assert level.current_authentication_methods[0].method == "totp"
    assert removed.id == enrolled.id


def test_the_supabase_client_signs_in_lists_factors_and_reaches_aal2(api_server, db):
    tokens = new_member(db, "client")
    client = supabase_client(api_server)
    client.sign_in_with_password({"email": tokens.email, "password": PASSWORD})

    enrolled = client.mfa.enroll({"factor_type": "totp", "friendly_name": "Phone"})
    client.mfa.challenge_and_verify(
        {"factor_id": enrolled.id, "code": fresh_code(enrolled.totp.secret)}
    )
    factors = client.mfa.list_factors()
    client.sign_out()
    client.sign_in_with_password({"email": tokens.email, "password": PASSWORD})
    half = client.mfa.get_authenticator_assurance_level()
    client.mfa.challenge_and_verify(
        {"factor_id": enrolled.id, "code": _next_code(enrolled.totp.secret)}
    )
    full = client.mfa.get_authenticator_assurance_level()

    assert [f.id for f in factors.totp] == [enrolled.id]
    assert (half.current_level, half.next_level) == ("aal1", "aal2")
    assert full.current_level == "aal2"


def _next_code(secret: str) -> str:
    """The code of the next 30-second step (the current one was just spent); a clock one
    step ahead of ours is tolerated, as authenticator apps drift."""
    return pyotp.TOTP(secret).at(time.time() + 30)
