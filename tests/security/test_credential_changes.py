"""The access token alone never changes the password or the email, even a moment after
signing in: a page's scripts can read it, so whoever runs a script in the page would take
the account. The member proves it is them again with the current password (or the code
GET /reauthenticate mails); a wrong one says so. Spoken over HTTP to the running API."""

# ruff: noqa: F811  (test parameters are the fixtures imported from tests.helpers.auth_api)
from __future__ import annotations

from prettyscore.core import messages
from tests.helpers.auth_api import (  # noqa: F401  (fixtures)
    PASSWORD,
    bearer,
    code_in,
    fresh_rate_limits,
    new_email,
    sign_in,
    sign_up,
)


def change(api, access_token: str, **body):
    return api.put("/auth/v1/user", json=body, headers=bearer(access_token))


def test_a_fresh_sign_ins_token_alone_changes_neither_the_password_nor_the_email(api, new_email):
    email = new_email()
    sign_up(api, email)
    token = sign_in(api, email).json()["access_token"]  # signed in this instant

    password = change(api, token, password="taken over!")
    address = change(api, token, email=new_email())

    for refused in (password, address):
        assert (refused.status_code, refused.json()["error_code"]) == (
            400,
            "reauthentication_needed",
        )
        assert refused.json()["msg"] == messages.CURRENT_PASSWORD_NEEDED
    assert sign_in(api, email, "taken over!").status_code == 400
    assert sign_in(api, email).status_code == 200
    assert "new_email" not in api.get("/auth/v1/user", headers=bearer(token)).json()


def test_a_wrong_current_password_is_refused_with_its_message_the_right_one_changes_both(
    api, outbox, new_email
):
    email, new = new_email(), new_email()
    token = sign_up(api, email)["access_token"]

    wrong = change(api, token, password="brand new pw", current_password="a guess!")
    right = change(api, token, password="brand new pw", email=new, current_password=PASSWORD)

    assert (wrong.status_code, wrong.json()["error_code"]) == (400, "invalid_credentials")
    assert wrong.json()["msg"] == messages.CURRENT_PASSWORD_WRONG
    assert right.status_code == 200 and right.json()["new_email"] == new
    assert sign_in(api, email, "brand new pw").status_code == 200
    assert code_in(outbox, new)


def test_a_recovery_mails_session_sets_a_new_password_but_not_the_email(api, outbox, new_email):
    """The member who forgot their password proves their mailbox instead, as GoTrue's
    recovery does; that proof is not one of the current password for the email."""
    email = new_email()
    sign_up(api, email)
    api.post("/auth/v1/recover", json={"email": email})
    body = {"type": "recovery", "email": email, "token": code_in(outbox, email)}
    token = api.post("/auth/v1/verify", json=body).json()["access_token"]

    address = change(api, token, email=new_email())
    password = change(api, token, password="remembered now")

    assert (address.status_code, address.json()["error_code"]) == (400, "reauthentication_needed")
    assert password.status_code == 200
    assert sign_in(api, email, "remembered now").status_code == 200
