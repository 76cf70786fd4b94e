"""A request that mails answers without waiting for the mail server, so /recover, /otp and
the recovery page answer a known and an unknown address alike and in the same time.

The mail server is a real SMTP server on 127.0.0.1 (STARTTLS, as ``SMTP_URL`` asks for)
that keeps its client waiting at the end of each message until the test lets it answer:
an answer given meanwhile did not wait for it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from reflex.istate.data import RouterData, SessionData

from prettyscore.accounts.form_state import ForgotPasswordState
from prettyscore.core.mail import wait_for_mail
from tests.fixtures.handlers import a_browser, call
from tests.helpers.auth_api import sign_up
from tests.helpers.fake_mail_server import FakeMailServer


@pytest.fixture
def slow_mail_server(auth_settings) -> Iterator[FakeMailServer]:
    """The app's mail server, holding every message until ``release()``."""
    server = FakeMailServer(hold_seconds=5).start()
    auth_settings(SMTP_URL=server.url)
    server.hold()
    try:
        yield server
    finally:
        server.release()
        wait_for_mail()
        server.stop()


def by_api(route: str, **body):
    def ask(api, email: str):
        answer = api.post(f"/auth/v1/{route}", json={"email": email, **body})
        return answer.status_code, answer.json()

    return ask


def by_recovery_page(api, email: str):
    state = ForgotPasswordState()
    state.router = RouterData(session=SessionData(client_ip="127.0.0.1"), headers=a_browser())
    return call(state, "submit", {"email": email})


@pytest.mark.parametrize(
    "ask",
    [by_api("recover"), by_api("otp", create_user=False), by_recovery_page],
    ids=["recover", "otp", "recovery page"],
)
def test_the_answer_does_not_wait_for_the_mail_server(api, slow_mail_server, ask):
    known, unknown = (f"member-{uuid.uuid4().hex[:12]}@example.com" for _ in range(2))
    sign_up(api, known)

    answers = {email: ask(api, email) for email in (known, unknown)}
    accepted_before_answering = slow_mail_server.received
    slow_mail_server.release()
    wait_for_mail()

    assert answers[known] == answers[unknown]
    assert accepted_before_answering == []
    assert [mail["To"] for mail in slow_mail_server.received] == [known]
