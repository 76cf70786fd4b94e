"""A scriptable stand-in for an outside AI provider: a real HTTP server on 127.0.0.1.

Each test scripts the answers per route (``provider.script("POST", "/v1/images/edits",
Reply(...), ...)``): the replies are given in order and the last one repeats. Files the
provider "hosts" (result images, videos) are served with ``provider.host(path, data)``.
Every request is recorded with its headers and its parsed body (JSON, or multipart
fields and files), so tests can check what our engines really sent.
"""

from __future__ import annotations

import contextlib
import email.parser
import email.policy
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a status, a JSON value or raw bytes, after ``delay`` seconds."""

    status: int = 200
    json: Any = None
    body: bytes | None = None
    content_type: str = "application/json"
    delay: float = 0.0

    def payload(self) -> bytes:
        if self.body is not None:
            return self.body
        return json.dumps(self.json if self.json is not None else {}).encode()


@dataclass
class Recorded:
    """A request as the provider received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any = None
    fields: dict[str, str] = field(default_factory=dict)
    files: dict[str, tuple[str | None, str, bytes]] = field(default_factory=dict)


def _parse_multipart(content_type: str, body: bytes) -> tuple[dict, dict]:
    """(text fields, files as (filename, content type, bytes)) of a multipart body."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body
    )
    fields, files = {}, {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        if filename is None:
            fields[name] = data.decode()
        else:
            files[name] = (filename, part.get_content_type(), data)
    return fields, files


class FakeAIProvider:
    """The server, its script and what it received. Start with ``start()``."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._routes: dict[tuple[str, str], deque[Reply]] = {}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- scripting --------------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self._server is not None, "start() the provider first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, method: str, path: str, *replies: Reply) -> None:
        """Answer ``method path`` with ``replies`` in order; the last one repeats."""
        with self._lock:
            self._routes[(method.upper(), path)] = deque(replies)

    def host(self, path: str, data: bytes, content_type: str) -> str:
        """Serve ``data`` at ``path`` (GET); returns its full URL."""
        self.script("GET", path, Reply(body=data, content_type=content_type))
        return self.url + path

    def received(self, method: str, path: str) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if (r.method, r.path) == (method.upper(), path)]

    def wait_for(self, method: str, path: str, timeout: float = 60.0) -> None:
        """Until ``method path`` has been called (e.g. by a job worker); fails after
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not self.received(method, path):
            assert time.monotonic() < deadline, f"nobody called {method} {path}"
            time.sleep(0.1)

    # -- serving ----------------------------------------------------------------------------

    def _next_reply(self, method: str, path: str) -> Reply:
        with self._lock:
            replies = self._routes.get((method, path))
            if not replies:
                return Reply(404, {"error": {"message": f"no route {method} {path}"}})
            return replies.popleft() if len(replies) > 1 else replies[0]

    def _record(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        headers = {k.lower(): v for k, v in handler.headers.items()}
        request = Recorded(handler.command, handler.path, headers, body)
        content_type = headers.get("content-type", "")
        if content_type.startswith("application/json"):
            with contextlib.suppress(ValueError):
                request.json = json.loads(body)
        elif content_type.startswith("multipart/form-data"):
            request.fields, request.files = _parse_multipart(content_type, body)
        with self._lock:
            self.requests.append(request)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                provider._record(self, self.rfile.read(length) if length else b"")
                reply = provider._next_reply(self.command, self.path)
                time.sleep(reply.delay)
                payload = reply.payload()
                with contextlib.suppress(OSError):  # the client may have given up waiting
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)

            do_GET = do_POST = do_DELETE = _answer

            def log_message(self, format: str, *args) -> None:  # quiet test output
                pass

        return Handler

    def start(self) -> FakeAIProvider:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
