"""One address in front of several app processes, as a load balancer puts it, but switched
by the test instead of by chance.

A plain TCP forwarder on a loopback address running its own event loop in a thread. A
backend is a port on 127.0.0.1, or a (host, port) pair. Each new
connection goes to the backend that is the target at that moment and keeps it for its
whole life (a websocket stays on the process it was opened to, as behind a real
balancer); ``switch_to`` changes where new connections go, and ``close_connections``
cuts every connection to one backend, so the browser's websocket reconnects (through the
proxy, to the current target). Every connection is recorded with its backend and the
first request line the browser sent on it, so a test can show which process served what.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

CHUNK = 64 * 1024

#: A backend: a port on 127.0.0.1, or (host, port).
Backend = int | tuple[str, int]


@dataclass
class Connection:
    """One browser connection: the backend it went to and what it asked first."""

    backend: Backend
    first_line: str = ""
    open: bool = True
    _transports: list[asyncio.Transport] = field(default_factory=list, repr=False)

    @property
    def is_event_socket(self) -> bool:
        """Reflex's websocket (``GET /_event/?...&transport=websocket``)."""
        return self.first_line.startswith("GET /_event")


class TcpProxy:
    """Forwards ``host``:``port`` (default 127.0.0.1 and a free port) to ``target``; see
    the module docstring."""

    def __init__(self, target: Backend | None = None, *, host: str = "127.0.0.1", port: int = 0):
        self.target = target
        self.host = host
        self.port = port
        self.connections: list[Connection] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.AbstractServer | None = None

    @property
    def url(self) -> str:
        name = "localhost" if self.host == "127.0.0.1" else self.host
        return f"http://{name}:{self.port}"

    # -- life -----------------------------------------------------------------------
    def start(self) -> TcpProxy:
        self._thread.start()
        self._server = self._call(asyncio.start_server(self._handle, self.host, self.port))
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            for backend in {item.backend for item in self.connections}:
                self.close_connections(backend)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    # -- control (from the test's thread) ------------------------------------------------
    def switch_to(self, target: Backend) -> None:
        """New connections go to ``target`` from now on; open ones stay where they are."""
        self.target = target

    def close_connections(self, backend: Backend) -> int:
        """Cut every open connection to ``backend`` (both sides); returns how many."""

        async def close() -> int:
            cut = [item for item in self.connections if item.backend == backend and item.open]
            for item in cut:
                for transport in item._transports:
                    transport.abort()
            return len(cut)

        return self._call(close())

    def opened(self, backend: Backend, *, event_sockets_only: bool = False) -> list[Connection]:
        """The connections made to ``backend`` so far (open or closed)."""
        return [
            item
            for item in list(self.connections)
            if item.backend == backend and (item.is_event_socket or not event_sockets_only)
        ]

    def _call(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)

    # -- forwarding (on the proxy's loop) -------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.target is None:
            writer.transport.abort()
            return
        record = Connection(backend=self.target)
        self.connections.append(record)
        try:
            host, port = (
                record.backend
                if isinstance(record.backend, tuple)
                else ("127.0.0.1", record.backend)
            )
            upstream_reader, upstream_writer = await asyncio.open_connection(host, port)
        except OSError:
            record.open = False
            writer.transport.abort()
            return
        record._transports = [writer.transport, upstream_writer.transport]
        try:
            await asyncio.gather(
                self._pipe(reader, upstream_writer, record),
                self._pipe(upstream_reader, writer, None),
            )
        finally:
            record.open = False
            for transport in record._transports:
                transport.abort()

    @staticmethod
    async def _pipe(
        source: asyncio.StreamReader, sink: asyncio.StreamWriter, record: Connection | None
    ) -> None:
        """Copy one direction until it ends; the browser's side notes its first line."""
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while chunk := await source.read(CHUNK):
                if record is not None and not record.first_line:
                    record.first_line = chunk.split(b"\r\n", 1)[0].decode("latin-1")
                sink.write(chunk)
                await sink.drain()
        # One side finished: end the other once what it was sent is flushed.
        sink.close()


@contextlib.contextmanager
def running_proxy(
    target: Backend | None = None, *, host: str = "127.0.0.1", port: int = 0
) -> Iterator[TcpProxy]:
    """A started proxy on ``host``:``port``, stopped (every connection cut) at the end."""
    proxy = TcpProxy(target, host=host, port=port).start()
    try:
        yield proxy
    finally:
        proxy.stop()
