"""Pages answer at their own address: /upload is served, not redirected to /upload/.

A real Starlette app like the production one (a static folder of prerendered pages with
``html=True``, beside an API route) behind the middleware, called over httpx's ASGI
transport.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from prettyscore.web.page_paths import is_prerendered_page, serve_pages_without_redirect


@pytest.fixture
def pages(tmp_path):
    """A build folder: the home page, /upload and /feet/results, and a secret beside it."""
    build = tmp_path / "build"
    for folder, text in (("", "home"), ("upload", "upload page"), ("feet/results", "feet")):
        (build / folder).mkdir(parents=True, exist_ok=True)
        (build / folder / "index.html").write_text(f"<html>{text}</html>")
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "index.html").write_text("secret")
    return build


def client(build) -> httpx.AsyncClient:
    async def api(request):
        return PlainTextResponse(f"api {request.url.path}")

    app = Starlette(
        routes=[
            Route("/api/upload", api, methods=["GET", "POST"]),
            Mount("/", app=StaticFiles(directory=build, html=True)),
        ]
    )
    wrapped = serve_pages_without_redirect(app, folder=lambda: build)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=wrapped), base_url="http://t")


def test_a_page_is_served_at_its_address_without_a_redirect(pages):
    async def scenario():
        async with client(pages) as http:
            for path, text in (("/upload", "upload page"), ("/feet/results", "feet")):
                response = await http.get(path, params={"leaderboard": "1"})
                assert response.status_code == 200
                assert text in response.text
                assert response.history == []
            assert (await http.head("/upload")).status_code == 200

    asyncio.run(scenario())


def test_other_addresses_are_left_as_they_were(pages):
    async def scenario():
        async with client(pages) as http:
            assert (await http.get("/upload/")).text == "<html>upload page</html>"
            assert (await http.get("/")).text == "<html>home</html>"
            assert (await http.get("/api/upload")).text == "api /api/upload"
            assert (await http.post("/api/upload")).text == "api /api/upload"
            assert (await http.get("/nowhere")).status_code == 404

    asyncio.run(scenario())


def test_only_pages_inside_the_build_folder_count(pages):
    assert is_prerendered_page(pages, "/upload")
    assert is_prerendered_page(pages, "/feet/results")
    assert not is_prerendered_page(pages, "/")
    assert not is_prerendered_page(pages, "/nowhere")
    assert not is_prerendered_page(pages, "/../secret")
    assert not is_prerendered_page(pages, "/upload/../../secret")
