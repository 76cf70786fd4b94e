"""Outgoing mail: SMTP when ``SMTP_URL`` is set, otherwise an outbox folder.

The outbox keeps a local machine fully working offline: every message is written as an
``.eml`` file and its path logged, so a developer can open the recovery link it holds.
``SMTP_URL`` looks like ``smtp://user:pass@host:587`` (STARTTLS) or ``smtps://...:465``.
"""

from __future__ import annotations

import logging
import smtplib
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlparse

from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import get_settings

log = logging.getLogger(__name__)


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
