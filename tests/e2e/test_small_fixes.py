"""Small fixes in a real browser: the share panel's Copy Link, the free videos left on
the video page, the detailed analysis offered from the dashboard, disabled buttons."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from prettyscore.core import messages
from tests.e2e.flows import astronaut_jpeg, new_member, open_page, score_photo

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


def test_the_video_page_says_how_many_free_videos_are_left(page, app_server, tmp_path):
    base = app_server.base_url
    new_member(page, base, "free-videos")
    open_page(page, f"{base}/video-generation")
    left = page.get_by_test_id("videos-left")
    expect(left).to_have_text("2 of 2 free videos left")

    page.get_by_test_id("video-upload-zone").locator("input[type=file]").set_input_files(
        str(astronaut_jpeg(tmp_path))
    )
    expect(page.get_by_role("img", name="Photo to animate")).to_be_visible()
    page.get_by_role("button", name="Generate Video").click()
    expect(page.get_by_test_id("video-player")).to_be_visible(timeout=60_000)
    page.get_by_role("button", name="Generate Another").click()
    expect(left).to_have_text("1 of 2 free videos left")
