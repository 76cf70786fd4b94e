"""Video generation in a real browser: members only, a playable clip of about 5 s."""

from __future__ import annotations

import re

import cv2
import pytest
from PIL import Image
from playwright.sync_api import expect
from skimage import data

from prettyscore.core import messages
from tests.e2e.flows import new_member, open_page, wait_for_path

pytestmark = pytest.mark.e2e


def test_a_visitor_is_asked_to_sign_in(page, app_server):
    page.goto(f"{app_server.base_url}/video-generation")
    expect(page.get_by_text(messages.PLEASE_SIGN_IN_TO_GENERATE_VIDEOS)).to_be_visible()
    wait_for_path(page, "/auth", "?next=/video-generation")


def test_a_member_turns_a_photo_into_a_playable_five_second_video(page, app_server, tmp_path):
    photo = tmp_path / "astronaut.jpg"
    Image.fromarray(data.astronaut()).save(photo, format="JPEG")
    base = app_server.base_url
    new_member(page, base, "filmmaker")
    open_page(page, f"{base}/video-generation")
    expect(page.get_by_text(messages.VIDEO_TAKES_UP_TO, exact=False)).to_be_visible()
    page.get_by_test_id("video-upload-zone").locator("input[type=file]").set_input_files(str(photo))
    expect(page.get_by_role("img", name="Photo to animate")).to_be_visible()
    page.get_by_label("Video prompt").fill("Starry night launch")
    page.get_by_role("button", name="Generate Video").click()
    expect(page.get_by_text(messages.VIDEO_STARTED)).to_be_visible()
    expect(page.get_by_test_id("video-processing")).to_be_visible()

    player = page.get_by_test_id("video-player")
    expect(player).to_be_visible(timeout=60_000)
    expect(page.get_by_text(messages.VIDEO_GENERATED)).to_be_visible()
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(page.request.get(f"{base}{player.get_attribute('src')}").body())
    capture = cv2.VideoCapture(str(clip))
    frames, fps = capture.get(cv2.CAP_PROP_FRAME_COUNT), capture.get(cv2.CAP_PROP_FPS)
    capture.release()
    assert fps > 0 and abs(frames / fps - 5) < 0.3

    with page.expect_download() as download:
        page.get_by_role("button", name="Download").click()
    assert re.fullmatch(r"ai-video-\d+\.mp4", download.value.suggested_filename)

    page.get_by_role("button", name="Generate Another").click()
    expect(page.get_by_role("button", name="Generate Video")).to_be_visible()
