"""The photo editor in a real browser: live slider preview, AI edits with versions,
download, and saving for visitors and members."""

from __future__ import annotations

import importlib.util
import io
import re

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import expect
from sqlmodel import Session, select

from prettyscore.accounts.models import User
from prettyscore.analysis.tiers import score_text
from prettyscore.core import constants, messages
from prettyscore.core.db import make_engine
from prettyscore.photos.models import Photo
from tests.e2e.flows import (
    astronaut_jpeg,
    new_member,
    open_page,
    score_photo,
    wait_for_path,
)

pytestmark = pytest.mark.e2e

FILTER_BRIGHTNESS = re.compile(r"brightness\(([\d.]+)(%?)\)")


@pytest.fixture
def photo(tmp_path):
    return astronaut_jpeg(tmp_path)


def mean_level(path) -> float:
    return float(np.asarray(Image.open(path).convert("RGB"), dtype=np.float64).mean())


def preview_brightness(preview) -> float:
    """The brightness the preview's computed CSS filter applies (1 = unchanged)."""
    match = FILTER_BRIGHTNESS.search(preview.evaluate("img => getComputedStyle(img).filter"))
    assert match, "the preview carries a brightness filter"
    value = float(match[1])
    return value / 100 if match[2] else value


def events_sent(frames: list[str]) -> int:
    """How many Reflex events the browser has sent over the websocket so far."""
    return sum('"event"' in frame for frame in frames)


def upload_on_editor(page, path) -> None:
    page.get_by_test_id("editor-upload-zone").locator("input[type=file]").set_input_files(str(path))


def test_a_visitor_adjusts_edits_steps_through_versions_and_downloads(page, app_server, photo):
    base = app_server.base_url
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda p: frames.append(str(p))))
    open_page(page, f"{base}/editor")
    upload_on_editor(page, photo)
    preview = page.get_by_role("img", name="Photo being edited")
    expect(preview).to_be_visible()
    version = page.get_by_test_id("editor-version")
    expect(version).to_have_text("Version 1 of 1")
    undo, redo = (page.get_by_role("button", name=n, exact=True) for n in ("Undo", "Redo"))
    expect(undo).to_be_disabled()
    expect(redo).to_be_disabled()
    original_src = preview.get_attribute("src")
    assert preview_brightness(preview) == pytest.approx(1)

    # The preview follows the slider in the browser: no event goes to the server.
    brightness = page.get_by_role("slider", name="Brightness")
    brightness.focus()
    sent_before = events_sent(frames)
    for _ in range(40):
        brightness.press("ArrowRight")
    expect(brightness).to_have_value("140")
    assert preview_brightness(preview) == pytest.approx(1.4)
    assert events_sent(frames) == sent_before

    # The download is the photo with the slider applied on the server.
    with page.expect_download() as download:
        page.get_by_role("button", name="Download", exact=True).click()
    assert re.fullmatch(r"edited-photo-\d+\.png", download.value.suggested_filename)
    downloaded = Image.open(download.value.path())
    assert downloaded.format == "PNG"
    assert mean_level(download.value.path()) > mean_level(photo) + 15
    expect(page.get_by_text(messages.PHOTO_DOWNLOADED)).to_be_visible()

    page.get_by_role("button", name="Reset").click()
    expect(brightness).to_have_value("100")
    assert preview_brightness(preview) == pytest.approx(1)

    # A preset edit uses one free edit and becomes version 2.
    left = page.get_by_test_id("free-edits-left")
    expect(left).to_contain_text(str(constants.FREE_EDITS))
    page.get_by_role("button", name="Blur background").click()
    remaining = constants.FREE_EDITS - 1
    expect(page.get_by_text(messages.PHOTO_EDITED_REMAINING.format(n=remaining))).to_be_visible()
    expect(left).to_contain_text(str(remaining))
    expect(version).to_have_text("Version 2 of 2")
    edited_src = preview.get_attribute("src")
    assert edited_src != original_src

    undo.click()
    expect(version).to_have_text("Version 1 of 2")
    expect(preview).to_have_attribute("src", original_src)
    expect(undo).to_be_disabled()
    redo.click()
    expect(preview).to_have_attribute("src", edited_src)
    expect(redo).to_be_disabled()

    # A new version after an undo drops the redo state.
    undo.click()
    expect(version).to_have_text("Version 1 of 2")
    page.get_by_role("slider", name="Contrast").focus()
    page.keyboard.press("ArrowLeft")
    page.get_by_role("button", name="Apply").click()
    expect(version).to_have_text("Version 2 of 2")
    expect(redo).to_be_disabled()
    expect(page.get_by_role("slider", name="Contrast")).to_have_value("100")
    assert preview.get_attribute("src") not in (original_src, edited_src)

    # A custom edit (Enter submits) keeps the pending slider as a version of its own.
    brightness.focus()
    brightness.press("ArrowRight")
    page.get_by_label("Editing instruction").fill("make it warmer")
    expect(page.get_by_role("button", name="Edit", exact=True)).to_be_enabled()
    page.keyboard.press("Enter")
    remaining -= 1
    expect(page.get_by_text(messages.PHOTO_EDITED_REMAINING.format(n=remaining))).to_be_visible()
    expect(version).to_have_text("Version 4 of 4")
    expect(brightness).to_have_value("100")
    undo.click()
    expect(version).to_have_text("Version 3 of 4")

    # Visitors are asked to sign in to save, and come back to the editor.
    page.get_by_role("button", name=messages.SIGN_IN_TO_SAVE).click()
    expect(page.get_by_text(messages.SIGN_IN_TO_SAVE).last).to_be_visible()
    wait_for_path(page, "/auth", "?next=/editor")


def test_custom_edits_understand_everyday_words_and_refuse_the_rest_with_what_they_can_do(
    page, app_server, photo
):
    base = app_server.base_url
    open_page(page, f"{base}/editor")
    upload_on_editor(page, photo)
    preview = page.get_by_role("img", name="Photo being edited")
    expect(preview).to_be_visible()
    version = page.get_by_test_id("editor-version")
    left = page.get_by_test_id("free-edits-left")
    expect(left).to_contain_text(str(constants.FREE_EDITS))
    instruction = page.get_by_label("Editing instruction")
    edit_button = page.get_by_role("button", name="Edit", exact=True)

    def ask(prompt: str) -> None:
        instruction.fill(prompt)
        expect(edit_button).to_be_enabled()
        page.keyboard.press("Enter")

    def shown_level() -> float:
        image = page.request.get(base + preview.get_attribute("src").removeprefix(base))
        return float(np.asarray(Image.open(io.BytesIO(image.body())).convert("L")).mean())

    original = shown_level()
    ask("make it brighter please")
    remaining = constants.FREE_EDITS - 1
    expect(page.get_by_text(messages.PHOTO_EDITED_REMAINING.format(n=remaining))).to_be_visible()
    expect(version).to_have_text("Version 2 of 2")
    expect(left).to_contain_text(str(remaining))
    assert shown_level() > original + 5

    # What the local engine cannot do: a short line of what it can, no edit used, no version.
    ask("add sunglasses")
    refusal = page.get_by_text(messages.EDIT_NOT_SUPPORTED)
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("Try: brighter, warmer, blur the background")
    expect(left).to_contain_text(str(remaining))
    expect(version).to_have_text("Version 2 of 2")

    ask("increase brightness")
    expect(
        page.get_by_text(messages.PHOTO_EDITED_REMAINING.format(n=remaining - 1))
    ).to_be_visible()
    expect(version).to_have_text("Version 3 of 3")
    expect(left).to_contain_text(str(remaining - 1))


def test_the_editor_refuses_what_is_not_a_photo_and_asks_for_one_first(page, app_server, tmp_path):
    open_page(page, f"{app_server.base_url}/editor")
    page.get_by_role("button", name="Download", exact=True).click()
    expect(page.get_by_text(messages.NO_EDITED_IMAGE_TO_DOWNLOAD)).to_be_visible()
    page.get_by_role("button", name=messages.SIGN_IN_TO_SAVE).click()
    expect(page.get_by_text(messages.PLEASE_UPLOAD_IMAGE_FIRST)).to_be_visible()
    fake = tmp_path / "notes.jpg"
    fake.write_text("not a photo at all")
    upload_on_editor(page, fake)
    expect(page.get_by_text(messages.PLEASE_UPLOAD_IMAGE_FILE)).to_be_visible()
    expect(page.get_by_role("img", name="Photo being edited")).to_have_count(0)


def test_a_result_opens_in_the_editor_with_its_score(page, app_server, photo):
    base = app_server.base_url
    score_photo(page, base, photo)
    score = page.get_by_test_id("results").get_by_text(re.compile(r"^\d+(\.\d)?/10$")).first
    shown = re.search(r"\d+(\.\d)?", score.inner_text())[0]
    page.get_by_role("link", name="Open in Editor").click()
    wait_for_path(page, "/editor", "?from=results")
    expect(page.get_by_role("img", name="Photo being edited")).to_be_visible()
    expect(page.get_by_test_id("editor-score")).to_contain_text(f"{shown}/10")

    # A new upload starts afresh: no score, one version.
    upload_on_editor(page, photo)
    expect(page.get_by_test_id("editor-score")).to_have_count(0)
    expect(page.get_by_test_id("editor-version")).to_have_text("Version 1 of 1")


def member_photos(app_server, email: str) -> list[Photo]:
    engine = make_engine(app_server.database_url)
    try:
        with Session(engine) as db:
            return list(
                db.exec(
                    select(Photo).join(User, User.id == Photo.user_id).where(User.email == email)
                )
            )
    finally:
        engine.dispose()


@pytest.mark.skipif(
    importlib.util.find_spec("prettyscore.photos.history") is None,
    reason="saved photos keep their edit history once prettyscore.photos.history exists",
)
def test_a_member_edits_a_saved_photo_and_the_dashboard_shows_the_edit(page, app_server, photo):
    base = app_server.base_url
    email = new_member(page, base, "retoucher")
    score_photo(page, base, photo)
    page.get_by_role("button", name="Save to My Photos").click()
    expect(page.get_by_text(messages.PHOTO_SAVED)).to_be_visible()
    (saved,) = member_photos(app_server, email)
    assert saved.edited_image_url is None

    open_page(page, f"{base}/editor?photo={saved.id}")
    expect(page.get_by_test_id("editor-score")).to_contain_text(f"{score_text(saved.score)}/10")
    brightness = page.get_by_role("slider", name="Brightness")
    brightness.focus()
    for _ in range(30):
        brightness.press("ArrowRight")
    page.get_by_role("button", name="Save to My Photos").click()
    expect(page.get_by_text(messages.PHOTO_SAVED)).to_be_visible()

    (updated,) = member_photos(app_server, email)
    assert updated.edited_image_url and updated.edited_image_url != updated.original_image_url
    open_page(page, f"{base}/dashboard")
    card_image = page.get_by_test_id("photo-card").get_by_role("img")
    expect(card_image).to_have_attribute("src", updated.edited_image_url)
    shown = page.request.get(f"{base}{updated.edited_image_url}")
    original = page.request.get(f"{base}{updated.original_image_url}")
    assert shown.status == original.status == 200
    assert _mean_of(shown.body()) > _mean_of(original.body()) + 15


def _mean_of(data: bytes) -> float:
    import io

    return mean_level(io.BytesIO(data))
