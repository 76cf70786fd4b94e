"""Security headers on every HTTP answer, and the origins the browser may call us from.

An ASGI middleware in front of the whole app (``rx.App(api_transformer=...)``) adds:

- ``Content-Security-Policy``: our own origin for everything (scripts, styles, images,
  media, connections, forms), ``frame-ancestors 'none'`` so no other site can frame a
  page with "Delete my account" under its own buttons, no plugins, no ``<base>``
  rewriting. Reflex's pages need inline scripts and ``eval`` (its ``call_script``
  events), so ``script-src`` allows those; images may also be ``data:`` and ``blob:``
  (previews and the result card are drawn in the page);
- ``X-Frame-Options: DENY`` for browsers that predate ``frame-ancestors``;
- ``Referrer-Policy: strict-origin-when-cross-origin``: another site never learns a
  path such as a checkout's session id;
- ``X-Content-Type-Options: nosniff``.

A header the answer already has (the media route's stricter ``default-src 'none'``)
is kept. ``allowed_origins`` is what CORS and the websocket accept: ``PUBLIC_URL``'s
origin only (with its ``localhost``/``127.0.0.1`` twin on a developer's machine).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]

LOOPBACK_NAMES = ("localhost", "127.0.0.1")


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def allowed_origins(public_url: str) -> tuple[str, ...]:
    """The browser origins that may call the backend with the member's cookies."""
    parts = urlsplit(public_url)
    origins = [origin_of(public_url)]
    if parts.hostname in LOOPBACK_NAMES:
        port = f":{parts.port}" if parts.port else ""
        origins += [f"{parts.scheme}://{name}{port}" for name in LOOPBACK_NAMES]
    return tuple(dict.fromkeys(origins))


def content_security_policy(public_url: str) -> str:
    """The pages' policy: our own origin, and its websocket for the app's events."""
    parts = urlsplit(public_url)
    socket = f"{'wss' if parts.scheme == 'https' else 'ws'}://{parts.netloc}"
    directives = {
        "default-src": "'self'",
        "script-src": "'self' 'unsafe-inline' 'unsafe-eval'",
        "style-src": "'self' 'unsafe-inline'",
        "img-src": "'self' data: blob:",
        "media-src": "'self' blob:",
        "font-src": "'self' data:",
        "connect-src": f"'self' {socket}",
        "worker-src": "'self' blob:",
        "frame-ancestors": "'none'",
        "form-action": "'self'",
        "base-uri": "'self'",
        "object-src": "'none'",
    }
    return "; ".join(f"{name} {value}" for name, value in directives.items())


def security_headers(app: ASGIApp, *, public_url: str) -> ASGIApp:
    """Wrap ``app`` so every HTTP answer carries the headers above."""
    added = [
        (b"content-security-policy", content_security_policy(public_url).encode()),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"strict-origin-when-cross-origin"),
        (b"x-content-type-options", b"nosniff"),
    ]

    async def with_headers(scope: Scope, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in added if name not in present]
                message["headers"] = headers
            await send(message)

        await app(scope, receive, send_with_headers)

    return with_headers
