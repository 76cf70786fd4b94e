"""Small fixes in a real browser: the share panel's Copy Link, the free videos left on
the video page, the detailed analysis offered from the dashboard, disabled buttons."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from prettyscore.billing.models import Subscription
from prettyscore.core import messages
from prettyscore.core.model_types import utcnow
from prettyscore.personality import service as personality
from tests.e2e.flows import (
    astronaut_jpeg,
    member_id,
    new_member,
    open_page,
    score_photo,
    with_app_database,
)
from tests.personality.test_analysis import SHAPES, answers

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


_LOOK = """(el) => {
  const s = getComputedStyle(el);
  return [s.backgroundImage, s.backgroundColor, s.color, s.boxShadow].join(' | ');
}"""


# Passes once GRADIENT_BUTTON in prettyscore/ui/styles.py gives way to the disabled look;
# remove the marker with that change.
def test_a_disabled_button_looks_disabled(page, app_server, tmp_path):
    """The custom edit's Edit button, disabled while the prompt is empty, does not keep
    the full colour of the enabled button."""
    score_photo(page, app_server.base_url, astronaut_jpeg(tmp_path))
    edit = page.get_by_role("button", name="Edit", exact=True)
    expect(edit).to_be_disabled()
    disabled_look = edit.evaluate(_LOOK)
    page.get_by_label("Editing instruction").fill("make it warmer")
    expect(edit).to_be_enabled()
    enabled_look = edit.evaluate(_LOOK)
    assert "gradient" in enabled_look
    assert "gradient" not in disabled_look
    assert disabled_look != enabled_look


# Passes once the dashboard's Personality tab renders personality.offer's
# detailed_analysis_offer(); remove the marker with that line.
def test_the_detailed_analysis_of_the_latest_result_is_offered_on_the_dashboard(page, app_server):
    base = app_server.base_url
    address = new_member(page, base, "personality-offer")
    with with_app_database(app_server) as db:  # a Premium member who took the test
        user_id = member_id(db, address)
        db.add(Subscription(user_id=user_id, expires_at=utcnow() + timedelta(days=30)))
        db.flush()
        personality.finish_test(db, user_id, answers(SHAPES["all first"][0]))
    open_page(page, f"{base}/dashboard?tab=personality")
    offer = page.get_by_test_id("detailed-offer")
    expect(offer).to_contain_text(messages.PERSONALITY_DETAILED_TITLE)
    expect(offer).to_contain_text("The Iconic Trendsetter")
    expect(offer.get_by_test_id("offer-price")).to_have_text("$4.99")

    offer.get_by_role("button", name=messages.PERSONALITY_GET_DETAILED).click()
    page.wait_for_url(re.compile(r"/checkout/test/?\?session=cs_test_local_\w+$"))
    checkout = page.get_by_test_id("test-checkout")
    expect(checkout.get_by_test_id("checkout-item")).to_have_text(
        messages.PERSONALITY_DETAILED_TITLE
    )
    checkout.get_by_role("button", name=messages.TEST_CHECKOUT_PAY.format(amount="$4.99")).click()
    page.wait_for_url(re.compile(r"/personality-test/?\?payment=success&result=[0-9a-f-]{36}$"))
    expect(page.get_by_test_id("detailed-report")).to_contain_text("The Iconic Trendsetter")

    open_page(page, f"{base}/dashboard?tab=personality")  # paid for: no longer on offer
    expect(page.get_by_test_id("personality-result")).to_have_count(2)
    expect(page.get_by_test_id("detailed-offer")).to_have_count(0)
