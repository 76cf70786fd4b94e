"""The second-factor rules on a real, migrated database (SQLite and PostgreSQL): what the
pages rely on (the sign-in's second step) and what no single HTTP call shows."""

from __future__ import annotations

import uuid
from datetime import timedelta

import jwt
import pytest

from prettyscore.accounts import mfa, service
from prettyscore.accounts.models import AuthSession, MfaFactor
from prettyscore.core import messages, rate_limits
from prettyscore.core.errors import DomainError, NotAuthenticated
from prettyscore.core.settings import get_settings
from tests.conftest import REDIS_SKIP_REASON, redis_url
from tests.fixtures.totp import fresh_code, wrong_code

PASSWORD = "secret12"


def member(db, prefix: str = "svc") -> service.SessionTokens:
    return service.sign_up(db, f"{prefix}-{uuid.uuid4().hex[:8]}@example.com", PASSWORD)


def who(db, tokens: service.SessionTokens) -> service.CurrentUser:
    return service.resolve_user(db, tokens.access_token)


def with_authenticator(db, name: str | None = None):
    """A member who enrolled and verified an authenticator: (aal2 tokens, enrolment)."""
    tokens = member(db)
    enrolment = mfa.enroll_totp(db, who(db, tokens), name)
    verified = mfa.challenge_and_verify(
        db, who(db, tokens), enrolment.factor_id, fresh_code(enrolment.secret), "127.0.0.1"
    )
    return verified, enrolment


def verified_without_using_a_code(db, tokens, *names: str | None) -> list[mfa.Enrolment]:
    """Authenticators marked verified directly, so their current codes are still unused."""
    enrolments = [mfa.enroll_totp(db, who(db, tokens), name) for name in names or (None,)]
    for enrolment in enrolments:
        db.get(MfaFactor, enrolment.factor_id).status = "verified"
    db.flush()
    return enrolments


def aal(access_token: str) -> str:
    return jwt.decode(access_token, options={"verify_signature": False})["aal"]


def test_the_sign_in_second_step_completes_the_password_session(db):
    tokens = member(db)
    [enrolment] = verified_without_using_a_code(db, tokens)
    password_only = service.sign_in(db, tokens.email, PASSWORD)
    assert aal(password_only.access_token) == "aal1"

    done = mfa.complete_sign_in(
        db,
        password_only.access_token,
        password_only.refresh_token,
        fresh_code(enrolment.secret),
        "10.0.0.7",
    )

    assert aal(done.access_token) == "aal2"
    assert who(db, done).session_id == who(db, password_only).session_id


def test_the_second_step_renews_an_access_token_that_expired_while_waiting(db):
    tokens = member(db)
    [enrolment] = verified_without_using_a_code(db, tokens)

    done = mfa.complete_sign_in(
        db, "expired-or-garbled", tokens.refresh_token, fresh_code(enrolment.secret), None
    )

    assert aal(done.access_token) == "aal2"
    with pytest.raises(NotAuthenticated):
        mfa.complete_sign_in(db, "", "", fresh_code(enrolment.secret), None)


def test_the_second_step_refuses_a_wrong_code_with_the_documents_text(db):
    tokens = member(db)
    [enrolment] = verified_without_using_a_code(db, tokens)

    with pytest.raises(DomainError) as refused:
        mfa.complete_sign_in(
            db, tokens.access_token, tokens.refresh_token, wrong_code(enrolment.secret), None
        )

    assert refused.value.message == messages.MFA_INVALID_CODE == "Invalid TOTP code entered"


def test_the_second_step_uses_the_authenticator_the_member_chose(db):
    tokens = member(db)
    phone, tablet = verified_without_using_a_code(db, tokens, "Phone", "Tablet")
    password_only = service.sign_in(db, tokens.email, PASSWORD)

    with pytest.raises(DomainError):  # the tablet's code, checked against the phone
        mfa.complete_sign_in(
            db, password_only.access_token, "", fresh_code(tablet.secret), None, phone.factor_id
        )
    done = mfa.complete_sign_in(
        db, password_only.access_token, "", fresh_code(tablet.secret), None, tablet.factor_id
    )

    assert db.get(AuthSession, who(db, done).session_id).factor_id == tablet.factor_id
    names = [f.friendly_name for f in mfa.verified_totp_factors(db, tokens.user_id)]
    assert names == ["Phone", "Tablet"]


def test_verifying_clears_the_members_other_unfinished_enrolments(db):
    tokens = member(db)
    abandoned = mfa.enroll_totp(db, who(db, tokens), "First try")
    kept = mfa.enroll_totp(db, who(db, tokens), "Second try")

    mfa.challenge_and_verify(db, who(db, tokens), kept.factor_id, fresh_code(kept.secret), None)

    assert db.get(MfaFactor, abandoned.factor_id) is None
    assert [f.id for f in mfa.list_factors(db, tokens.user_id)] == [kept.factor_id]


def test_an_enrolment_left_unfinished_for_five_minutes_goes_at_the_next_one(db):
    tokens = member(db)
    stale = mfa.enroll_totp(db, who(db, tokens), "Old")
    db.get(MfaFactor, stale.factor_id).created_at -= timedelta(minutes=6)
    recent = mfa.enroll_totp(db, who(db, tokens), "Recent")
    db.flush()

    mfa.enroll_totp(db, who(db, tokens), "Newest")

    names = [f.friendly_name for f in mfa.list_factors(db, tokens.user_id)]
    assert names == ["Recent", "Newest"]
    assert db.get(MfaFactor, recent.factor_id) is not None


def test_removing_the_factor_a_session_used_leaves_it_needing_another(db):
    tokens, phone = with_authenticator(db, "Phone")
    holder = who(db, tokens)
    tablet = mfa.enroll_totp(db, holder, "Tablet")
    mfa.challenge_and_verify(db, holder, tablet.factor_id, fresh_code(tablet.secret), None)
    # The session was last proved by the tablet; removing the phone changes nothing.
    mfa.unenroll(db, holder, phone.factor_id)
    assert db.get(AuthSession, holder.session_id).aal == "aal2"

    mfa.unenroll(db, holder, tablet.factor_id)

    assert db.get(AuthSession, holder.session_id).aal == "aal1"
    assert not service.has_verified_factor(db, holder.id)


def test_the_qr_code_is_an_svg_a_data_uri_can_carry():
    svg = mfa.qr_code_svg("otpauth://totp/PrettyScore:ada%40example.com?secret=ABC")

    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert svg.endswith("</svg>")
    assert "#" not in svg and "<?xml" not in svg


def test_wrong_codes_are_counted_in_redis_when_the_app_has_it(db, monkeypatch):
    url = redis_url()
    if url is None:
        pytest.skip(REDIS_SKIP_REASON)
    monkeypatch.setenv("REDIS_URL", url)
    get_settings.cache_clear()
    try:
        tokens = member(db)
        enrolment = mfa.enroll_totp(db, who(db, tokens))
        record = mfa.challenge(db, who(db, tokens), enrolment.factor_id, None)
        for _ in range(5):
            with pytest.raises(DomainError):
                mfa.verify(db, who(db, tokens), enrolment.factor_id, record.id, "000000x", None)
        rate_limits._shared_limiter.cache_clear()  # another worker: nothing shared but Redis

        with pytest.raises(DomainError) as locked:
            mfa.verify(
                db,
                who(db, tokens),
                enrolment.factor_id,
                record.id,
                fresh_code(enrolment.secret),
                None,
            )
    finally:
        monkeypatch.delenv("REDIS_URL")
        get_settings.cache_clear()

    assert (locked.value.status, locked.value.code) == (429, "over_request_rate_limit")


def test_pages_resolve_the_member_and_their_role_with_the_same_rules(db):
    """What every page load asks (resolve_member_with_role): a member, an admin, a
    password-only session of a member with an authenticator, a signed-out session."""
    plain = member(db, "plain")
    assert service.resolve_member_with_role(db, plain.access_token) == (who(db, plain), False)

    admin = member(db, "admin")
    service.grant_role(db, admin.email)
    user, is_admin = service.resolve_member_with_role(db, admin.access_token)
    assert (user.email, is_admin) == (admin.email, True)

    full, _enrolment = with_authenticator(db)
    user, _ = service.resolve_member_with_role(db, full.access_token)
    assert user is not None and user.aal == "aal2"
    password_only = service.sign_in(db, full.email, PASSWORD)
    assert service.resolve_member_with_role(db, password_only.access_token) == (None, False)
    assert service.resolve_member(db, password_only.access_token) is None

    service.sign_out(db, plain.access_token)
    assert service.resolve_member_with_role(db, plain.access_token) == (None, False)
    assert service.resolve_member_with_role(db, "not a token") == (None, False)
