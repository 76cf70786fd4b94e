"""The browser's key in a real browser: signing in and signing out replace it.

Only the browser shows this: the page runs the script the sign-in sends, and the
browser stores the HttpOnly cookie that the answer to its request sets. The key the
browser held before signing in (which a page of another port could have planted)
opens nothing afterwards; the new one keeps every tab of the browser signed in.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from prettyscore.core import messages
from prettyscore.web.browser_key import BROWSER_COOKIE
from tests.e2e.flows import key_after, new_member, open_page, wait_for_path

pytestmark = pytest.mark.e2e


def test_signing_in_and_out_replaces_the_browsers_key(page, new_context, app_server):
    base = app_server.base_url
    open_page(page, f"{base}/auth")
    (before,) = [c["value"] for c in page.context.cookies() if c["name"] == BROWSER_COOKIE]
    address = new_member(page, base, "rekeyed")
    signed_in = key_after(page, before)
    assert signed_in != before

    other_tab = page.context.new_page()  # the same browser: signed in with the new key
    open_page(other_tab, f"{base}/dashboard")
    expect(other_tab.get_by_test_id("dashboard-email")).to_have_text(address)
    other_tab.close()

    planted = new_context()  # another browser holding the key from before the sign-in
    planted.add_cookies([{"name": BROWSER_COOKIE, "value": before, "url": base}])
    elsewhere = planted.new_page()
    elsewhere.goto(f"{base}/dashboard")
    wait_for_path(elsewhere, "/auth", "?next=/dashboard")

    page.get_by_role("button", name=messages.SIGN_OUT).first.click()
    wait_for_path(page, "/auth")
    assert key_after(page, signed_in) not in (signed_in, before)
