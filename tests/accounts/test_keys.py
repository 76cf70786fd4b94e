"""Access tokens are signed with an asymmetric key that the JWKS publishes, and rotate."""

from __future__ import annotations

from datetime import timedelta

import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from sqlmodel import Session, select

from prettyscore.__main__ import main as command_line
from prettyscore.accounts import keys, service
from prettyscore.accounts.models import SigningKey

CLAIMS = ("sub", "email", "role", "aal", "amr", "session_id", "iat", "exp")


def _verify_with_published_keys(db, token: str) -> dict:
    """What another service would do: verify a token with our JWKS alone."""
    kid = jwt.get_unverified_header(token)["kid"]
    jwk = next(key for key in keys.public_jwks(db)["keys"] if key["kid"] == kid)
    return jwt.decode(token, jwt.PyJWK(jwk).key, algorithms=["ES256"], audience="authenticated")


def test_an_access_token_verifies_with_the_published_key_and_carries_the_claims(db):
    issued = service.sign_up(db, "kim@example.com", "secret1")
    db.commit()

    header = jwt.get_unverified_header(issued.access_token)
    claims = _verify_with_published_keys(db, issued.access_token)

    assert header["alg"] == "ES256" and header["kid"]
    assert set(CLAIMS) <= set(claims)
    assert claims["sub"] == str(issued.user_id)
    assert claims["email"] == "kim@example.com"
    assert (claims["role"], claims["aal"]) == ("authenticated", "aal1")
    assert claims["amr"][0]["method"] == "password"
    assert claims["exp"] - claims["iat"] == issued.expires_in


def test_the_jwks_publishes_public_halves_only(db):
    service.sign_up(db, "lou@example.com", "secret1")
    db.commit()

    published = keys.public_jwks(db)["keys"]

    assert len(published) == 1
    assert published[0]["kty"] == "EC" and published[0]["crv"] == "P-256"
    assert "d" not in published[0]  # the private scalar never leaves the server


def test_a_token_naming_an_unknown_key_or_another_audience_is_refused(db):
    issued = service.sign_up(db, "max@example.com", "secret1")
    db.commit()
    claims = jwt.decode(issued.access_token, options={"verify_signature": False})
    kid, private_key = keys.signing_key(db)

    unknown_kid = jwt.encode(claims, private_key, algorithm="ES256", headers={"kid": "k-none"})
    no_kid = jwt.encode(claims, private_key, algorithm="ES256")
    other_audience = jwt.encode(
        dict(claims, aud="service_role"), private_key, algorithm="ES256", headers={"kid": kid}
    )
    unsigned = jwt.encode(claims, None, algorithm="none", headers={"kid": kid})

    for token in (unknown_kid, no_kid, other_audience, unsigned):
        assert service.resolve_user(db, token) is None
    assert service.resolve_user(db, issued.access_token) is not None


def test_rotation_signs_with_the_new_key_and_keeps_old_tokens_valid(db):
    before = service.sign_up(db, "ned@example.com", "secret1")
    db.commit()
    old_kid = jwt.get_unverified_header(before.access_token)["kid"]

    new_kid = keys.rotate(db)
    db.commit()
    after = service.sign_in(db, "ned@example.com", "secret1")
    db.commit()

    assert jwt.get_unverified_header(after.access_token)["kid"] == new_kid != old_kid
    assert {key["kid"] for key in keys.public_jwks(db)["keys"]} == {old_kid, new_kid}
    assert service.resolve_user(db, before.access_token) is not None
    assert service.resolve_user(db, after.access_token) is not None


def test_a_retired_key_stops_verifying_once_its_tokens_have_expired(db):
    before = service.sign_up(db, "ola@example.com", "secret1")
    db.commit()
    old_kid = jwt.get_unverified_header(before.access_token)["kid"]
    keys.rotate(db)
    old = db.get(SigningKey, old_kid)
    old.retired_at -= timedelta(hours=2)  # longer ago than an access token lives
    db.add(old)
    db.commit()
    keys.key_set(db, reload=True)

    assert old_kid not in {key["kid"] for key in keys.public_jwks(db)["keys"]}
    assert keys.verifying_key(db, old_kid) is None


def test_a_key_made_by_another_worker_is_picked_up_when_a_token_names_it(db_engine, db):
    service.sign_up(db, "pia@example.com", "secret1")
    db.commit()
    keys.key_set(db)  # this worker has cached the key set
    with Session(db_engine) as other_worker:
        new_kid = keys.rotate(other_worker)
        other_worker.commit()
    private_pem = db.exec(select(SigningKey.private_key_pem).where(SigningKey.kid == new_kid))
    assert private_pem.one()

    assert keys.verifying_key(db, new_kid) is not None


def test_the_command_line_rotates_the_key(app_database, db, capsys):
    service.sign_up(db, "quin@example.com", "secret1")
    db.commit()
    kids_before = set(db.exec(select(SigningKey.kid)).all())

    assert command_line(["keys", "rotate"]) == 0

    db.expire_all()
    kids_after = set(db.exec(select(SigningKey.kid)).all())
    (new_kid,) = kids_after - kids_before
    assert new_kid in capsys.readouterr().out


def test_a_token_signed_with_a_stolen_looking_but_different_key_is_refused(db):
    issued = service.sign_up(db, "rae@example.com", "secret1")
    db.commit()
    kid, _ = keys.signing_key(db)
    claims = jwt.decode(issued.access_token, options={"verify_signature": False})
    impostor = ec.generate_private_key(ec.SECP256R1())

    forged = jwt.encode(claims, impostor, algorithm="ES256", headers={"kid": kid})

    assert service.resolve_user(db, forged) is None


def test_private_keys_are_stored_encrypted_with_the_secret_key(db):
    service.sign_up(db, "sal@example.com", "secret1")
    db.commit()

    (stored,) = db.exec(select(SigningKey.private_key_pem)).all()

    assert stored.startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----")


def test_a_changed_secret_key_keeps_old_tokens_valid_and_signs_with_a_new_key(db, monkeypatch):
    from prettyscore.core.settings import get_settings

    before = service.sign_up(db, "tia@example.com", "secret1")
    db.commit()
    old_kid = jwt.get_unverified_header(before.access_token)["kid"]
    monkeypatch.setenv("SECRET_KEY", "a-new-secret-key-after-a-leak-0123456789")
    get_settings.cache_clear()
    keys.forget_cached_keys()
    try:
        after = service.sign_in(db, "tia@example.com", "secret1")
        db.commit()
        new_kid = jwt.get_unverified_header(after.access_token)["kid"]

        assert new_kid != old_kid
        assert service.resolve_user(db, before.access_token) is not None
        assert service.resolve_user(db, after.access_token) is not None
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
        keys.forget_cached_keys()
