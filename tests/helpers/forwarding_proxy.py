"""A reverse proxy on 127.0.0.1, set up as the README asks for one in front of PrettyScore.

Like nginx with ``proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for``, it
appends the address each request came from to the request's ``X-Forwarded-For`` (after
whatever the client sent there) and forwards it to the app from its own address, keeping
connections open (HTTP/1.1 keep-alive) and passing websockets through once upgraded. It
is a separate server on a socket of its own: the app knows it only by its address.

Request bodies are forwarded by their ``Content-Length``; a body of another framing
(chunked) ends the connection's rewriting, and the connection closes after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

HEAD_END = b"\r\n\r\n"
MAX_HEAD_BYTES = 64 * 1024
FORWARDED_FOR = "x-forwarded-for"


def forwarded_head(head: bytes, client: str) -> tuple[bytes, int, bool]:
    """The request head with ``client`` appended to X-Forwarded-For; and its body's length,
    and whether the connection is passed through as it is after this request (an upgrade,
    or a body without a length)."""
    request_line, *lines = head.decode("latin-1").split("\r\n")
    headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines if line]
    names = {name.lower() for name, _ in headers}
    sent = [value for name, value in headers if name.lower() == FORWARDED_FOR]
    kept = [(name, value) for name, value in headers if name.lower() != FORWARDED_FOR]
    kept.append(("X-Forwarded-For", ", ".join([*sent, client])))
    passed_through = "upgrade" in names or "transfer-encoding" in names
    if "transfer-encoding" in names:
        kept = [(name, value) for name, value in kept if name.lower() != "connection"]
        kept.append(("Connection", "close"))
    length = next((int(value) for name, value in headers if name.lower() == "content-length"), 0)
    rewritten = "\r\n".join([request_line, *(f"{name}: {value}" for name, value in kept)])
    return rewritten.encode("latin-1") + HEAD_END, length, passed_through


class ForwardingProxy:
    """``url`` forwards to the app at ``upstream_port``, connecting from ``source``."""

    def __init__(self, upstream_port: int, *, source: str = "127.0.0.1"):
        self.upstream_port = upstream_port
        self.source = source
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ForwardingProxy:
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(10)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    async def _listen(self) -> asyncio.Server:
        return await asyncio.start_server(self._accept, "127.0.0.1", 0)

    async def _close(self) -> None:
        self._server.close()
        for connection in list(self._connections):
            connection.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        task = asyncio.current_task()
        self._connections.add(task)
        try:
            await self._forward(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            self._connections.discard(task)
            writer.close()

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        client = writer.get_extra_info("peername")[0]
        upstream_reader, upstream_writer = await asyncio.open_connection(
            "127.0.0.1", self.upstream_port, local_addr=(self.source, 0)
        )
        answers = asyncio.ensure_future(_pipe(upstream_reader, writer))
        try:
            await self._requests(reader, upstream_writer, client)
            await answers
        finally:
            answers.cancel()
            upstream_writer.close()

    async def _requests(self, reader, upstream_writer, client: str) -> None:
        """Each request's head rewritten, its body as it is; then, after an upgrade or a
        body without a length, everything as it comes."""
        while True:
            try:
                head = await reader.readuntil(HEAD_END)
            except asyncio.IncompleteReadError:
                break  # the client closed between requests
            if len(head) > MAX_HEAD_BYTES:
                break
            rewritten, length, passed_through = forwarded_head(head, client)
            upstream_writer.write(rewritten)
            if length:
                upstream_writer.write(await reader.readexactly(length))
            await upstream_writer.drain()
            if passed_through:
                await _pipe(reader, upstream_writer)
                break
        with contextlib.suppress(OSError):
            upstream_writer.write_eof()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        with contextlib.suppress(OSError):
            writer.write_eof()


@contextlib.contextmanager
def forwarding_proxy(upstream_port: int) -> Iterator[ForwardingProxy]:
    """A started proxy in front of ``upstream_port``, stopped at the end."""
    proxy = ForwardingProxy(upstream_port).start()
    try:
        yield proxy
    finally:
        proxy.stop()
