"""A tab's event socket, spoken as the page's JavaScript speaks it, from a chosen address.

The pages send their events over Socket.IO on a websocket (``/_event``). This client
opens that websocket from a loopback address of the test's choosing (127.0.0.0/8 is all
this machine's), with the browser's cookie, and sends events by their handler's full
name, as a forged page could; it reads back the toasts the server sends.
"""

from __future__ import annotations

import json
import re
import socket
import time
import uuid
from urllib.parse import urlsplit

from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    CloseConnection,
    Ping,
    RejectConnection,
    Request,
    TextMessage,
)

NAMESPACE = "/_event"
_TOAST = re.compile(r'\["(error|success|info|warning)"\]\(("(?:[^"\\]|\\.)*")')


class EventSocket:
    """One tab: ``send(name, payload)`` and ``toast()``; use it as a context manager."""

    def __init__(self, base_url: str, *, source: str, cookie: str = "", headers=()):
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname, parts.port
        self.source = source
        self.cookie = cookie
        self.headers = list(headers)
        self.token = str(uuid.uuid4())
        self.updates: list[dict] = []
        self._text = ""
        self._sock: socket.socket | None = None
        self._ws = WSConnection(ConnectionType.CLIENT)

    def __enter__(self) -> EventSocket:
        self._sock = socket.create_connection(
            (self.host, self.port), timeout=30, source_address=(self.source, 0)
        )
        headers = [(b"cookie", self.cookie.encode()), *self.headers]
        target = f"{NAMESPACE}/?EIO=4&transport=websocket&token={self.token}"
        self._send(Request(host=f"{self.host}:{self.port}", target=target, extra_headers=headers))
        self._receive_until(lambda message: message.startswith("0"))  # Engine.IO open
        self._send_text(f"40{NAMESPACE},")  # Socket.IO connect to the event namespace
        self._receive_until(lambda message: message.startswith(f"40{NAMESPACE},"))
        return self

    def __exit__(self, *exc_info) -> None:
        if self._sock is not None:
            self._sock.close()

    def send(self, name: str, payload: dict, path: str = "/") -> None:
        """Send the event ``name`` (a handler's full name) as a page at ``path`` would."""
        event = {"name": name, "payload": payload, "router_data": {"pathname": path, "query": {}}}
        self._send_text(f"42{NAMESPACE}," + json.dumps(["event", event]))

    def toast(self, timeout: float = 30) -> tuple[str, str]:
        """The next toast the server shows this tab: (kind, text)."""
        found: list[tuple[str, str]] = []

        def has_toast(message: str) -> bool:
            if message.startswith(f"42{NAMESPACE},"):
                _, update = json.loads(message.split(",", 1)[1])
                self.updates.append(update)
                found.extend(toasts_in(update))
            return bool(found)

        self._receive_until(has_toast, timeout)
        return found[0]

    def update_where(self, wanted, timeout: float = 30) -> dict:
        """The next update from the server for which ``wanted(update)`` is true (the
        updates before it are kept in ``updates`` too)."""
        found: list[dict] = []

        def matches(message: str) -> bool:
            if message.startswith(f"42{NAMESPACE},"):
                _, update = json.loads(message.split(",", 1)[1])
                self.updates.append(update)
                if wanted(update):
                    found.append(update)
            return bool(found)

        self._receive_until(matches, timeout)
        return found[0]

    def close(self) -> None:
        """Close the socket, as a tab that is closed does."""
        self.__exit__(None, None, None)

    # -- the websocket ---------------------------------------------------------------
    def _send(self, event) -> None:
        self._sock.sendall(self._ws.send(event))

    def _send_text(self, text: str) -> None:
        self._send(TextMessage(data=text))

    def _receive_until(self, wanted, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self._ws.events():
                if isinstance(event, TextMessage):
                    self._text += event.data
                    if not event.message_finished:
                        continue
                    message, self._text = self._text, ""
                    if message == "2":  # Engine.IO ping
                        self._send_text("3")
                    elif wanted(message):
                        return
                elif isinstance(event, Ping):
                    self._send(event.response())
                elif isinstance(event, (RejectConnection, CloseConnection)):
                    raise ConnectionError(f"the event socket was refused or closed: {event}")
                elif isinstance(event, AcceptConnection):
                    continue
            self._sock.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                data = self._sock.recv(65536)
            except TimeoutError:
                break
            if not data:
                raise ConnectionError("the server closed the event socket")
            self._ws.receive_data(data)
        raise TimeoutError("the server sent nothing of what was awaited")


def toasts_in(update: dict) -> list[tuple[str, str]]:
    """The toasts of one update from the server: (kind, text)."""
    found = []
    for event in update.get("events", []):
        for value in event.get("payload", {}).values():
            match = _TOAST.search(value if isinstance(value, str) else json.dumps(value))
            if match:
                found.append((match.group(1), json.loads(match.group(2))))
    return found
