"""A key only this browser holds, that binds a tab's server state to the browser.

Reflex keys a tab's state by a token the page keeps in session storage and sends in the
event socket's address (``/_event/?token=...``, which proxies log). Whoever has that
token could open a socket with it and drive the tab's state, a signed-in member's
included. So every page answer gives the browser a random key in a cookie that scripts
cannot read (HttpOnly) and the browser sends with the socket's handshake; the first
event of a tab's state remembers it (``AuthState``), and a socket that does not present
the same key is never treated as that member, nor shown the tab's state.

Keys come from the server only. Each is signed with the app's secret: one the server did
not make (made up, or planted by a page on another port of the same host) is refused
and replaced. A key is also replaced at every sign-in and sign-out (``replacement``), so
a key someone else learnt before the member signed in opens nothing afterwards. The
cookie is set by an HTTP answer while signing in happens on the event socket: the tab
hands the ticket it was given to ``RENEW_PATH``, whose answer sets the new key. The new
key is derived from the ticket and the old key with the secret, so it never passes
through the page, and only the browser holding the old key gets it.

On https the cookie is ``__Host-ps_browser``, Secure: browsers keep a ``__Host-`` cookie
only from the site's own host over https, for the whole site, so a sibling subdomain or
a plain-http page cannot set it. On plain http (``make run`` on a developer's machine)
browsers refuse Secure cookies, and with them the ``__Host-`` prefix: there the cookie
is ``ps_browser``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import CookieError, SimpleCookie
from typing import Any

from prettyscore.core import clock
from prettyscore.core.settings import get_settings
from prettyscore.web.security_headers import allowed_origins

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]

BROWSER_COOKIE = "ps_browser"
SECURE_BROWSER_COOKIE = "__Host-ps_browser"
MAX_AGE_SECONDS = 400 * 24 * 3600  # browsers cap cookie lifetimes at 400 days
#: Where a tab hands over the ticket of its browser's next key (``replacement``).
RENEW_PATH = "/_browser/renew"
#: How long a ticket may wait to be handed over: the tab does so at once.
RENEWAL_SECONDS = 120
_MAX_TICKET_BYTES = 256
_TICKET = re.compile(r"([A-Za-z0-9_-]{16,64})\.(\d{1,12})\.([A-Za-z0-9_-]{43})")


def browser_cookie_name(secure: bool) -> str:
    """The key's cookie: ``__Host-`` prefixed on https, plain on http (module docstring)."""
    return SECURE_BROWSER_COOKIE if secure else BROWSER_COOKIE


def issue_browser_key() -> str:
    """A new browser key, signed by the server: ``<random>.<signature>``."""
    return _signed(secrets.token_urlsafe(32))


def browser_key_from(cookie_header: str | None, *, secure: bool | None = None) -> str:
    """The browser key in a ``Cookie`` header: "" without one, or when the server did not
    sign it. ``secure`` names the cookie (default: the app's ``secure_cookies``)."""
    if secure is None:
        secure = get_settings().secure_cookies
    cookies = SimpleCookie()
    try:
        cookies.load(cookie_header or "")
    except CookieError:
        return ""
    morsel = cookies.get(browser_cookie_name(secure))
    return morsel.value if morsel is not None and _is_signed(morsel.value) else ""


def replacement(key: str) -> tuple[str, str]:
    """The key that replaces ``key`` (at a sign-in or sign-out), and the ticket with which
    the browser holding ``key`` fetches it from ``RENEW_PATH`` (within
    ``RENEWAL_SECONDS``). The new key is derived, not carried: the ticket alone gets
    nothing without the old key's cookie."""
    nonce = secrets.token_urlsafe(24)
    expires = str(int(clock.now().timestamp()) + RENEWAL_SECONDS)
    return _successor(key, nonce), f"{nonce}.{expires}.{_mac('renewal', nonce, expires, key)}"


def renewed_key(key: str, ticket: str) -> str:
    """The key a ticket of ``key`` (``replacement``) renews it to; "" for a ticket of
    another key, an expired one or a made-up one."""
    found = _TICKET.fullmatch(ticket)
    if not key or found is None:
        return ""
    nonce, expires, mac = found.groups()
    if int(expires) < clock.now().timestamp():
        return ""
    if not hmac.compare_digest(mac, _mac("renewal", nonce, expires, key)):
        return ""
    return _successor(key, nonce)


def _successor(key: str, nonce: str) -> str:
    return _signed(_mac("successor", key, nonce))


def _signed(seed: str) -> str:
    return f"{seed}.{_mac('key', seed)}"


def _is_signed(value: str) -> bool:
    seed, _, mac = value.rpartition(".")
    return bool(seed) and hmac.compare_digest(mac.encode(), _mac("key", seed).encode())


def _mac(purpose: str, *parts: str) -> str:
    """The app secret's signature of ``parts`` for ``purpose`` (a key, a ticket, a key's
    successor), in the characters a cookie may hold."""
    message = "\n".join((purpose, *parts)).encode()
    digest = hmac.new(get_settings().secret_key.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def set_cookie_header(key: str, *, secure: bool) -> bytes:
    attributes = [
        f"{browser_cookie_name(secure)}={key}",
        "Path=/",
        f"Max-Age={MAX_AGE_SECONDS}",
        "HttpOnly",
        "SameSite=Lax",
    ]
    if secure:
        attributes.append("Secure")
    return "; ".join(attributes).encode()


def give_browser_key(app: ASGIApp, *, secure: bool) -> ASGIApp:
    """Wrap ``app`` so an HTTP answer to a browser without a key the server signed gives
    it a new one, and ``RENEW_PATH`` hands a browser the key that replaces its own.

    Pages are also marked ``no-cache`` (revalidated on every load, a 304 when unchanged):
    a page taken from the browser's cache without asking, as browsers do for a while
    with files that only carry ``Last-Modified``, would never hand a key to a browser
    whose cookies were cleared, and its member could not sign in.
    """

    async def with_key(scope: Scope, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        key = _request_key(scope, secure)
        if scope["path"] == RENEW_PATH:
            await _renew(scope, receive, send, key, secure=secure)
            return
        cookie = None if key else set_cookie_header(issue_browser_key(), secure=secure)

        async def send_with_key(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = _with_key_headers(list(message.get("headers", [])), cookie)
            await send(message)

        await app(scope, receive, send_with_key)

    return with_key


async def _renew(scope: Scope, receive: Callable, send: Callable, key: str, *, secure: bool):
    """Answer a tab's hand-over of a ticket (``replacement``): 204 with the browser's new
    key when the ticket is one of the key the browser presents, posted by a page of the
    site itself; 403 and nothing else otherwise."""
    ticket = await _small_body(receive)
    renewed = ""
    if scope["method"] == "POST" and _from_own_pages(scope):
        renewed = renewed_key(key, ticket)
    headers = [(b"cache-control", b"no-store")]
    if renewed:
        headers.append((b"set-cookie", set_cookie_header(renewed, secure=secure)))
    status = 204 if renewed else 403
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


async def _small_body(receive: Callable) -> str:
    """The request's body as text; "" when it is larger than a ticket can be."""
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if len(body) > _MAX_TICKET_BYTES:
            return ""
        if not message.get("more_body"):
            return body.decode("ascii", "replace")


def _from_own_pages(scope: Scope) -> bool:
    """Whether the request comes from a page of the site (its ``Origin``): a page on
    another port of the same host shares the browser's cookies but not its origin."""
    origin = _header(scope, b"origin")
    return origin in allowed_origins(get_settings().public_url)


def _header(scope: Scope, wanted: bytes) -> str:
    for name, value in scope.get("headers", []):
        if name == wanted:
            return value.decode("latin-1")
    return ""


def _with_key_headers(headers: list, cookie: bytes | None) -> list:
    names = {name.lower(): value for name, value in headers}
    if names.get(b"content-type", b"").startswith(b"text/html") and b"cache-control" not in names:
        headers.append((b"cache-control", b"no-cache"))
    if cookie is not None:
        headers.append((b"set-cookie", cookie))
    return headers


def _request_key(scope: Scope, secure: bool) -> str:
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            key = browser_key_from(value.decode("latin-1"), secure=secure)
            if key:
                return key
    return ""
