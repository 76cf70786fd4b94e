"""An upload drives its tab only when it comes from the browser the tab serves.

Reflex's ``POST /_upload`` names the tab it drives by the ``Reflex-Client-Token`` header
alone, and runs the handler on that tab's state with the router data of the tab's last
socket event: the member's cookie, not the upload's. The token travels in the socket's
address (proxies log it), so whoever learnt it could upload a picture into a member's
open tab, as that member. A tab's state serves one browser (``web.browser_key``); an
upload must present that browser's key in its own ``Cookie``.

How: the upload request and the handler it starts run in this process, the request's
answer streaming until the handler's chain ends. This wrapper notes the key the upload
request carries for its tab while the request is in flight (one upload per tab at a
time, so the note cannot be another upload's), and the tab's state checks the note
before the handler runs (``accounts.state.TabsServeTheirBrowser``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.datastructures import Headers

from prettyscore.web.browser_key import browser_key_from

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]

UPLOAD_PATH = "/_upload"
TOKEN_HEADER = "reflex-client-token"

# Tab token → the browser key of the upload to that tab now in flight ("" for none).
_in_flight: dict[str, str] = {}
# Tab token → (the lock that takes that tab's uploads one at a time, uploads waiting).
_turns: dict[str, tuple[asyncio.Lock, int]] = {}


def key_of_upload_to(tab_token: str) -> str:
    """The browser key the upload now running for ``tab_token`` presented: "" when it
    presented none the server signed, or when no upload to that tab is in flight."""
    return _in_flight.get(tab_token, "")


def note_upload_keys(app: ASGIApp) -> ASGIApp:
    """Wrap the backend so each ``POST /_upload`` notes its browser's key for its tab
    while it runs (``rx.App(api_transformer=...)``)."""

    async def noted(scope: Scope, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope["path"] != UPLOAD_PATH:
            await app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        token = headers.get(TOKEN_HEADER, "")
        async with _turn(token):
            _in_flight[token] = browser_key_from(headers.get("cookie"))
            try:
                await app(scope, receive, send)
            finally:
                _in_flight.pop(token, None)

    return noted


class _turn:
    """One upload per tab at a time; the tab's lock is forgotten when none waits."""

    def __init__(self, token: str):
        self.token = token

    async def __aenter__(self) -> None:
        lock, waiting = _turns.get(self.token, (asyncio.Lock(), 0))
        _turns[self.token] = (lock, waiting + 1)
        await lock.acquire()

    async def __aexit__(self, *exc_info: object) -> None:
        lock, waiting = _turns[self.token]
        lock.release()
        if waiting <= 1:
            del _turns[self.token]
        else:
            _turns[self.token] = (lock, waiting - 1)
