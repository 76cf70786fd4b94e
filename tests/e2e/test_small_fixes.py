"""Small fixes in a real browser: the share panel's Copy Link, the free videos left on
the video page, the detailed analysis offered from the dashboard, disabled buttons, the
4K download on /results, the photo's frame on desktop /results, the display name asked
when entering the contest, deleting a photo already deleted in another tab."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlparse

import pytest
from PIL import Image
from playwright.sync_api import expect
from sqlmodel import select

from prettyscore.analysis.tiers import score_text
from prettyscore.billing.models import Subscription
from prettyscore.core import constants, messages
from prettyscore.core.model_types import utcnow
from prettyscore.editing.presets import UPSCALE_LONG_SIDE
from prettyscore.personality import service as personality
from prettyscore.photos.models import Photo
from tests.e2e.flows import (
    astronaut_jpeg,
    member_id,
    new_member,
    open_page,
    save_scored_photo,
    score_photo,
    shown_score,
    wait_for_path,
    with_app_database,
)
from tests.e2e.test_phone_layout import measure
from tests.personality.test_analysis import SHAPES, answers

pytestmark = pytest.mark.e2e


def test_copy_link_copies_this_scores_own_page_and_says_so(page, new_context, app_server, tmp_path):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    score_photo(page, app_server.base_url, astronaut_jpeg(tmp_path))
    panel = page.get_by_test_id("share-panel")
    panel.get_by_role("button", name=messages.SHARE_COPY_LINK).click()
    expect(page.get_by_text(messages.LINK_COPIED, exact=True)).to_be_visible()
    # This score's own page (the same link the X/Twitter and Facebook options carry).
    copied = page.evaluate("navigator.clipboard.readText()")
    assert re.match(r"^https?://[^/]+/s/[\w-]{16,}$", copied), copied
    assert f"url={copied}" in panel.get_by_test_id("share-x-twitter").get_attribute("href").replace(
        "%3A", ":"
    ).replace("%2F", "/")
    score = shown_score(page)
    label = page.get_by_test_id("tier-badge").first.locator("span").last.inner_text()

    # Someone else opens it: the score and its label, and not the photo.
    stranger = new_context(viewport=(390, 800)).new_page()
    open_page(stranger, app_server.base_url + urlparse(copied).path)
    shared = stranger.get_by_test_id("shared-score")
    expect(shared.get_by_test_id("tier-badge")).to_contain_text(label)
    expect(shared.get_by_text(f"{score:.1f}".removesuffix(".0"), exact=True)).to_be_visible()
    expect(stranger.get_by_text(messages.SHARED_SCORE_NO_PHOTO)).to_be_visible()
    expect(stranger.locator("main img")).to_have_count(0)
    layout = measure(stranger)
    assert layout["scroll"] <= layout["inner"], layout["found"]
    open_page(stranger, f"{app_server.base_url}/s/no-such-token-at-all")
    expect(stranger.get_by_text(messages.SHARED_SCORE_GONE)).to_be_visible()
    # Each option's visible text is its network's name, and its accessible name holds it.
    for test_id, network in (
        ("share-x-twitter", messages.SHARE_X_TWITTER),
        ("share-facebook", messages.SHARE_FACEBOOK),
    ):
        option = panel.get_by_test_id(test_id)
        assert option.inner_text().strip() == network
        assert network in option.get_attribute("aria-label")


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


# Passes once the dashboard's Personality tab renders personality.components'
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


# -- Download HD Version (4K) on /results -------------------------------------------------
def score_text_shown(page) -> str:
    """The score as the download names write it: one decimal, no trailing '.0'."""
    return score_text(shown_score(page))


def test_download_hd_on_results_downloads_the_4k_photo_and_uses_one_edit(
    page, app_server, tmp_path
):
    score_photo(page, app_server.base_url, astronaut_jpeg(tmp_path))
    expect(page.get_by_test_id("free-edits-left")).to_contain_text(str(constants.FREE_EDITS))
    expect(page.get_by_test_id("hd-format")).to_have_text(messages.DOWNLOAD_HD_FORMAT)
    with page.expect_download(timeout=90_000) as download:
        page.get_by_role("button", name=messages.DOWNLOAD_HD).click()
    # Document 000 §9: photo downloads are pretty-score-{score}.png with -edited.
    assert download.value.suggested_filename == f"pretty-score-{score_text_shown(page)}-edited.png"
    with Image.open(download.value.path()) as saved:
        assert saved.format == "PNG"
        assert max(saved.size) == UPSCALE_LONG_SIDE
    left = constants.FREE_EDITS - 1
    expect(page.get_by_text(messages.PHOTO_UPSCALED_REMAINING.format(n=left))).to_be_visible()
    expect(page.get_by_test_id("free-edits-left")).to_contain_text(str(left))


# -- no empty block under the photo on desktop /results -----------------------------------
def test_the_results_photo_frame_ends_with_the_photo_on_desktop(page, app_server, tmp_path):
    """At 1280 px the score and the photo sit side by side; the photo's frame is as tall
    as the photo, with no empty grey block below it."""
    assert page.viewport_size["width"] == 1280
    score_photo(page, app_server.base_url, astronaut_jpeg(tmp_path))
    frame = page.get_by_test_id("photo-frame")
    photo = frame.get_by_role("img")
    expect(photo).to_be_visible()
    page.wait_for_function(
        "(img) => img.complete && img.naturalHeight > 0", arg=photo.element_handle()
    )
    frame_box, photo_box = frame.bounding_box(), photo.bounding_box()
    assert frame_box["x"] > 400  # beside the score, not below it
    assert abs(frame_box["height"] - photo_box["height"]) <= 2, (frame_box, photo_box)


# -- /global-ranking asks for the display name and bio ------------------------------------
def test_entering_the_contest_asks_for_a_display_name_and_shows_it(page, app_server, tmp_path):
    base = app_server.base_url
    address = new_member(page, base, "contest-name")
    save_scored_photo(page, base, astronaut_jpeg(tmp_path))
    open_page(page, f"{base}/global-ranking")
    page.get_by_test_id("contest-choice").first.click()
    form = page.get_by_test_id("contest-entry-form")
    page.get_by_role("button", name=messages.CONTEST_SUBMIT).click()
    expect(page.get_by_text(messages.PLEASE_ENTER_DISPLAY_NAME, exact=True)).to_be_visible()
    wait_for_path(page, "/global-ranking")

    name = f"Astro {address[:20]}"
    form.get_by_placeholder("Display name").fill(f"  {name}  ")
    form.get_by_placeholder("Short bio (optional)").fill("Reaching for the stars")
    page.get_by_role("button", name=messages.CONTEST_SUBMIT).click()
    expect(page.get_by_text(messages.ADDED_TO_LEADERBOARD_QUEUE)).to_be_visible()  # confirmed
    wait_for_path(page, "/leaderboard")
    with with_app_database(app_server) as db:
        photo = db.exec(select(Photo).where(Photo.user_id == member_id(db, address))).one()
    mine = page.locator(f'[data-testid="leaderboard-entry"][data-photo-id="{photo.id}"]')
    expect(mine.get_by_text(name, exact=True)).to_be_visible()
    expect(mine.get_by_text("Reaching for the stars")).to_be_visible()
    expect(mine.get_by_text(messages.LEADERBOARD_DEFAULT_NAME)).to_have_count(0)
    assert (photo.display_name, photo.bio, photo.is_verified) == (
        name,
        "Reaching for the stars",
        False,
    )


# -- My Photos: a photo deleted in another tab --------------------------------------------
def test_deleting_a_photo_already_deleted_in_another_tab_just_finishes(
    page, app_server, new_context, tmp_path
):
    base = app_server.base_url
    new_member(page, base, "two-tabs")
    save_scored_photo(page, base, astronaut_jpeg(tmp_path))
    open_page(page, f"{base}/dashboard")
    page.get_by_test_id("photo-card").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("button", name="Delete")).to_be_visible()

    other_tab = page.context.new_page()  # the same member, another tab
    open_page(other_tab, f"{base}/dashboard")
    other_tab.get_by_test_id("photo-card").click()
    other_tab.get_by_role("dialog").get_by_role("button", name="Delete").click()
    other_tab.get_by_role("alertdialog").get_by_role("button", name="Delete photo").click()
    expect(other_tab.get_by_test_id("photo-count")).to_have_text("My Photos (0)")
    other_tab.close()

    dialog.get_by_role("button", name="Delete").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Delete photo").click()
    expect(page.get_by_text(messages.PHOTO_DELETED, exact=True)).to_be_visible()
    expect(page.get_by_test_id("photo-count")).to_have_text("My Photos (0)")
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.get_by_text("Photo not found")).to_have_count(0)
