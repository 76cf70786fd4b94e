"""Small fixes in a real browser: the share panel's Copy Link, the free videos left on
the video page, the detailed analysis offered from the dashboard, disabled buttons."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from prettyscore.core import messages
from tests.e2e.flows import astronaut_jpeg, score_photo

pytestmark = pytest.mark.e2e


def test_copy_link_in_the_share_panel_copies_the_link_and_says_so(page, app_server, tmp_path):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    score_photo(page, app_server.base_url, astronaut_jpeg(tmp_path))
    panel = page.get_by_test_id("share-panel")
    panel.get_by_role("button", name=messages.SHARE_COPY_LINK).click()
    expect(page.get_by_text(messages.LINK_COPIED, exact=True)).to_be_visible()
    # The site's public link (the same one the X/Twitter and Facebook options carry).
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("http")
    assert f"url={copied}" in panel.get_by_test_id("share-x-twitter").get_attribute("href").replace(
        "%3A", ":"
    ).replace("%2F", "/")
