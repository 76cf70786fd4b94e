"""A page filled in for its requester: served in place of the static page, privately.

A real Starlette app like the production one (a static folder of prerendered pages beside
an API route) behind the middleware, called over httpx's ASGI transport. The filler here
is the test's own: it writes the requester's cookie into the page, as My Photos writes
the member's newest photo.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from prettyscore.web.filled_pages import serve_filled_pages

STATIC_PAGE = "<html><body><p>for MEMBER</p></body></html>"


async def greet_the_member(request, page_html: str) -> str | None:
    """Names the member of the ``member`` cookie in the page; nothing for a visitor."""
    member = request.cookies.get("member")
    return page_html.replace("MEMBER", member) if member else None


@pytest.fixture
def build(tmp_path):
    folder = tmp_path / "build"
    for page in ("dashboard", "upload"):
        (folder / page).mkdir(parents=True)
        (folder / page / "index.html").write_text(STATIC_PAGE.replace("for", page))
    return folder


def client(build, cookies: dict | None = None) -> httpx.AsyncClient:
    async def api(request):
        return PlainTextResponse(f"api {request.method}")

    app = Starlette(
        routes=[
            Route("/dashboard", api, methods=["POST"]),
            Mount("/", app=StaticFiles(directory=build, html=True)),
        ]
    )
    wrapped = serve_filled_pages(app, {"/dashboard": greet_the_member}, folder=lambda: build)
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=wrapped), base_url="http://t", cookies=cookies
    )


def test_the_requester_gets_the_page_filled_in_for_them_privately(build):
    async def scenario():
        async with client(build, {"member": "ada"}) as http:
            for path in ("/dashboard", "/dashboard/"):
                response = await http.get(path)
                assert response.status_code == 200
                assert response.text == "<html><body><p>dashboard ada</p></body></html>"
                assert response.headers["content-type"].startswith("text/html")
                assert response.headers["cache-control"] == "private, no-cache"
                assert "Cookie" in response.headers["vary"]

    asyncio.run(scenario())


def test_a_filled_page_is_sent_compressed_when_the_browser_accepts_it(build):
    async def scenario():
        async with client(build, {"member": "ada"}) as http:
            plain = await http.get("/dashboard", headers={"Accept-Encoding": "identity"})
            packed = await http.get("/dashboard", headers={"Accept-Encoding": "gzip"})
        assert "content-encoding" not in plain.headers
        assert packed.headers["content-encoding"] == "gzip"
        assert packed.text == plain.text  # httpx undoes the gzip, as a browser does

    asyncio.run(scenario())


def test_without_anything_to_fill_the_static_page_is_served(build):
    async def scenario():
        async with client(build) as http:
            response = await http.get("/dashboard/")
        assert response.status_code == 200
        assert response.text == "<html><body><p>dashboard MEMBER</p></body></html>"
        assert "private" not in response.headers.get("cache-control", "")

    asyncio.run(scenario())


def test_other_pages_and_methods_pass_untouched(build):
    async def scenario():
        async with client(build, {"member": "ada"}) as http:
            assert (await http.get("/upload/")).text.endswith("<p>upload MEMBER</p></body></html>")
            assert (await http.post("/dashboard")).text == "api POST"
            assert (await http.get("/nowhere/")).status_code == 404

    asyncio.run(scenario())


def test_before_the_build_exists_the_request_passes_on(tmp_path):
    missing = tmp_path / "not-built"
    (missing / "dashboard").mkdir(parents=True)  # the static mount needs its folder

    async def scenario():
        async with client(missing, {"member": "ada"}) as http:
            assert (await http.get("/dashboard/")).status_code == 404

    asyncio.run(scenario())
