"""Access tokens over HTTP: only a token we signed, for our audience, unexpired, of an
open session opens the API. Every forgery gets the same 401 ``bad_jwt``."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from sqlmodel import Session

from prettyscore.accounts import keys, service

PASSWORD = "secret12"


@pytest.fixture
def member(api, db_engine):
    with Session(db_engine) as db:
        issued = service.sign_up(db, "token.owner@example.com", PASSWORD)
        other = service.sign_up(db, "token.other@example.com", PASSWORD)
        db.commit()
        kid, private_key = keys.signing_key(db)
    claims = jwt.decode(issued.access_token, options={"verify_signature": False})
    return {
        "token": issued.access_token,
        "claims": claims,
        "kid": kid,
        "private_key": private_key,
        "other_id": str(other.user_id),
    }


def _sign(claims: dict, key, kid: str, algorithm: str = "ES256") -> str:
    return jwt.encode(claims, key, algorithm=algorithm, headers={"kid": kid})


def _forgeries(member) -> dict[str, str]:
    claims, kid, key = member["claims"], member["kid"], member["private_key"]
    header, _, signature = member["token"].split(".")
    as_other = dict(claims, sub=member["other_id"])
    payload = base64.urlsafe_b64encode(json.dumps(as_other).encode()).rstrip(b"=").decode()
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    past = int(time.time()) - 60
    return {
        "tampered payload": f"{header}.{payload}.{signature}",
        "expired": _sign(dict(claims, iat=claims["iat"] - 7200, exp=past), key, kid),
        "another key": _sign(claims, ec.generate_private_key(ec.SECP256R1()), kid),
        "wrong audience": _sign(dict(claims, aud="service_role"), key, kid),
        "no audience": _sign({k: v for k, v in claims.items() if k != "aud"}, key, kid),
        "unknown kid": _sign(claims, key, "not-a-key-of-ours"),
        "unsigned": jwt.encode(claims, None, algorithm="none", headers={"kid": kid}),
        # The public key used as an HMAC secret: the classic algorithm confusion.
        "public key as HMAC secret": _hmac_with(public_pem, claims, kid),
        "garbage": "not.a.jwt",
    }


def _hmac_with(secret: bytes, claims: dict, kid: str) -> str:
    header = {"alg": "HS256", "typ": "JWT", "kid": kid}
    parts = [
        base64.urlsafe_b64encode(json.dumps(part).encode()).rstrip(b"=").decode()
        for part in (header, claims)
    ]
    signing_input = ".".join(parts).encode()
    mac = hmac.new(secret, signing_input, hashlib.sha256).digest()
    return ".".join([*parts, base64.urlsafe_b64encode(mac).rstrip(b"=").decode()])


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/auth/v1/user"), ("POST", "/functions/v1/check-subscription")],
    ids=["auth user", "function"],
)
def test_every_forged_token_is_refused_alike(api, member, method, path):
    genuine = api.request(method, path, headers={"Authorization": f"Bearer {member['token']}"})
    assert genuine.status_code == 200

    for name, forged in _forgeries(member).items():
        answer = api.request(method, path, headers={"Authorization": f"Bearer {forged}"})
        assert answer.status_code == 401, name
        assert answer.json()["error_code"] == "bad_jwt", name


def test_a_token_of_a_signed_out_session_is_refused(api, member):
    headers = {"Authorization": f"Bearer {member['token']}"}
    assert api.post("/auth/v1/logout", headers=headers).status_code == 204

    answer = api.get("/auth/v1/user", headers=headers)

    assert (answer.status_code, answer.json()["error_code"]) == (401, "bad_jwt")


def test_the_published_key_set_verifies_a_token_without_our_code(api, member):
    published = api.get("/auth/v1/.well-known/jwks.json").json()
    jwk = next(key for key in published["keys"] if key["kid"] == member["kid"])

    claims = jwt.decode(
        member["token"], jwt.PyJWK(jwk).key, algorithms=["ES256"], audience="authenticated"
    )

    assert claims["email"] == "token.owner@example.com"
    assert {"sub", "role", "aal", "amr", "session_id", "iat", "exp"} <= set(claims)
