"""A key only this browser holds, that binds a tab's server state to the browser.

Reflex keys a tab's state by a token the page keeps in session storage and sends in the
event socket's address (``/_event/?token=...``, which proxies log). Whoever has that
token could open a socket with it and drive the tab's state, a signed-in member's
included. So every page answer gives the browser a random ``ps_browser`` cookie that
scripts cannot read (HttpOnly) and the browser sends with the socket's handshake; the
first event of a tab's state remembers it (``AuthState``), and a socket that does not
present the same key is never treated as that member.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import CookieError, SimpleCookie
from typing import Any

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]

BROWSER_COOKIE = "ps_browser"
MAX_AGE_SECONDS = 400 * 24 * 3600  # browsers cap cookie lifetimes at 400 days


def browser_key_from(cookie_header: str | None) -> str:
    """The browser key in a ``Cookie`` header ("" without one)."""
    cookies = SimpleCookie()
    try:
        cookies.load(cookie_header or "")
    except CookieError:
        return ""
    morsel = cookies.get(BROWSER_COOKIE)
    return morsel.value if morsel is not None else ""


def set_cookie_header(key: str, *, secure: bool) -> bytes:
    attributes = [
        f"{BROWSER_COOKIE}={key}",
        "Path=/",
        f"Max-Age={MAX_AGE_SECONDS}",
        "HttpOnly",
        "SameSite=Lax",
    ]
    if secure:
        attributes.append("Secure")
    return "; ".join(attributes).encode()


def give_browser_key(app: ASGIApp, *, secure: bool) -> ASGIApp:
    """Wrap ``app`` so an HTTP answer to a browser without a key gives it one.

    Pages are also marked ``no-cache`` (revalidated on every load, a 304 when unchanged):
    a page taken from the browser's cache without asking, as browsers do for a while
    with files that only carry ``Last-Modified``, would never hand a key to a browser
    whose cookies were cleared, and its member could not sign in.
    """

    async def with_key(scope: Scope, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        cookie = None if _request_key(scope) else set_cookie_header(_new_key(), secure=secure)

        async def send_with_key(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = _with_key_headers(list(message.get("headers", [])), cookie)
            await send(message)

        await app(scope, receive, send_with_key)

    return with_key


def _new_key() -> str:
    return secrets.token_urlsafe(32)


def _with_key_headers(headers: list, cookie: bytes | None) -> list:
    names = {name.lower(): value for name, value in headers}
    if names.get(b"content-type", b"").startswith(b"text/html") and b"cache-control" not in names:
        headers.append((b"cache-control", b"no-cache"))
    if cookie is not None:
        headers.append((b"set-cookie", cookie))
    return headers


def _request_key(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            key = browser_key_from(value.decode("latin-1"))
            if key:
                return key
    return ""
