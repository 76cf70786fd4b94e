"""The dashboard editor panel in a real browser: edits of a saved photo, an undo stack that
survives a reload, Redo, Edit Again and the 4K download."""

from __future__ import annotations

import re

import pytest
from PIL import Image
from playwright.sync_api import expect
from skimage import data

from prettyscore.core import constants, messages
from tests.e2e.flows import new_member, open_page, save_scored_photo

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def face_photo(tmp_path_factory):
    path = tmp_path_factory.mktemp("photos") / "astronaut.jpg"
    Image.fromarray(data.astronaut()).save(path, format="JPEG", quality=92)
    return path


def open_editor(page):
    """Open the only saved photo's dialog and its editor panel."""
    page.get_by_test_id("photo-card").click()
    page.get_by_role("dialog").get_by_role("button", name="Edit Photo").click()
    panel = page.get_by_test_id("editor-panel")
    expect(panel).to_be_visible()
    return panel


def toast(page, text: str):
    return expect(page.get_by_text(text, exact=True).first)


def test_a_member_edits_undoes_and_redoes_a_saved_photo(page, app_server, face_photo):
    base = app_server.base_url
    new_member(page, base, "retoucher")
    save_scored_photo(page, base, face_photo)
    open_page(page, f"{base}/dashboard")
    card_image = page.get_by_test_id("photo-card").locator("img")
    original_src = card_image.get_attribute("src")

    panel = open_editor(page)
    for tab in ("Background", "Hair", "Outfit"):
        expect(panel.get_by_role("tab", name=tab)).to_be_visible()
    expect(panel.get_by_test_id("free-edits-left")).to_contain_text(str(constants.FREE_EDITS))
    panel.get_by_role("button", name="Blur background").click()
    toast(page, messages.PHOTO_EDITED_REMAINING.format(n=4)).to_be_visible()
    expect(panel.get_by_label(messages.COMPARISON_SLIDER_LABEL)).to_be_visible()
    expect(card_image).not_to_have_attribute("src", original_src)  # the card shows the edit

    panel.get_by_role("button", name="Undo").click()
    toast(page, messages.UNDO_SUCCESSFUL).to_be_visible()
    expect(panel.get_by_label(messages.COMPARISON_SLIDER_LABEL)).to_have_count(0)
    expect(card_image).to_have_attribute("src", original_src)
    panel.get_by_role("button", name="Undo").click()
    toast(page, messages.NO_EDITS_TO_UNDO).to_be_visible()

    panel.get_by_role("button", name="Redo").click()  # "Blur background" again
    toast(page, messages.PHOTO_EDITED_REMAINING.format(n=3)).to_be_visible()
    expect(panel.get_by_label(messages.COMPARISON_SLIDER_LABEL)).to_be_visible()

    panel.get_by_role("button", name=messages.EDIT_AGAIN).click()
    panel.get_by_label("Editing instruction").fill("make it warmer")
    expect(panel.get_by_role("button", name="Edit", exact=True)).to_be_enabled()
    panel.get_by_label("Editing instruction").press("Enter")
    toast(page, messages.PHOTO_EDITED_REMAINING.format(n=2)).to_be_visible()

    # The stack lives on the server: after a reload, the editor opens on the edited photo
    # and Undo still knows both edits.
    open_page(page, f"{base}/dashboard")
    panel = open_editor(page)
    expect(panel.get_by_label(messages.COMPARISON_SLIDER_LABEL)).to_be_visible()
    for _ in range(2):
        panel.get_by_role("button", name="Undo").click()
        toast(page, messages.UNDO_SUCCESSFUL).to_be_visible()
        page.get_by_text(messages.UNDO_SUCCESSFUL).first.wait_for(state="detached")
    expect(card_image).to_have_attribute("src", original_src)
    panel.get_by_role("button", name="Undo").click()
    toast(page, messages.NO_EDITS_TO_UNDO).to_be_visible()


def test_download_hd_gives_a_4k_photo_and_uses_one_edit(page, app_server, face_photo):
    base = app_server.base_url
    new_member(page, base, "hd")
    save_scored_photo(page, base, face_photo)
    open_page(page, f"{base}/dashboard")
    panel = open_editor(page)
    panel.get_by_role("tab", name="Outfit").click()
    panel.get_by_role("button", name="Improve clothing colors").click()
    toast(page, messages.PHOTO_EDITED_REMAINING.format(n=4)).to_be_visible()

    with page.expect_download(timeout=60_000) as download:
        panel.get_by_role("button", name=messages.DOWNLOAD_HD).click()
    # Document 000 §9: photo downloads are pretty-score-{score}.png with -edited.
    assert re.fullmatch(r"pretty-score-(10|\d\.\d)-edited\.png", download.value.suggested_filename)
    with Image.open(download.value.path()) as saved:
        assert (saved.format, max(saved.size)) == ("PNG", 3840)
    toast(page, messages.PHOTO_UPSCALED_REMAINING.format(n=3)).to_be_visible()
    expect(panel.get_by_test_id("free-edits-left")).to_contain_text("3")

    # Generate Video takes the photo as it is now (the 4K edit) into the video dialog.
    panel.get_by_role("button", name="Generate Video").click()
    expect(panel).to_have_count(0)
    chosen = page.get_by_role("dialog").get_by_role("img", name="Photo to animate")
    expect(chosen).to_be_visible()
    edited_src = page.get_by_test_id("photo-card").locator("img").get_attribute("src")
    expect(chosen).to_have_attribute("src", edited_src)
