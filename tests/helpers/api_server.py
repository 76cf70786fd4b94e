"""The REST API served on a real socket (uvicorn on 127.0.0.1, in a thread) for tests.

The API tests speak HTTP to it exactly as a Supabase client library or ``curl`` would,
while the test itself can open the same database to check what was stored.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import httpx
import uvicorn

from prettyscore.core.mail import wait_for_mail


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serving(app, port: int | None = None) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 until the block ends; yields its base URL."""
    port = port or free_port()
    # As in production (Granian), the server believes no X-Forwarded-For: the app decides
    # whom to believe (web/client_address.py), not uvicorn's default of 127.0.0.1.
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="off", proxy_headers=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"api-server-{port}", daemon=True)
    thread.start()
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError(f"the API server did not start on port {port}")
        time.sleep(0.02)
    try:
        yield base_url
    finally:
        server.should_exit = True
        thread.join(timeout=10)


class Outbox:
    """The mail the app wrote to its outbox folder (no SMTP in tests)."""

    def __init__(self, directory: Path):
        self.directory = directory

    def messages(self, to: str | None = None) -> list[EmailMessage]:
        """Every message, oldest first, optionally only those to ``to``: once the mail
        the server (in this process) has handed to its mail threads is written."""
        wait_for_mail()
        if not self.directory.exists():
            return []
        found = []
        for path in sorted(self.directory.glob("*.eml")):
            message = message_from_bytes(path.read_bytes(), policy=policy.default)
            if to is None or message["To"] == to:
                found.append(message)
        return found

    def latest(self, to: str) -> EmailMessage:
        """The newest message to ``to``; fails the test when there is none."""
        found = self.messages(to)
        assert found, f"no mail to {to} in {self.directory}"
        return found[-1]

    @staticmethod
    def text(message: EmailMessage) -> str:
        return message.get_body(("plain",)).get_content()


def wait_until_up(base_url: str, path: str = "/auth/v1/health") -> None:
    """Poll ``path`` until it answers (used against a separately started app)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(base_url + path, timeout=2).status_code < 500:
                return
        time.sleep(0.2)
    raise RuntimeError(f"{base_url}{path} did not answer")
