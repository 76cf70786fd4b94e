"""Who the client is: the connection's own address, or the one a trusted proxy forwarded.

Why: behind the reverse proxy the README asks for, every connection comes from the
proxy. Counted by that address, five wrong passwords from a stranger locked the owner
out, and every per-address budget (failed sign-ins, sign-ups, mails) was one budget for
the whole site. The proxy says whom it serves in ``X-Forwarded-For``, but anyone can send
that header, so it is believed only on a connection from an address named in
``FORWARDED_ALLOW_IPS`` (the variable uvicorn and gunicorn read for the same rule; unset,
nobody is believed). Each proxy appends the address it was reached from, so the header is
read from the right: the first address that is not a trusted proxy is the client, and
whatever stands left of it was written by the client and is ignored.

How: one ASGI middleware, outermost in ``rx.App(api_transformer=...)``, puts the
believed address in the connection's ``client`` for every request and websocket. The
REST API (``request.client``), the pages' websocket (Reflex's
``router.session.client_ip``) and every rate limit then see one and the same client.
Granian, which serves the app in production, leaves the header alone, so this is the
only place it is read.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: The value of ``FORWARDED_ALLOW_IPS`` that trusts every peer (only for an app that
#: nothing but the proxy can reach).
EVERYONE = "*"
FORWARDED_FOR = b"x-forwarded-for"
#: An address longer than this is no address (the stored columns hold 64 characters).
MAX_ADDRESS_CHARS = 64


@dataclass(frozen=True)
class TrustedProxies:
    """The peers whose ``X-Forwarded-For`` is believed: addresses and networks."""

    networks: tuple[Network, ...] = ()
    everyone: bool = False

    @classmethod
    def parse(cls, setting: str) -> TrustedProxies:
        """``"127.0.0.1, 10.0.0.0/8, ::1"`` or ``"*"``; a wrong entry fails at start-up."""
        entries = [entry.strip() for entry in setting.split(",") if entry.strip()]
        if EVERYONE in entries:
            return cls(everyone=True)
        return cls(networks=tuple(ipaddress.ip_network(entry) for entry in entries))

    def __contains__(self, address: str) -> bool:
        if self.everyone:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.networks)


def forwarded_hops(values: Iterable[str]) -> list[str]:
    """The addresses of every ``X-Forwarded-For`` header, in order, the client's first."""
    return [hop.strip() for value in values for hop in value.split(",") if hop.strip()]


def client_behind(peer: str, hops: list[str], trusted: TrustedProxies) -> str:
    """The client of a connection from ``peer`` that forwarded ``hops``.

    A peer that is not a trusted proxy is the client, whatever it sent. From a trusted
    proxy, the rightmost hop that is not itself a trusted proxy (each proxy appended the
    address it was reached from); when every hop is trusted, the first.
    """
    if peer not in trusted or not hops:
        return peer
    for hop in reversed(hops):
        if hop not in trusted:
            return hop[:MAX_ADDRESS_CHARS]
    return hops[0][:MAX_ADDRESS_CHARS]


def believe_trusted_proxies(app: ASGIApp, *, trusted: str) -> ASGIApp:
    """Wrap ``app`` so its connections' ``client`` is the believed client (module doc).

    Use it as ``rx.App(api_transformer=functools.partial(believe_trusted_proxies,
    trusted=get_settings().forwarded_allow_ips))``, last, so every layer sees it.
    """
    proxies = TrustedProxies.parse(trusted)

    async def with_client(scope: Scope, receive: Callable, send: Callable) -> None:
        peer = scope.get("client")
        if scope["type"] not in ("http", "websocket") or not peer or peer[0] not in proxies:
            await app(scope, receive, send)
            return
        values = [
            value.decode("latin-1") for name, value in scope["headers"] if name == FORWARDED_FOR
        ]
        client = client_behind(peer[0], forwarded_hops(values), proxies)
        await app({**scope, "client": (client, 0) if client != peer[0] else peer}, receive, send)

    return with_client
