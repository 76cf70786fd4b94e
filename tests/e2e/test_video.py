"""Video generation in a real browser: members only, a playable clip of about 5 s."""

from __future__ import annotations

import re

import cv2
import pytest
from PIL import Image
from playwright.sync_api import expect
from skimage import data

from prettyscore.core import messages
from tests.e2e.flows import (
    expect_on_load_notice,
    new_member,
    open_page,
    save_scored_photo,
    wait_for_path,
)

pytestmark = pytest.mark.e2e


@pytest.fixture
def astronaut(tmp_path):
    """A face photo as a file a person would pick."""
    photo = tmp_path / "astronaut.jpg"
    Image.fromarray(data.astronaut()).save(photo, format="JPEG")
    return photo


def assert_plays_about_five_seconds(page, base: str, player, tmp_path) -> None:
    """The player's source is an MP4 the member may fetch, about 5 s long."""
    clip = tmp_path / "clip.mp4"
    answer = page.request.get(f"{base}{player.get_attribute('src')}")
    assert answer.status == 200 and answer.headers["content-type"] == "video/mp4"
    clip.write_bytes(answer.body())
    capture = cv2.VideoCapture(str(clip))
    frames, fps = capture.get(cv2.CAP_PROP_FRAME_COUNT), capture.get(cv2.CAP_PROP_FPS)
    capture.release()
    assert fps > 0 and abs(frames / fps - 5) < 0.3


def download_is_named_ai_video(page, where) -> None:
    with page.expect_download() as download:
        where.get_by_role("button", name="Download").click()
    assert re.fullmatch(r"ai-video-\d+\.mp4", download.value.suggested_filename)
    expect(page.get_by_text(messages.VIDEO_DOWNLOADED)).to_be_visible()


def test_a_visitor_is_asked_to_sign_in(page, app_server):
    page.goto(f"{app_server.base_url}/video-generation")
    expect_on_load_notice(page, messages.PLEASE_SIGN_IN_TO_GENERATE_VIDEOS)
    wait_for_path(page, "/auth", "?next=/video-generation")


def test_a_member_turns_a_photo_into_a_playable_five_second_video(
    page, app_server, tmp_path, astronaut
):
    base = app_server.base_url
    new_member(page, base, "filmmaker")
    open_page(page, f"{base}/video-generation")
    expect(page.get_by_text(messages.VIDEO_TAKES_UP_TO, exact=False)).to_be_visible()
    page.get_by_test_id("video-upload-zone").locator("input[type=file]").set_input_files(
        str(astronaut)
    )
    expect(page.get_by_role("img", name="Photo to animate")).to_be_visible()
    page.get_by_label("Video prompt").fill("Starry night launch")
    page.get_by_role("button", name="Generate Video").click()
    expect(page.get_by_text(messages.VIDEO_STARTED)).to_be_visible()
    expect(page.get_by_test_id("video-processing")).to_be_visible()

    player = page.get_by_test_id("video-player")
    expect(player).to_be_visible(timeout=60_000)
    expect(page.get_by_text(messages.VIDEO_GENERATED)).to_be_visible()
    assert_plays_about_five_seconds(page, base, player, tmp_path)
    download_is_named_ai_video(page, page)

    page.get_by_role("button", name="Generate Another").click()
    expect(page.get_by_role("button", name="Generate Video")).to_be_visible()


def open_video_dialog_from_my_photos(page):
    """On /dashboard: open the (only) saved photo and click Generate Video."""
    page.get_by_test_id("photo-card").click()
    page.get_by_role("dialog").get_by_role("button", name="Generate Video").click()
    dialog = page.get_by_test_id("video-dialog")
    expect(dialog).to_be_visible()
    return dialog


def test_a_member_makes_a_video_of_a_saved_photo_from_the_dashboard(
    page, app_server, tmp_path, astronaut
):
    base = app_server.base_url
    new_member(page, base, "dashboard-filmmaker")
    save_scored_photo(page, base, astronaut)
    open_page(page, f"{base}/dashboard")
    saved_src = page.get_by_test_id("photo-card").get_by_role("img").get_attribute("src")

    dialog = open_video_dialog_from_my_photos(page)
    expect(dialog.get_by_role("img", name="Photo to animate")).to_have_attribute("src", saved_src)
    expect(dialog.get_by_label("Video prompt")).to_have_value(messages.VIDEO_DEFAULT_PROMPT)
    expect(dialog.get_by_text(messages.VIDEO_TAKES_UP_TO, exact=False)).to_be_visible()
    dialog.get_by_role("button", name="Generate Video").click()
    expect(page.get_by_text(messages.VIDEO_STARTED)).to_be_visible()
    expect(dialog.get_by_test_id("video-processing")).to_be_visible()

    # Closing the dialog leaves the job running; reopening shows where it is.
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()
    dialog = open_video_dialog_from_my_photos(page)
    player = dialog.get_by_test_id("video-player")
    expect(dialog.get_by_test_id("video-processing").or_(player)).to_be_visible()

    expect(player).to_be_visible(timeout=60_000)
    assert_plays_about_five_seconds(page, base, player, tmp_path)
    download_is_named_ai_video(page, dialog)

    dialog.get_by_role("button", name="Generate Another").click()
    expect(dialog.get_by_role("img", name="Photo to animate")).to_have_attribute("src", saved_src)

    dialog.get_by_role("button", name="Change Image").click()
    not_an_image = tmp_path / "notes.jpg"
    not_an_image.write_text("a text file wearing a .jpg name")
    upload = dialog.get_by_test_id("video-upload-zone").locator("input[type=file]")
    upload.set_input_files(str(not_an_image))
    expect(page.get_by_text(messages.PLEASE_UPLOAD_IMAGE_FILE)).to_be_visible()
    upload.set_input_files(str(astronaut))
    expect(dialog.get_by_role("img", name="Photo to animate")).to_be_visible()
    expect(dialog.get_by_role("button", name="Generate Video")).to_be_enabled()
