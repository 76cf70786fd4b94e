"""Serve a page at its own address, without the redirect to a trailing slash.

In production the frontend is a folder of prerendered pages (``upload/index.html``), and
the static file server answers ``/upload`` with a redirect to ``/upload/``. Every link
shared or typed, every reload, pays one more round trip before the page starts to load
(on a phone's network, most of a second). This ASGI middleware, in front of the whole
app (``rx.App(api_transformer=...)``), hands such a request to the server as the slash
form when that page was prerendered, so the page is served at once and the address the
visitor sees stays as it was. Anything else (API routes, media, unknown paths) passes
untouched.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]


def prerendered_pages_folder() -> Path:
    """Where the production build keeps its pages (Reflex's web folder, build/client)."""
    from reflex.utils.prerequisites import get_web_dir
    from reflex_base import constants

    return get_web_dir() / constants.Dirs.STATIC


def prerendered_page_paths(folder: Path) -> frozenset[str]:
    """Every page ``folder`` holds, as request paths without a trailing slash."""
    found = (index.parent.relative_to(folder) for index in folder.rglob("index.html"))
    return frozenset("/" + page.as_posix() for page in found if page.parts)


def is_prerendered_page(folder: Path, path: str) -> bool:
    """Whether ``path`` (no trailing slash) names a prerendered page of ``folder``."""
    return path in prerendered_page_paths(folder)


def serve_pages_without_redirect(
    app: ASGIApp, folder: Callable[[], Path] = prerendered_pages_folder
) -> ASGIApp:
    """Wrap ``app`` so that a GET of ``/page`` is served as ``/page/`` (see the module).

    The build's pages are listed once, at the first request that finds the build (it
    does not change while the server runs), so other requests cost a set lookup, not a
    look at the disk.
    """
    pages: frozenset[str] | None = None

    def known_pages() -> frozenset[str]:
        nonlocal pages
        if pages is None:
            build = folder()
            if not build.is_dir():
                return frozenset()  # not built yet: look again next time
            pages = prerendered_page_paths(build)
        return pages

    async def asgi(scope: Scope, receive, send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] in ("GET", "HEAD")
            and not scope["path"].endswith("/")
            and scope["path"] in known_pages()
        ):
            raw = scope.get("raw_path") or scope["path"].encode()
            scope = {**scope, "path": scope["path"] + "/", "raw_path": raw + b"/"}
        await app(scope, receive, send)

    return asgi
