"""The request-body limit, in process and behind a real HTTP server on 127.0.0.1.

In-process tests use httpx's ASGITransport. The real-socket tests run the wrapped app
under Granian (the Rust HTTP server Reflex deploys with), embedded in a thread of this
process, so the test can see exactly how many body bytes reached the app; a raw socket
client sends a chunked body that never ends, which no well-behaved HTTP client would.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest
from granian.constants import Interfaces
from granian.server.embed import Server

from prettyscore.core import messages
from prettyscore.web.upload_limits import MULTIPART_ENVELOPE_BYTES, limit_request_body

MAX_BYTES = 1024 * 1024  # 1 MiB keeps the real-socket tests quick
PATHS = ("/_upload", "/api/")


@dataclass
class Recorder:
    """What the downstream app saw: one entry per request, the bytes it received."""

    received: list[int] = field(default_factory=list)
    calls: int = 0


def recording_app(recorder: Recorder, *, swallow_errors: bool = False):
    """An ASGI app that reads the whole body and answers its length and SHA-256.

    With ``swallow_errors`` it behaves like Reflex's upload handler, which catches
    errors while reading and answers 400 itself.
    """

    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        recorder.calls += 1
        digest, total = hashlib.sha256(), 0
        recorder.received.append(0)
        try:
            while True:
                message = await receive()
                chunk = message.get("body", b"")
                digest.update(chunk)
                total += len(chunk)
                recorder.received[-1] = total
                if not message.get("more_body"):
                    break
        except Exception:
            if not swallow_errors:
                raise
            await _json(send, 400, {"detail": "bad upload"})
            return
        await _json(send, 200, {"length": total, "sha256": digest.hexdigest()})

    return app


async def _json(send, status: int, payload: dict) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def wrapped(recorder: Recorder, *, envelope_bytes: int = 0, swallow_errors: bool = False):
    return limit_request_body(
        recording_app(recorder, swallow_errors=swallow_errors),
        max_bytes=MAX_BYTES,
        paths=PATHS,
        envelope_bytes=envelope_bytes,
    )


def in_process_client(app) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")


async def chunked(total: int, chunk_size: int = 64 * 1024):
    """A request body of ``total`` bytes sent without Content-Length (chunked)."""
    sent = 0
    while sent < total:
        size = min(chunk_size, total - sent)
        yield b"z" * size
        sent += size


# ---------------------------------------------------------------------------
# In process (httpx.ASGITransport)
# ---------------------------------------------------------------------------
def test_an_oversized_content_length_is_refused_without_calling_the_app():
    recorder = Recorder()

    async def scenario():
        async with in_process_client(wrapped(recorder)) as client:
            return await client.post("/_upload", content=b"x" * (MAX_BYTES + 1))

    response = asyncio.run(scenario())
    assert response.status_code == 413
    assert response.json() == {"detail": messages.FILE_TOO_LARGE}
    assert recorder.calls == 0


def test_a_body_at_the_limit_reaches_the_app_intact():
    recorder = Recorder()
    body = bytes(range(256)) * (MAX_BYTES // 256)
    assert len(body) == MAX_BYTES

    async def scenario():
        async with in_process_client(wrapped(recorder)) as client:
            return await client.post("/api/photos", content=body)

    response = asyncio.run(scenario())
    assert response.status_code == 200
    assert response.json() == {"length": MAX_BYTES, "sha256": hashlib.sha256(body).hexdigest()}


def test_a_chunked_body_over_the_limit_is_cut_off_in_process():
    recorder = Recorder()

    async def scenario():
        async with in_process_client(wrapped(recorder)) as client:
            return await client.post("/_upload", content=chunked(5 * MAX_BYTES))

    response = asyncio.run(scenario())
    assert response.status_code == 413
    assert response.json() == {"detail": messages.FILE_TOO_LARGE}
    assert recorder.received and max(recorder.received) <= MAX_BYTES


def test_an_app_that_catches_the_error_still_answers_413():
    recorder = Recorder()

    async def scenario():
        app = wrapped(recorder, swallow_errors=True)
        async with in_process_client(app) as client:
            return await client.post("/_upload", content=chunked(3 * MAX_BYTES))

    response = asyncio.run(scenario())
    assert response.status_code == 413
    assert max(recorder.received) <= MAX_BYTES


def test_the_multipart_envelope_allowance_is_added_to_the_limit():
    recorder = Recorder()
    allowed = MAX_BYTES + MULTIPART_ENVELOPE_BYTES

    async def scenario():
        app = wrapped(recorder, envelope_bytes=MULTIPART_ENVELOPE_BYTES)
        async with in_process_client(app) as client:
            inside = await client.post("/_upload", content=b"a" * allowed)
            over = await client.post("/_upload", content=b"a" * (allowed + 1))
            return inside, over

    inside, over = asyncio.run(scenario())
    assert inside.status_code == 200 and inside.json()["length"] == allowed
    assert over.status_code == 413


def test_an_upload_handler_of_several_photos_has_its_own_limit():
    """The handler named in the request's header gets its larger limit; every other
    upload keeps the one-photo limit, whatever handler it names."""
    recorder = Recorder()
    several = "state.best_photo_state.choose_photos"
    app = limit_request_body(
        recording_app(recorder),
        max_bytes=MAX_BYTES,
        paths=PATHS,
        envelope_bytes=0,
        handler_limits={several: 3 * MAX_BYTES},
    )

    async def post(handler: str, size: int) -> int:
        async with in_process_client(app) as client:
            headers = {"Reflex-Event-Handler": handler}
            answer = await client.post("/_upload", content=b"p" * size, headers=headers)
            return answer.status_code

    assert asyncio.run(post(several, 3 * MAX_BYTES)) == 200
    assert asyncio.run(post(several, 3 * MAX_BYTES + 1)) == 413
    assert asyncio.run(post("state.score_state.upload_on_page", MAX_BYTES + 1)) == 413
    assert recorder.received == [3 * MAX_BYTES]


def test_other_paths_and_methods_are_not_limited():
    recorder = Recorder()
    big = b"b" * (2 * MAX_BYTES)

    async def scenario():
        async with in_process_client(wrapped(recorder)) as client:
            other_path = await client.post("/_event", content=big)
            not_a_body_method = await client.request("DELETE", "/api/photos", content=big)
            return other_path, not_a_body_method

    other_path, not_a_body_method = asyncio.run(scenario())
    assert other_path.status_code == 200 and other_path.json()["length"] == len(big)
    assert not_a_body_method.status_code == 200


# ---------------------------------------------------------------------------
# A real server on 127.0.0.1 (Granian, embedded in a thread)
# ---------------------------------------------------------------------------
@dataclass
class LiveServer:
    port: int
    recorder: Recorder


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def live_server() -> Iterator[LiveServer]:
    recorder = Recorder()
    port = _free_port()
    server = Server(
        wrapped(recorder),
        address="127.0.0.1",
        port=port,
        interface=Interfaces.ASGINL,
        log_enabled=False,
    )
    loop = asyncio.new_event_loop()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.serve())

    thread = threading.Thread(target=serve, name="granian-test", daemon=True)
    thread.start()
    _wait_for_port(port)
    try:
        yield LiveServer(port, recorder)
    finally:
        loop.call_soon_threadsafe(server.stop)
        thread.join(10)


def _wait_for_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"Granian did not listen on {port}")


def _read_response(sock: socket.socket, into: bytearray, done: threading.Event) -> None:
    """Collect everything the server sends until it closes (runs beside the sender)."""
    try:
        while chunk := sock.recv(65536):
            into.extend(chunk)
    except OSError:
        pass
    finally:
        done.set()


def _status_and_body(raw: bytes) -> tuple[int, bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def test_an_endless_chunked_upload_is_cut_off_by_the_real_server(live_server):
    """The client keeps sending until the server answers; the app sees at most the limit."""
    live_server.recorder.received.clear()
    give_up_after = 40 * MAX_BYTES  # if the limit failed, stop anyway (and fail below)
    chunk = b"q" * 65536
    frame = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
    response, answered = bytearray(), threading.Event()
    sent = 0
    with socket.create_connection(("127.0.0.1", live_server.port), timeout=10) as sock:
        sock.sendall(
            b"POST /_upload HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: multipart/form-data; boundary=x\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        reader = threading.Thread(target=_read_response, args=(sock, response, answered))
        reader.start()
        with contextlib.suppress(OSError):  # the server closes the connection on us
            while not answered.is_set() and not response and sent < give_up_after:
                sock.sendall(frame)
                sent += len(chunk)
        answered.wait(10)
        reader.join(10)
    status, body = _status_and_body(bytes(response))
    print(f"client sent {sent} bytes; the app received {live_server.recorder.received}")
    assert status == 413
    assert json.loads(body) == {"detail": messages.FILE_TOO_LARGE}
    assert sent < give_up_after
    assert live_server.recorder.received
    assert max(live_server.recorder.received) <= MAX_BYTES


def test_a_declared_oversized_body_is_refused_before_any_is_sent(live_server):
    calls_before = live_server.recorder.calls
    with socket.create_connection(("127.0.0.1", live_server.port), timeout=10) as sock:
        sock.sendall(
            b"POST /api/photos HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/octet-stream\r\n"
            b"Content-Length: %d\r\n\r\n" % (100 * MAX_BYTES)
        )
        response, answered = bytearray(), threading.Event()
        _read_response(sock, response, answered)
    status, body = _status_and_body(bytes(response))
    assert status == 413
    assert json.loads(body) == {"detail": messages.FILE_TOO_LARGE}
    assert live_server.recorder.calls == calls_before


def test_a_body_just_under_the_limit_passes_the_real_server_intact(live_server):
    body = hashlib.sha256(b"seed").digest() * ((MAX_BYTES - 1) // 32) + b"end"
    assert len(body) < MAX_BYTES
    response = httpx.post(f"http://127.0.0.1:{live_server.port}/_upload", content=body)
    assert response.status_code == 200
    assert response.json() == {"length": len(body), "sha256": hashlib.sha256(body).hexdigest()}
