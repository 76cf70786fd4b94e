"""A request that mails answers without waiting for the mail server, so /recover, /otp and
the recovery page answer a known and an unknown address alike and in the same time.

The mail server is a real SMTP server on 127.0.0.1 (STARTTLS, as ``SMTP_URL`` asks for)
that keeps its client waiting at the end of each message until the test lets it answer:
an answer given meanwhile did not wait for it.

The mail is not the only work a known address causes: its single-use code and link are
written first (an unknown address writes nothing), which took /recover from 8.3 ms to
14.0 ms. So the test also holds the tables the recovery writes (another connection's
lock): an answer given meanwhile did not wait for those writes either.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest
from reflex.istate.data import RouterData, SessionData

from prettyscore.accounts.form_state import ForgotPasswordState
from prettyscore.accounts.models import OneTimeToken, PasswordRecoveryToken
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


#: The tables a recovery request writes: its code (and link) and the reset page's link.
RECOVERY_TABLES = (OneTimeToken.__tablename__, PasswordRecoveryToken.__tablename__)


@contextlib.contextmanager
def recovery_writes_held(engine) -> Iterator[None]:
    """Another connection holds the tables a recovery writes (reads go on) until the
    block ends: SQLite's one writer's lock, PostgreSQL's EXCLUSIVE lock on each table."""
    connection = engine.raw_connection()
    try:
        cursor = connection.cursor()
        if engine.dialect.name == "sqlite":
            cursor.execute("BEGIN IMMEDIATE")
        else:
            cursor.execute(f"LOCK TABLE {', '.join(RECOVERY_TABLES)} IN EXCLUSIVE MODE")
        yield
    finally:
        connection.rollback()
        connection.close()


def timed(ask, api, email: str):
    """The answer (or "no answer" after 3 s) and how long it took."""
    started = time.perf_counter()
    try:
        answer = ask(api, email)
    except httpx.TimeoutException:
        answer = "no answer"
    return answer, time.perf_counter() - started


@pytest.mark.parametrize(
    "ask", [by_api("recover"), by_recovery_page], ids=["recover", "recovery page"]
)
def test_the_answer_does_not_wait_for_the_recoverys_writes(api, db_engine, outbox, ask):
    known, unknown = (f"member-{uuid.uuid4().hex[:12]}@example.com" for _ in range(2))
    sign_up(api, known)
    impatient = httpx.Client(base_url=api.base_url, timeout=3)

    with impatient, recovery_writes_held(db_engine):
        answers = {email: timed(ask, impatient, email) for email in (known, unknown)}

    assert answers[known][0] == answers[unknown][0] != "no answer"
    assert answers[known][1] < 1.0 and answers[unknown][1] < 1.0
    # Written and mailed once the tables were free again.
    assert [mail["To"] for mail in outbox.messages() if mail["To"] in (known, unknown)] == [known]
