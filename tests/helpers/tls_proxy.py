"""https in front of a test server: a TLS listener on 127.0.0.1 that passes every byte on
to the server's plain port, as a load balancer that ends TLS does in production.

Its certificate is made for the run (self-signed, for ``localhost``); the browser is
told to accept it (``ignore_https_errors``). Websockets pass through like any bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from tests.helpers.app_server import free_port
from tests.helpers.self_signed import server_context

HOST = "127.0.0.1"


@contextlib.contextmanager
def tls_in_front(target_port: int, folder: Path, port: int | None = None) -> Iterator[int]:
    """Serve https on ``port`` (a free one by default), passed on to ``target_port``;
    yields the port."""
    port = port or free_port()
    context = server_context(folder)
    loop = asyncio.new_event_loop()
    started = threading.Event()
    server: list[asyncio.Server] = []

    async def serve() -> None:
        server.append(
            await asyncio.start_server(
                lambda reader, writer: _pass_on(reader, writer, target_port),
                HOST,
                port,
                ssl=context,
            )
        )
        started.set()

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(serve(), loop).result(timeout=10)
    started.wait(10)
    try:
        yield port
    finally:
        loop.call_soon_threadsafe(server[0].close)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)


async def _pass_on(reader, writer, target_port: int) -> None:
    try:
        upstream_reader, upstream_writer = await asyncio.open_connection(HOST, target_port)
    except OSError:
        writer.close()
        return
    await asyncio.gather(
        _copy(reader, upstream_writer), _copy(upstream_reader, writer), return_exceptions=True
    )


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        with contextlib.suppress(Exception):
            writer.close()
