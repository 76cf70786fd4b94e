"""https in front of a test server: a TLS listener on 127.0.0.1 that passes every byte on
to the server's plain port, as a load balancer that ends TLS does in production.

Its certificate is made for the run (self-signed, for ``localhost``); the browser is
told to accept it (``ignore_https_errors``). Websockets pass through like any bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.helpers.app_server import free_port

HOST = "127.0.0.1"


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """(certificate, key) files of a new self-signed certificate for localhost."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .sign(key, hashes.SHA256())
    )
    certificate_path, key_path = folder / "localhost.pem", folder / "localhost.key"
    certificate_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return certificate_path, key_path


@contextlib.contextmanager
def tls_in_front(target_port: int, folder: Path, port: int | None = None) -> Iterator[int]:
    """Serve https on ``port`` (a free one by default), passed on to ``target_port``;
    yields the port."""
    port = port or free_port()
    certificate, key = self_signed_certificate(folder)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate, key)
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
