"""Which photo shows you best, in a real browser on a phone (390 px): a visitor finds
the page from /upload, picks three photos of one person at once, compares them and sees
them ranked, each with its aspects and one line of advice, and the page never scrolls
sideways."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from prettyscore.analysis import face_photo
from prettyscore.core import messages
from tests.e2e.flows import open_page, wait_for_path
from tests.fixtures.photos import SAME_PERSON, dim_and_soft_jpeg

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
#: Every line of advice a ranked photo may get.
ADVICE = {*face_photo.ADVICE.values(), face_photo.GOOD_PHOTO_ADVICE}


@pytest.fixture(scope="module")
def three_photos(tmp_path_factory) -> list[str]:
    """Two photos of one person and a dim, soft copy of the first, as files to pick."""
    folder = tmp_path_factory.mktemp("best-photo")
    dim = folder / "dim.jpg"
    dim.write_bytes(dim_and_soft_jpeg("lisa1.jpg"))
    return [str(SAME_PERSON / "lisa1.jpg"), str(dim), str(SAME_PERSON / "zoom_30cm.jpg")]


def sideways_scroll(page) -> int:
    """How far past 390 px the page reaches (0 when it fits)."""
    return page.evaluate("() => document.documentElement.scrollWidth") - PHONE["width"]


def test_three_photos_are_ranked_with_advice_on_a_phone(new_context, app_server, three_photos):
    page = new_context(viewport=PHONE).new_page()
    base = app_server.base_url
    open_page(page, f"{base}/upload")
    page.get_by_role("link", name=messages.BEST_PHOTO_OFFER).click()
    wait_for_path(page, "/best-photo")

    page.get_by_test_id("best-photo-zone").locator("input[type=file]").set_input_files(three_photos)
    expect(page.get_by_text(messages.BEST_PHOTO_CHOSEN.format(count=3))).to_be_visible()
    expect(page.get_by_role("img", name=messages.BEST_PHOTO_CHOSEN_ALT)).to_have_count(3)
    assert sideways_scroll(page) <= 0

    page.get_by_role("button", name=messages.BEST_PHOTO_COMPARE).click()
    cards = page.get_by_test_id("best-photo-card")
    expect(cards).to_have_count(3, timeout=60_000)

    for rank in (1, 2, 3):
        card = cards.nth(rank - 1)
        expect(card).to_contain_text(messages.BEST_PHOTO_RANK.format(rank=rank))
        expect(card).to_contain_text(re.compile(r"Photo quality \d+\.\d/10"))
        expect(card.get_by_role("img", name=f"Your photo ranked {rank}")).to_be_visible()
        expect(card.get_by_test_id("best-photo-aspect")).to_have_count(len(face_photo.ASPECTS))
        assert card.get_by_test_id("best-photo-advice").inner_text() in ADVICE
    expect(cards.first).to_contain_text(messages.BEST_PHOTO_SHOWS_YOU_BEST)
    expect(cards.first.get_by_test_id("best-photo-differs")).to_have_count(0)

    # The dim, soft copy comes last: it differs in its light or sharpness, and says so.
    worst = cards.nth(2)
    expect(worst.get_by_test_id("best-photo-differs")).to_have_text(
        re.compile(r"^What differs: (Light|Sharpness)")
    )
    lit_and_steady = {face_photo.ADVICE[key] for key in (face_photo.LIGHT, face_photo.SHARPNESS)}
    assert worst.get_by_test_id("best-photo-advice").inner_text() in lit_and_steady

    worst.scroll_into_view_if_needed()
    assert sideways_scroll(page) <= 0
    for index in range(3):  # nothing clipped: each card lies within the screen
        box = cards.nth(index).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
