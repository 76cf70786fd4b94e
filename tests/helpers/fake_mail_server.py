"""A real SMTP server on 127.0.0.1 that takes its time: the outside mail server of tests.

It speaks enough SMTP for ``smtplib`` (EHLO, STARTTLS with a self-signed certificate,
MAIL, RCPT, DATA, RSET, NOOP, QUIT) and keeps every message it accepts. While
``holding`` is set it does not answer the end of a message's DATA, as a slow or distant
mail server keeps its client waiting; ``release()`` lets it answer (and it answers by
itself after ``hold_seconds``, so a client that waits is only slowed, not stuck).
"""

from __future__ import annotations

import socketserver
import ssl
import tempfile
import threading
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

from tests.helpers.self_signed import server_context


class _Session(socketserver.StreamRequestHandler):
    """One client's SMTP conversation."""

    server: _SmtpServer

    def handle(self) -> None:
        self._say("220 127.0.0.1 test mail server")
        while line := self.rfile.readline():
            verb = line.decode("ascii", "replace").strip().split(" ", 1)[0].upper()
            if verb == "QUIT":
                self._say("221 bye")
                return
            self._answer(verb)

    def _answer(self, verb: str) -> None:
        if verb in ("EHLO", "HELO"):
            tls = isinstance(self.connection, ssl.SSLSocket)
            self._say("250-127.0.0.1" if not tls else "250 127.0.0.1")
            if not tls:
                self._say("250 STARTTLS")
        elif verb == "STARTTLS":
            self._say("220 go ahead")
            self.connection = self.server.tls.wrap_socket(self.connection, server_side=True)
            self.rfile = self.connection.makefile("rb")
            self.wfile = self.connection.makefile("wb", buffering=0)
        elif verb == "DATA":
            self._say("354 end with <CRLF>.<CRLF>")
            self.server.accept(self._read_message())
            self._say("250 queued")
        else:  # MAIL, RCPT, RSET, NOOP
            self._say("250 ok")

    def _read_message(self) -> bytes:
        lines = []
        while (line := self.rfile.readline()) not in (b".\r\n", b""):
            lines.append(line[1:] if line.startswith(b"..") else line)
        return b"".join(lines)

    def _say(self, reply: str) -> None:
        self.wfile.write(reply.encode("ascii") + b"\r\n")


class _SmtpServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, tls: ssl.SSLContext, hold_seconds: float):
        super().__init__(("127.0.0.1", 0), _Session)
        self.tls = tls
        self.hold_seconds = hold_seconds
        self.holding = threading.Event()
        self._released = threading.Event()
        self.received: list[EmailMessage] = []

    def accept(self, raw: bytes) -> None:
        """Keep the message; while holding, only once released (or after the hold)."""
        if self.holding.is_set():
            self._released.wait(self.hold_seconds)
        self.received.append(message_from_bytes(raw, policy=policy.default))


class FakeMailServer:
    """``start()``, point ``SMTP_URL`` at ``url``, then read ``received``."""

    def __init__(self, hold_seconds: float = 5.0):
        self._directory = tempfile.TemporaryDirectory()
        tls = server_context(Path(self._directory.name))
        self._server = _SmtpServer(tls, hold_seconds)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self._server.server_address[1]}"

    @property
    def received(self) -> list[EmailMessage]:
        return list(self._server.received)

    def hold(self) -> None:
        """From now on, keep each client waiting at the end of its message."""
        self._server.holding.set()

    def release(self) -> None:
        self._server._released.set()

    def start(self) -> FakeMailServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()
        self._directory.cleanup()
