"""Video generation in a real browser: members only, a playable clip of about 5 s, and
the member's own videos listed below the generator (on a phone too), after a reload and
after the tab's state is lost, and never to another member."""

from __future__ import annotations

import os
import re

import cv2
import pytest
from PIL import Image
from playwright.sync_api import expect
from skimage import data

from prettyscore.core import messages
from tests.e2e.flows import (
    expect_on_load_notice,
    lose_tab_state,
    new_member,
    open_page,
    save_scored_photo,
    wait_for_path,
    wait_until_ready,
)

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
#: Where the screenshot of the video page at 390 px goes (set PHONE_SHOTS to a folder).
SHOTS = os.environ.get("PHONE_SHOTS")


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


def loads_in_the_player(player) -> int:
    """The player's readyState once it has read the clip's metadata (at least 1), or 0
    when the browser gave up on it."""
    return player.evaluate(
        """video => new Promise((done) => {
            if (video.readyState >= 1) return done(video.readyState);
            video.addEventListener('loadedmetadata', () => done(video.readyState));
            video.addEventListener('error', () => done(0));
            video.load();
        })"""
    )


def fits_the_width(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def listed_video_plays_and_downloads(page, base: str, your_videos, clip_src: str) -> None:
    """The one listed video: the member's clip, in a player that reads it, with its date,
    its photo as the poster, and a Download of ai-video-*.mp4."""
    listed = your_videos.get_by_test_id("listed-video")
    expect(listed).to_have_count(1)
    player = listed.get_by_test_id("listed-video-player")
    expect(player).to_be_visible()
    expect(player).to_have_attribute("src", clip_src)
    assert loads_in_the_player(player) >= 1
    poster = player.get_attribute("poster")
    assert poster and page.request.get(f"{base}{poster}").status == 200
    expect(listed.get_by_test_id("listed-video-date")).to_have_text(
        re.compile(r"^\w{3} \d+, \d{4}$")
    )
    download_is_named_ai_video(page, listed)


def download_is_named_ai_video(page, where) -> None:
    with page.expect_download() as download:
        where.get_by_role("button", name="Download").click()
    assert re.fullmatch(r"ai-video-\d+\.mp4", download.value.suggested_filename)
    # (the toast of an earlier download may still be showing)
    expect(page.get_by_text(messages.VIDEO_DOWNLOADED).first).to_be_visible()


def test_a_visitor_is_asked_to_sign_in(page, app_server):
    page.goto(f"{app_server.base_url}/video-generation")
    expect_on_load_notice(page, messages.PLEASE_SIGN_IN_TO_GENERATE_VIDEOS)
    wait_for_path(page, "/auth", "?next=/video-generation")


@pytest.mark.postgres_redis  # the tab's state is lost from Redis on the way
def test_a_member_turns_a_photo_into_a_playable_five_second_video_and_finds_it_later(
    page, new_context, app_server, tmp_path, astronaut
):
    base = app_server.base_url
    page.set_viewport_size(PHONE)
    new_member(page, base, "filmmaker")
    open_page(page, f"{base}/video-generation")
    generator = page.get_by_test_id("video-generator")
    your_videos = page.get_by_test_id("your-videos")
    expect(your_videos.get_by_text(messages.NO_VIDEOS_YET)).to_be_visible()
    expect(generator.get_by_text(messages.VIDEO_TAKES_UP_TO, exact=False)).to_be_visible()
    page.get_by_test_id("video-upload-zone").locator("input[type=file]").set_input_files(
        str(astronaut)
    )
    expect(page.get_by_role("img", name="Photo to animate")).to_be_visible()
    page.get_by_label("Video prompt").fill("Starry night launch")
    page.get_by_role("button", name="Generate Video").click()
    expect(page.get_by_text(messages.VIDEO_STARTED)).to_be_visible()
    expect(page.get_by_test_id("video-processing")).to_be_visible()
    # Listed at once, in progress; the page's poller turns it into the video.
    expect(your_videos.get_by_test_id("listed-video-processing")).to_be_visible()

    player = generator.get_by_test_id("video-player")
    expect(player).to_be_visible(timeout=60_000)
    expect(page.get_by_text(messages.VIDEO_GENERATED)).to_be_visible()
    assert_plays_about_five_seconds(page, base, player, tmp_path)
    download_is_named_ai_video(page, generator)
    clip_src = player.get_attribute("src")
    expect(your_videos.get_by_test_id("listed-video-processing")).to_have_count(0)
    listed_video_plays_and_downloads(page, base, your_videos, clip_src)
    assert fits_the_width(page)

    page.get_by_role("button", name="Generate Another").click()
    expect(page.get_by_role("button", name="Generate Video")).to_be_visible()

    # From the dashboard's count of videos to the list; then a reload.
    open_page(page, f"{base}/user-dashboard")
    expect(page.get_by_test_id("overview-videos")).to_have_text("1")
    page.get_by_test_id("overview-videos-link").click()
    wait_for_path(page, "/video-generation")
    wait_until_ready(page)
    listed_video_plays_and_downloads(page, base, your_videos, clip_src)
    page.reload()
    wait_until_ready(page)
    if SHOTS:
        assert loads_in_the_player(your_videos.get_by_test_id("listed-video-player")) >= 1
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=f"{SHOTS}/video-generation-390.png", full_page=True)
    listed_video_plays_and_downloads(page, base, your_videos, clip_src)

    # The tab's state is lost (Redis restarted empty): the list is read again.
    if app_server.redis_url:
        lose_tab_state(app_server, page)
        listed_video_plays_and_downloads(page, base, your_videos, clip_src)
        player = your_videos.get_by_test_id("listed-video-player")
        expect(player).to_have_attribute("src", clip_src)
        lose_tab_state(app_server, page)
        page.reload()
        wait_until_ready(page)
        listed_video_plays_and_downloads(page, base, your_videos, clip_src)
        assert fits_the_width(page)

    # Another member lists none of it, and cannot open the clip or its photo.
    other = new_context(viewport=PHONE).new_page()
    new_member(other, base, "bystander")
    open_page(other, f"{base}/video-generation")
    expect(other.get_by_test_id("no-videos")).to_be_visible()
    expect(other.get_by_test_id("listed-video")).to_have_count(0)
    poster = your_videos.get_by_test_id("listed-video-player").get_attribute("poster")
    for url in (clip_src, poster):
        assert other.request.get(f"{base}{url}").status == 404


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
