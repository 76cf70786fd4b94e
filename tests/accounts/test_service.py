"""Accounts service on a real, migrated database (SQLite and PostgreSQL)."""

from __future__ import annotations

import base64
import email
import json
from datetime import UTC, datetime, timedelta

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from passlib.hash import argon2
from sqlalchemy import func, update
from sqlmodel import select

from prettyscore.accounts import keys, passwords, service, tokens
from prettyscore.accounts.models import (
    AuthSession,
    PasswordRecoveryToken,
    Profile,
    RefreshToken,
    User,
)
from prettyscore.core import messages
from prettyscore.core.errors import Conflict, NotAuthenticated, NotFound, ValidationFailed
from prettyscore.core.mail import OutboxMailer
from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import get_settings


def count(db, model) -> int:
    return db.exec(select(func.count()).select_from(model)).one()


# ---------------------------------------------------------------------------
# Passwords
# ---------------------------------------------------------------------------
def test_password_is_stored_as_an_argon2_hash_that_verifies():
    stored = passwords.hash_password("s3cret-pass")
    assert stored.startswith("$argon2")
    assert "s3cret-pass" not in stored
    assert passwords.verify_password("s3cret-pass", stored)
    assert not passwords.verify_password("s3cret-pasS", stored)
    assert not passwords.verify_password("anything", None)


def test_passwords_hashed_with_earlier_parameters_still_verify():
    """Members who signed up before the hashing parameters changed can still sign in."""
    earlier = "$argon2id$v=19$m=65536,t=3,p=4$"
    stored = argon2.using(memory_cost=65536, rounds=3, parallelism=4).hash("s3cret-pass")
    assert stored.startswith(earlier)
    assert passwords.verify_password("s3cret-pass", stored)
    assert not passwords.verify_password("s3cret-pasS", stored)
    assert passwords.hash_password("s3cret-pass").startswith("$argon2id$v=19$m=19456,t=2,p=1$")


# ---------------------------------------------------------------------------
# Sign-up
# ---------------------------------------------------------------------------
def test_sign_up_creates_a_member_with_a_profile_and_a_working_session(db):
    session_tokens = service.sign_up(db, "  Ada@Example.COM ", "secret1")
    user = db.exec(select(User)).one()
    assert user.email == "ada@example.com"
    assert db.get(Profile, user.id) is not None
    assert session_tokens.email == "ada@example.com"
    current = service.resolve_user(db, session_tokens.access_token)
    assert current is not None and current.id == user.id
    assert session_tokens.expires_in == get_settings().access_token_ttl_seconds


def test_sign_up_with_an_email_in_another_case_is_refused_and_makes_no_second_user(db):
    service.sign_up(db, "bob@example.com", "secret1")
    with pytest.raises(Conflict) as raised:
        service.sign_up(db, "BOB@example.com", "another1")
    assert raised.value.message == messages.USER_ALREADY_REGISTERED
    assert count(db, User) == 1


@pytest.mark.parametrize(
    ("email_address", "password", "expected"),
    [
        ("", "secret1", messages.EMAIL_REQUIRED),
        ("   ", "secret1", messages.EMAIL_REQUIRED),
        ("not-an-email", "secret1", messages.INVALID_EMAIL),
        ("a@b", "secret1", messages.INVALID_EMAIL),
        ("carol@example.com", "", messages.PASSWORD_REQUIRED),
        ("carol@example.com", "12345", messages.PASSWORD_TOO_SHORT),
    ],
)
def test_sign_up_bad_input_gives_its_message_and_saves_nothing(
    db, email_address, password, expected
):
    with pytest.raises(ValidationFailed) as raised:
        service.sign_up(db, email_address, password)
    assert raised.value.message == expected
    assert count(db, User) == 0
    assert count(db, AuthSession) == 0


def test_a_six_character_password_is_enough(db):
    service.sign_up(db, "six@example.com", "123456")
    assert count(db, User) == 1


# ---------------------------------------------------------------------------
# Sign-in
# ---------------------------------------------------------------------------
def test_sign_in_with_the_right_password_opens_a_new_session(db):
    service.sign_up(db, "dan@example.com", "secret1")
    again = service.sign_in(db, "DAN@example.com", "secret1")
    assert count(db, AuthSession) == 2
    assert service.resolve_user(db, again.access_token).email == "dan@example.com"


def test_wrong_password_and_unknown_email_get_the_same_answer_and_no_session(db):
    service.sign_up(db, "eve@example.com", "secret1")
    sessions_before = count(db, AuthSession)
    answers = []
    for address, password in [("eve@example.com", "wrong-one"), ("nobody@example.com", "secret1")]:
        with pytest.raises(NotAuthenticated) as raised:
            service.sign_in(db, address, password)
        answers.append(raised.value.message)
    assert answers == [messages.INVALID_CREDENTIALS, messages.INVALID_CREDENTIALS]
    assert count(db, AuthSession) == sessions_before


# ---------------------------------------------------------------------------
# Tokens and refresh
# ---------------------------------------------------------------------------
def test_tampered_foreign_and_expired_access_tokens_are_treated_as_signed_out(db):
    issued = service.sign_up(db, "fay@example.com", "secret1")
    other = service.sign_up(db, "fay.other@example.com", "secret1")
    header, _, signature = issued.access_token.split(".")
    claims = jwt.decode(issued.access_token, options={"verify_signature": False})
    forged = dict(claims, sub=str(other.user_id))
    forged_payload = base64.urlsafe_b64encode(json.dumps(forged).encode()).rstrip(b"=").decode()
    tampered = f"{header}.{forged_payload}.{signature}"
    kid, private_key = keys.signing_key(db)
    stranger_key = ec.generate_private_key(ec.SECP256R1())
    foreign = jwt.encode(claims, stranger_key, algorithm="ES256", headers={"kid": kid})
    shared_secret = jwt.encode(claims, "a-guessable-secret-key-of-32-bytes!", algorithm="HS256")
    expired = jwt.encode(
        dict(claims, exp=claims["iat"] - 1), private_key, algorithm="ES256", headers={"kid": kid}
    )
    for token in (tampered, foreign, shared_secret, expired, "", "garbage"):
        assert service.resolve_user(db, token) is None
    assert service.resolve_user(db, issued.access_token).id == issued.user_id


def test_refresh_rotates_the_pair_and_spends_the_old_refresh_token(db):
    first = service.sign_up(db, "gus@example.com", "secret1")
    second = service.refresh_session(db, first.refresh_token)
    assert second.refresh_token != first.refresh_token
    assert service.resolve_user(db, second.access_token) is not None
    spent = db.exec(
        select(RefreshToken).where(
            RefreshToken.token_hash == tokens.hash_secret(first.refresh_token)
        )
    ).one()
    assert spent.used_at is not None
    assert first.refresh_token not in str(db.exec(select(RefreshToken.token_hash)).all())


def test_reusing_a_rotated_refresh_token_revokes_the_whole_session(db, monkeypatch):
    monkeypatch.setattr(service, "REFRESH_REUSE_GRACE", timedelta(0))
    first = service.sign_up(db, "hal@example.com", "secret1")
    second = service.refresh_session(db, first.refresh_token)
    with pytest.raises(NotAuthenticated):
        service.refresh_session(db, first.refresh_token)  # a replay of a spent token
    assert service.resolve_user(db, second.access_token) is None
    with pytest.raises(NotAuthenticated):
        service.refresh_session(db, second.refresh_token)
    assert db.exec(select(AuthSession)).one().revoked_reason == "token_reuse"


def test_a_reuse_within_the_grace_interval_is_a_race_not_a_theft(db):
    first = service.sign_up(db, "ida@example.com", "secret1")
    a = service.refresh_session(db, first.refresh_token)
    b = service.refresh_session(db, first.refresh_token)  # the second tab, same instant
    assert service.resolve_user(db, a.access_token) is not None
    assert service.resolve_user(db, b.access_token) is not None


def test_unknown_and_expired_refresh_tokens_are_refused(db):
    issued = service.sign_up(db, "jay@example.com", "secret1")
    with pytest.raises(NotAuthenticated):
        service.refresh_session(db, "not-a-token")
    db.execute(update(RefreshToken).values(expires_at=utcnow() - timedelta(seconds=1)))
    with pytest.raises(NotAuthenticated):
        service.refresh_session(db, issued.refresh_token)


def test_the_session_is_renewed_when_the_access_token_is_near_expiry(db):
    issued = service.sign_up(db, "kim@example.com", "secret1")
    current = service.resolve_user(db, issued.access_token)
    assert not service.needs_refresh(current)
    near_end = current.access_expires_at - service.REFRESH_MARGIN_SECONDS + 1
    assert service.needs_refresh(current, now=datetime.fromtimestamp(near_end, UTC))


# ---------------------------------------------------------------------------
# Sign-out scopes
# ---------------------------------------------------------------------------
def _three_sessions(db, address="lee@example.com"):
    service.sign_up(db, address, "secret1")
    return [service.sign_in(db, address, "secret1") for _ in range(3)]


def _alive(db, session_tokens) -> list[bool]:
    return [service.resolve_user(db, t.access_token) is not None for t in session_tokens]


def test_sign_out_local_ends_only_this_session(db):
    a, b, c = _three_sessions(db)
    service.sign_out(db, a.access_token, "local")
    assert _alive(db, [a, b, c]) == [False, True, True]
    with pytest.raises(NotAuthenticated):
        service.refresh_session(db, a.refresh_token)


def test_sign_out_others_keeps_only_this_session(db):
    a, b, c = _three_sessions(db)
    service.sign_out(db, a.access_token, "others")
    assert _alive(db, [a, b, c]) == [True, False, False]


def test_sign_out_global_ends_every_session_of_the_user_only(db):
    a, b, c = _three_sessions(db)
    other = service.sign_up(db, "someone.else@example.com", "secret1")
    service.sign_out(db, b.access_token, "global")
    assert _alive(db, [a, b, c]) == [False, False, False]
    assert _alive(db, [other]) == [True]


def test_sign_out_with_an_unknown_scope_is_refused(db):
    a, _, _ = _three_sessions(db)
    with pytest.raises(ValidationFailed):
        service.sign_out(db, a.access_token, "everyone")
    assert _alive(db, [a]) == [True]


# ---------------------------------------------------------------------------
# Password recovery
# ---------------------------------------------------------------------------
def _recovery_link(outbox) -> str:
    mails = sorted(outbox.glob("*.eml"))
    assert len(mails) == 1
    body = email.message_from_bytes(mails[0].read_bytes()).get_payload(decode=True).decode()
    line = next(line for line in body.splitlines() if "/auth/reset?token=" in line)
    return line.split("token=", 1)[1].strip()


def test_recovery_mails_a_single_use_link_that_sets_a_new_password(db, tmp_path):
    old = service.sign_up(db, "mia@example.com", "secret1")
    outbox = tmp_path / "outbox"
    service.request_password_recovery(db, "MIA@example.com", OutboxMailer(outbox))
    token = _recovery_link(outbox)
    assert tokens.hash_secret(token) == db.exec(select(PasswordRecoveryToken.token_hash)).one()

    fresh = service.reset_password(db, token, "brand-new-pass")
    assert service.resolve_user(db, fresh.access_token) is not None
    assert service.resolve_user(db, old.access_token) is None  # old sessions ended
    with pytest.raises(NotAuthenticated):
        service.sign_in(db, "mia@example.com", "secret1")
    service.sign_in(db, "mia@example.com", "brand-new-pass")
    with pytest.raises(ValidationFailed) as raised:
        service.reset_password(db, token, "yet-another-pass")
    assert raised.value.message == messages.RECOVERY_LINK_INVALID


def test_an_expired_recovery_link_is_refused(db, tmp_path):
    service.sign_up(db, "ned@example.com", "secret1")
    outbox = tmp_path / "outbox"
    service.request_password_recovery(db, "ned@example.com", OutboxMailer(outbox))
    token = _recovery_link(outbox)
    record = db.exec(select(PasswordRecoveryToken)).one()
    assert record.expires_at - record.created_at == timedelta(hours=1)
    db.execute(update(PasswordRecoveryToken).values(expires_at=record.created_at))
    with pytest.raises(ValidationFailed):
        service.reset_password(db, token, "brand-new-pass")
    service.sign_in(db, "ned@example.com", "secret1")  # password unchanged


def test_recovery_for_an_unknown_email_sends_nothing_and_says_nothing(db, tmp_path):
    outbox = tmp_path / "outbox"
    service.request_password_recovery(db, "ghost@example.com", OutboxMailer(outbox))
    assert not outbox.exists() or not list(outbox.iterdir())
    assert count(db, PasswordRecoveryToken) == 0


# ---------------------------------------------------------------------------
# Roles
# ---------------------------------------------------------------------------
def test_granting_and_revoking_admin(db):
    issued = service.sign_up(db, "ola@example.com", "secret1")
    assert not service.has_role(db, issued.user_id)
    assert service.grant_role(db, "OLA@example.com") is True
    assert service.grant_role(db, "ola@example.com") is False
    assert service.has_role(db, issued.user_id)
    assert service.revoke_role(db, "ola@example.com") is True
    assert not service.has_role(db, issued.user_id)
    with pytest.raises(NotFound):
        service.grant_role(db, "nobody@example.com")
