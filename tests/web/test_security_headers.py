"""The security headers middleware and the origins allowed to call the app."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from prettyscore.web.security_headers import (
    allowed_origins,
    content_security_policy,
    security_headers,
)


def page(_request):
    return PlainTextResponse("hello")


def strict(_request):
    return PlainTextResponse("x", headers={"Content-Security-Policy": "default-src 'none'"})


def client(public_url: str = "https://prettyscore.example") -> TestClient:
    app = Starlette(routes=[Route("/", page), Route("/strict", strict)])
    return TestClient(security_headers(app, public_url=public_url))


def test_every_answer_says_who_may_frame_it_and_what_it_may_load():
    answer = client().get("/")
    assert answer.headers["x-frame-options"] == "DENY"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "strict-origin-when-cross-origin"
    policy = answer.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    assert "connect-src 'self' wss://prettyscore.example" in policy


def test_a_stricter_policy_of_the_answer_is_kept():
    assert client().get("/strict").headers["content-security-policy"] == "default-src 'none'"


def test_a_plain_http_site_connects_to_its_plain_websocket():
    assert "ws://localhost:3000" in content_security_policy("http://localhost:3000")


def test_only_our_own_origin_may_call_with_cookies():
    assert allowed_origins("https://prettyscore.example") == ("https://prettyscore.example",)
    assert allowed_origins("http://localhost:3000") == (
        "http://localhost:3000",
        "http://127.0.0.1:3000",
    )
