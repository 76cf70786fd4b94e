"""The real Supabase Auth Python client (``supabase_auth``) against our /auth/v1.

It sends exactly the requests a Supabase app sends and parses our answers with its own
models, so a shape it cannot read fails here. MFA is tested with the factor routes.
"""

# ruff: noqa: F811  (test parameters are the fixtures imported from tests.helpers.auth_api)
from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from supabase_auth import SyncGoTrueClient
from supabase_auth.errors import AuthApiError, AuthWeakPasswordError

from tests.helpers.auth_api import (  # noqa: F401  (fixtures)
    PASSWORD,
    auth_settings,
    code_in,
    fresh_rate_limits,
    new_email,
    open_link,
    query_of,
    verify_link_in,
)


@pytest.fixture
def client(api):
    gotrue = SyncGoTrueClient(url=f"{api.base_url}/auth/v1", auto_refresh_token=False)
    yield gotrue
    gotrue.close()


@pytest.fixture
def pkce_client(api):
    gotrue = SyncGoTrueClient(
        url=f"{api.base_url}/auth/v1", auto_refresh_token=False, flow_type="pkce"
    )
    yield gotrue
    gotrue.close()


def test_the_supabase_client_signs_up_in_refreshes_and_out(client, new_email):
    email = new_email()

    signed_up = client.sign_up(
        {"email": email, "password": PASSWORD, "options": {"data": {"name": "Ada"}}}
    )
    assert signed_up.session is not None
    assert signed_up.user.email == email and signed_up.user.user_metadata == {"name": "Ada"}

    signed_in = client.sign_in_with_password({"email": email, "password": PASSWORD})
    assert client.get_user().user.id == signed_in.user.id

    refreshed = client.refresh_session()
    assert refreshed.session.refresh_token != signed_in.session.refresh_token
    assert client.get_user().user.email == email

    updated = client.update_user({"data": {"name": "Ada L."}})
    assert updated.user.user_metadata == {"name": "Ada L."}

    old_access_token = refreshed.session.access_token
    client.sign_out()
    assert client.get_session() is None
    with pytest.raises(AuthApiError) as ended:
        client.get_user(old_access_token)
    assert ended.value.status == 401


def test_the_supabase_client_reads_our_errors(client, new_email):
    email = new_email()

    with pytest.raises(AuthWeakPasswordError) as weak:
        client.sign_up({"email": email, "password": "123"})
    client.sign_up({"email": email, "password": PASSWORD})
    with pytest.raises(AuthApiError) as wrong:
        client.sign_in_with_password({"email": email, "password": "not it"})

    assert weak.value.reasons == ["length"]
    assert (wrong.value.status, wrong.value.code) == (400, "invalid_credentials")


def test_the_supabase_client_signs_in_with_a_mailed_code(client, outbox, new_email):
    email = new_email()

    client.sign_in_with_otp({"email": email})
    answer = client.verify_otp({"email": email, "token": code_in(outbox, email), "type": "email"})

    assert answer.session is not None and answer.user.email == email
    assert client.get_user().user.email == email


def test_the_supabase_client_pkce_flow_through_the_magic_link(pkce_client, api, outbox, new_email):
    email = new_email()

    pkce_client.sign_in_with_otp(
        {"email": email, "options": {"email_redirect_to": f"{api.base_url}/auth/callback"}}
    )
    redirect = open_link(api, verify_link_in(outbox, email)).headers["location"]
    assert urlsplit(redirect).path == "/auth/callback"
    answer = pkce_client.exchange_code_for_session({"auth_code": query_of(redirect)["code"]})

    assert answer.session is not None and answer.user.email == email


def test_the_supabase_client_asks_for_a_recovery_mail(client, outbox, new_email):
    email = new_email()
    client.sign_up({"email": email, "password": PASSWORD})

    client.reset_password_for_email(email)
    answer = client.verify_otp(
        {"email": email, "token": code_in(outbox, email), "type": "recovery"}
    )
    client.update_user({"password": "a brand new one"})

    assert answer.session is not None
    assert client.sign_in_with_password({"email": email, "password": "a brand new one"}).session


def test_the_key_set_is_published_for_token_verification(client, api, new_email):
    signed_in = client.sign_up({"email": new_email(), "password": PASSWORD})
    keys = api.get("/auth/v1/.well-known/jwks.json")

    assert keys.status_code == 200 and keys.json()["keys"]
    claims = client.get_claims(signed_in.session.access_token)
    assert claims["claims"]["sub"] == signed_in.user.id
