"""Serve some prerendered pages filled in for the requester.

The frontend's pages are prerendered once, the same for everyone. A few show, as soon as
they paint, something only the server knows about the requester (My Photos: the
member's newest photo, ``photos.early``). This ASGI middleware, in front of the app
(``rx.App(api_transformer=...)``), answers a GET of such a page with its prerendered HTML
as a filler returns it; when the filler has nothing to add (a visitor, a member without
photos), the page is served as usual, from the static files. A filled page is private to
its requester: never stored by a shared cache, and sent compressed when the browser
accepts it, as the static pages are.
"""

from __future__ import annotations

import gzip
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

import anyio
from starlette.requests import Request
from starlette.responses import HTMLResponse

from prettyscore.web.page_paths import ASGIApp, Scope, prerendered_pages_folder

#: Given the request and the page's prerendered HTML: the filled HTML, or None.
PageFiller = Callable[[Request, str], Awaitable[str | None]]

FILLED_PAGE_HEADERS = {"Cache-Control": "private, no-cache", "Vary": "Cookie, Accept-Encoding"}


def serve_filled_pages(
    app: ASGIApp,
    fillers: Mapping[str, PageFiller],
    folder: Callable[[], Path] = prerendered_pages_folder,
) -> ASGIApp:
    """Wrap ``app`` so that GET ``path`` (with or without its trailing slash) of each
    filler is answered with the page as the filler fills it.

    A page's HTML is read from the build once, at its first request (the build does not
    change while the server runs).
    """
    pages: dict[str, str] = {}

    async def page_html(path: str) -> str | None:
        if path not in pages:
            index = folder() / path.strip("/") / "index.html"
            try:
                pages[path] = await anyio.Path(index).read_text(encoding="utf-8")
            except FileNotFoundError:
                return None  # not built yet: look again next time
        return pages[path]

    async def asgi(scope: Scope, receive, send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            path = scope["path"].rstrip("/") or "/"
            filler = fillers.get(path)
            page = await page_html(path) if filler else None
            if page is not None:
                request = Request(scope)
                filled = await filler(request, page)
                if filled is not None:
                    await _html(filled, request)(scope, receive, send)
                    return
        await app(scope, receive, send)

    return asgi


def _html(page: str, request: Request) -> HTMLResponse:
    body = page.encode("utf-8")
    headers = dict(FILLED_PAGE_HEADERS)
    if "gzip" in request.headers.get("accept-encoding", ""):
        body = gzip.compress(body, compresslevel=6)
        headers["Content-Encoding"] = "gzip"
    return HTMLResponse(body, headers=headers)
