"""Who may frame and script the running app: its pages, media and API say so in their
headers, and a browser keeps to them. (Who may call it with a member's cookies or open
its event socket: ``tests/web/test_backend_over_http.py``.)"""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from prettyscore.web.browser_key import BROWSER_COOKIE

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("path", ["/", "/dashboard", "/auth/v1/health", "/media/v/none.jpg"])
def test_every_answer_forbids_framing_and_sniffing(app_server, path):
    answer = httpx.get(app_server.url(path), timeout=30)
    assert answer.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"] or (
        answer.headers["content-security-policy"] == "default-src 'none'"  # media: stricter
    )
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "strict-origin-when-cross-origin"


def test_a_page_cannot_be_framed(page, app_server):
    """Another page frames /: the browser shows its error page in the frame instead."""
    page.goto("about:blank")
    page.set_content(f'<iframe src="{app_server.url("/")}"></iframe>')
    expect(page.locator("iframe")).to_be_attached()
    framed = page.frames[1]
    framed.wait_for_load_state()
    assert framed.url.startswith("chrome-error://"), framed.url


def test_the_browser_key_is_out_of_scripts_reach(page, app_server):
    page.goto(app_server.url("/"))
    (key,) = [c for c in page.context.cookies() if c["name"] == BROWSER_COOKIE]
    assert key["httpOnly"] and key["sameSite"] == "Lax"
    assert BROWSER_COOKIE not in page.evaluate("document.cookie")
