"""Outgoing mail: SMTP when ``SMTP_URL`` is set, otherwise an outbox folder.

The outbox keeps a local machine fully working offline: every message is written as an
``.eml`` file and its path logged, so a developer can open the recovery link it holds.
``SMTP_URL`` looks like ``smtp://user:pass@host:587`` (STARTTLS) or ``smtps://...:465``.

A request that mails hands its messages to a ``HeldMail`` (``mail_on_commit``) that
releases them once its transaction has committed: mail threads deliver them while the
answer goes out. The answer then takes as long whether a mail went out or not (a
conversation with a mail server takes far longer than anything else these requests do,
so "we mailed it: the address has an account" would show in the timing), and a request
that failed sends nothing.

A request whose answer says nothing of what it found (a recovery asked for an address
with or without an account) does its whole work after answering (``after_answer``):
writing the single-use code and link takes a few milliseconds that a request for an
unknown address would not spend, and would tell the two apart as surely as the mail.
The work waits until the answer has gone out, or it would still slow the answer down by
sharing the processor with it.
"""

from __future__ import annotations

import functools
import logging
import smtplib
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlparse

from sqlalchemy import event
from sqlalchemy.orm import Session

from prettyscore.core.db import session_scope
from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import get_settings

log = logging.getLogger(__name__)

#: Mail deliveries at once; more wait their turn, their requests long answered.
MAIL_THREADS = 4


class Mailer(Protocol):
    """Anything that can deliver one message."""

    def send(self, message: EmailMessage) -> None: ...


class OutboxMailer:
    """Writes each message to ``directory`` as an .eml file."""

    def __init__(self, directory: Path):
        self.directory = directory

    def send(self, message: EmailMessage) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        stamp = utcnow().strftime("%Y%m%dT%H%M%S%f")
        path = self.directory / f"{stamp}-{message['To'].replace('@', '_at_')}.eml"
        path.write_bytes(message.as_bytes())
        log.warning("Mail to %s (%s) written to %s", message["To"], message["Subject"], path)


class SmtpMailer:
    """Delivers through an SMTP server described by a URL."""

    def __init__(self, url: str):
        self.url = urlparse(url)

    def send(self, message: EmailMessage) -> None:
        secure = self.url.scheme == "smtps"
        port = self.url.port or (465 if secure else 587)
        client_class = smtplib.SMTP_SSL if secure else smtplib.SMTP
        with client_class(self.url.hostname or "localhost", port, timeout=15) as client:
            if not secure and port != 25:
                client.starttls()
            if self.url.username:
                client.login(unquote(self.url.username), unquote(self.url.password or ""))
            client.send_message(message)


def get_mailer() -> Mailer:
    """The mailer the settings choose."""
    settings = get_settings()
    if settings.smtp_url:
        return SmtpMailer(settings.smtp_url)
    return OutboxMailer(settings.outbox_dir)


def compose(to: str, subject: str, body: str) -> EmailMessage:
    """A plain-text message from the app's sender."""
    message = EmailMessage()
    message["From"] = get_settings().mail_from
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    return message


class HeldMail:
    """A mailer for one request: keeps what it is given until ``release()``."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    def send(self, message: EmailMessage) -> None:
        self.messages.append(message)

    def release(self, mailer: Mailer | None = None) -> None:
        """Hand the messages to the mail threads (``mailer``, or the one the settings
        choose); the caller does not wait for them."""
        if self.messages:
            send_later(list(self.messages), mailer or get_mailer())
            self.messages.clear()


def mail_on_commit(db: Session) -> HeldMail:
    """A mailer for the unit of work ``db``: what it is given goes out when the work
    commits, and never if it rolls back."""
    held = HeldMail()

    def committed(session: Session) -> None:
        if not session.in_nested_transaction():  # a savepoint is not the work's end
            held.release()

    event.listen(db, "after_commit", committed)
    return held


@functools.cache
def _mail_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(MAIL_THREADS, thread_name_prefix="mail")


_in_flight: set[Future] = set()
_in_flight_lock = threading.Lock()


def send_later(messages: list[EmailMessage], mailer: Mailer) -> None:
    """Deliver ``messages`` through ``mailer`` on a mail thread."""
    _track(_mail_pool().submit(_deliver, messages, mailer))


#: How long work queued by ``after_answer`` waits for its request to say the answer has
#: gone out, before it starts anyway.
ANSWER_SECONDS = 10.0


def after_answer(work: Callable[..., None], /, *args, **kwargs) -> Callable[[], None]:
    """Queue ``work(db, *args, mailer=..., **kwargs)`` for a mail thread, in a unit of work
    of its own; what it mails is delivered on that thread once the work has committed
    (nothing if it fails: that is logged). It starts when the returned function is
    called, which the request does once its answer has gone out. ``wait_for_mail``
    waits for it from the moment it is queued."""
    answered = threading.Event()
    future = _mail_pool().submit(_work_then_deliver, answered, work, args, kwargs, get_mailer())
    _track(future)
    return answered.set


def _work_then_deliver(
    answered: threading.Event, work: Callable[..., None], args, kwargs, mailer: Mailer
) -> None:
    answered.wait(ANSWER_SECONDS)
    held = HeldMail()
    try:
        with session_scope() as db:
            work(db, *args, mailer=held, **kwargs)
    except Exception:
        log.exception("%s after the answer failed", getattr(work, "__qualname__", work))
        return
    _deliver(held.messages, mailer)


def _track(future: Future) -> None:
    with _in_flight_lock:
        _in_flight.add(future)
    future.add_done_callback(_forget)


def _forget(future: Future) -> None:
    with _in_flight_lock:
        _in_flight.discard(future)


def _deliver(messages: list[EmailMessage], mailer: Mailer) -> None:
    """Send each message; a failure is logged (its request was answered long ago)."""
    for message in messages:
        try:
            mailer.send(message)
        except Exception:
            log.exception("Mail to %s (%s) could not be sent", message["To"], message["Subject"])


def wait_for_mail(timeout: float = 30.0) -> None:
    """Wait until the mail handed over so far (and the work of ``after_answer``) has been
    delivered (or has failed): for a process about to stop, or a reader of the outbox."""
    with _in_flight_lock:
        pending = set(_in_flight)
    wait(pending, timeout=timeout)
