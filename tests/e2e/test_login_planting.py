"""Login planting: a page on another port of the same host sets this site's key cookie.

Browsers keep cookies per host, not per port, so a page served on another port of the
site's host can set the cookie that holds the browser's key (``web.browser_key``), with
the key of the attacker's own signed-in browser: the victim is then signed in to the
attacker's account, and their next photos and payments would land there.

* Over https the key's cookie is ``__Host-ps_browser``, Secure: the browser refuses it
  from a plain-http page of another port, and a plain ``ps_browser`` cookie such a page
  sets is not read at all. Shown in Chromium against the backend behind a local TLS
  server (``tests/helpers/tls_proxy.py``).
* Over plain http (``make run`` on a developer's machine) nothing the other port cannot
  set is left to bind the key to, so the member is told whose account a photo or a
  payment goes to, beside every upload and every payment button, with a way out.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
from playwright.sync_api import expect

from prettyscore.core import messages, routes
from prettyscore.web.browser_key import BROWSER_COOKIE, SECURE_BROWSER_COOKIE
from tests.e2e.flows import browser_key, key_after, new_member, open_page, wait_for_path
from tests.fixtures.browser import CHROMIUM, CHROMIUM_ARGS
from tests.helpers.app_server import free_port
from tests.helpers.backend_server import running_backend
from tests.helpers.tls_proxy import tls_in_front

#: The site's host name in the https test, which the browser resolves to this machine.
HOST = "prettyscore.test"
HOST_RULE = f"--host-resolver-rules=MAP {HOST} 127.0.0.1"


@contextlib.contextmanager
def planting_page(*set_cookies: str, host: str) -> Iterator[str]:
    """A page on another port of ``host`` whose answer sets ``set_cookies``; its URL.

    ``host`` is a loopback address (the test server's) or a name mapped to 127.0.0.1."""

    class Plants(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            for cookie in set_cookies:
                self.send_header("Set-Cookie", cookie)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<p>Cute cats, nothing to see.</p>")

        def log_message(self, *args) -> None:
            pass

    address = host if host.replace(".", "").isdigit() else "127.0.0.1"
    server = ThreadingHTTPServer((address, 0), Plants)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_a_key_planted_over_http_shows_whose_account_before_an_upload_or_a_payment(
    page, new_context, app_server
):
    base = app_server.base_url
    planter = new_context().new_page()
    open_page(planter, f"{base}/auth")
    before = browser_key(planter)
    attacker = new_member(planter, base, "planter")
    attackers_key = key_after(planter, before)
    planter.context.close()  # the attacker's browser is gone; their key is still signed in

    planted = f"{BROWSER_COOKIE}={attackers_key}; Path=/; HttpOnly"
    with planting_page(planted, host=app_server.host) as url:
        page.goto(url)
    assert browser_key(page) == attackers_key  # planted: browsers share cookies across ports

    open_page(page, f"{base}{routes.UPLOAD}")
    notice = page.get_by_test_id("signed-in-as")
    said = f"{messages.SIGNED_IN_AS} {attacker}. {messages.NOT_YOU} {messages.SIGN_OUT}"
    expect(notice).to_have_text(said)
    open_page(page, f"{base}{routes.PREMIUM}")
    expect(page.get_by_test_id("signed-in-as")).to_contain_text(attacker)

    page.get_by_test_id("signed-in-as").get_by_role("button", name=messages.SIGN_OUT).click()
    wait_for_path(page, routes.AUTH)
    open_page(page, f"{base}{routes.UPLOAD}")
    expect(page.get_by_test_id("signed-in-as")).to_have_count(0)


def test_over_https_a_page_of_another_port_cannot_plant_the_key(browser, tmp_path):
    https_port = free_port()
    site = f"https://{HOST}:{https_port}"
    with (
        running_backend("https", tmp_path, extra_env={"PUBLIC_URL": site}) as server,
        tls_in_front(server.port, tmp_path, https_port),
    ):
        answer = httpx.get(f"https://127.0.0.1:{https_port}/ping", verify=False, timeout=30)
        given = answer.headers["set-cookie"]
        assert given.startswith(f"{SECURE_BROWSER_COOKIE}=") and "Secure" in given
        attackers_key = answer.cookies[SECURE_BROWSER_COOKIE]

        # A browser for which the site's host is a real name, not localhost (whose plain
        # http pages browsers trust like https ones).
        named = browser.browser_type.launch(
            executable_path=CHROMIUM, headless=True, args=[*CHROMIUM_ARGS, HOST_RULE]
        )
        try:
            context = named.new_context(ignore_https_errors=True)
            victim = context.new_page()
            planted = (
                f"{SECURE_BROWSER_COOKIE}={attackers_key}; Path=/; Secure; HttpOnly",
                f"{BROWSER_COOKIE}={attackers_key}; Path=/; HttpOnly",
            )
            with planting_page(*planted, host=HOST) as url:
                victim.goto(url)
            kept = {cookie["name"]: cookie["value"] for cookie in context.cookies()}
            assert SECURE_BROWSER_COOKIE not in kept  # refused from plain http
            assert kept.get(BROWSER_COOKIE) == attackers_key  # kept, but https never reads it

            victim.goto(f"{site}/ping")
            held = {cookie["name"]: cookie for cookie in context.cookies(site)}
            own = held[SECURE_BROWSER_COOKIE]
            assert own["value"] != attackers_key and own["secure"] and own["httpOnly"]
        finally:
            named.close()
