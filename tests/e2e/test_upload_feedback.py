"""What a photo upload tells the person choosing it, in a real browser: progress while the
photo travels (face, hands and pet pages), a notice and no lasting 'Processing...' when
the network drops the upload, exactly one notice for a bad file (the documents' text for
its case), and the same list of formats wherever a photo is chosen."""

from __future__ import annotations

import contextlib
import io
import re
import uuid
from datetime import timedelta
from urllib.parse import urlparse

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import expect
from skimage import data

from prettyscore.billing.models import Subscription
from prettyscore.core import messages
from prettyscore.core.model_types import utcnow
from tests.e2e.flows import (
    member_id,
    new_member,
    open_page,
    see_the_score,
    wait_for_path,
    with_app_database,
)
from tests.fixtures.body_photos import real_hand

pytestmark = pytest.mark.e2e

TOASTS = "[data-sonner-toast]"
#: Long enough for a second notice about the same file to have arrived.
SECOND_NOTICE_WAIT_MS = 1_500
FORMATS_LINE = re.compile(r"up to 10MB$")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Files a person might pick: a portrait, one over the limit, not an image, an image
    that claims to be a JPEG but cannot be read."""
    folder = tmp_path_factory.mktemp("upload-feedback")
    portrait = folder / "portrait.jpg"
    # Big enough (about 1 MB) that a slow connection takes seconds to send it.
    face = Image.fromarray(data.astronaut()).resize((1400, 1400), Image.Resampling.BICUBIC)
    grain = np.random.default_rng(7).integers(-12, 12, (1400, 1400, 3))
    pixels = np.clip(np.asarray(face, dtype=np.int16) + grain, 0, 255).astype(np.uint8)
    Image.fromarray(pixels).save(portrait, format="JPEG", quality=95)
    too_large = folder / "huge.jpg"
    too_large.write_bytes(b"\xff\xd8\xff\xe0" + b"\0" * (11 * 1024 * 1024))
    text = folder / "notes.txt"
    text.write_text("just some notes, not a picture")
    renamed = folder / "holiday.jpg"
    renamed.write_text("this is a text file wearing a .jpg name")
    whole = io.BytesIO()
    Image.fromarray(data.astronaut()).save(whole, format="JPEG", quality=92)
    truncated = folder / "cut-short.jpg"
    truncated.write_bytes(whole.getvalue()[: len(whole.getvalue()) // 2])
    hand = folder / "hand.jpg"
    palm = Image.fromarray(real_hand("adult-palm"))
    palm = palm.resize((palm.width * 3, palm.height * 3), Image.Resampling.BICUBIC)
    grain = np.random.default_rng(8).integers(-12, 12, (palm.height, palm.width, 3))
    noisy = np.clip(np.asarray(palm.convert("RGB"), dtype=np.int16) + grain, 0, 255)
    Image.fromarray(noisy.astype(np.uint8)).save(hand, format="JPEG", quality=95)
    empty = folder / "empty.jpg"
    empty.write_bytes(b"")
    cat = folder / "cat.jpg"
    kitten = Image.fromarray(data.chelsea()).resize((1350, 1050), Image.Resampling.BICUBIC)
    grain = np.random.default_rng(9).integers(-12, 12, (1050, 1350, 3))
    fur = np.clip(np.asarray(kitten, dtype=np.int16) + grain, 0, 255).astype(np.uint8)
    Image.fromarray(fur).save(cat, format="JPEG", quality=95)
    return {
        "portrait": portrait,
        "hand": hand,
        "cat": cat,
        "too_large": too_large,
        "text": text,
        "renamed": renamed,
        "truncated": truncated,
        "empty": empty,
    }


def make_premium(app_server, address: str) -> uuid.UUID:
    with with_app_database(app_server) as db:
        user_id = member_id(db, address)
        db.add(Subscription(user_id=user_id, expires_at=utcnow() + timedelta(days=30)))
    return user_id


def file_input(page, test_id: str):
    return page.get_by_test_id(test_id).locator("input[type=file]").first


def exactly_one_notice(page, text: str) -> None:
    """``text`` shows, once, and no other notice comes with it."""
    expect(page.get_by_text(text, exact=True).first).to_be_visible()
    page.wait_for_timeout(SECOND_NOTICE_WAIT_MS)
    shown = page.locator(TOASTS).all_inner_texts()
    assert [t.strip() for t in shown] == [text], shown


def slow_uploads(page, size: int, seconds: float = 4.0):
    """Throttle the page's uploads so that ``size`` bytes take about ``seconds``."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": 50,
            "downloadThroughput": -1,
            "uploadThroughput": max(1, int(size / seconds)),
        },
    )
    return cdp


def unthrottle(cdp) -> None:
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )


# -- progress ---------------------------------------------------------------------------
def test_home_says_processing_while_the_photo_uploads(page, app_server, files):
    open_page(page, f"{app_server.base_url}/")
    cdp = slow_uploads(page, files["portrait"].stat().st_size)
    file_input(page, "home-upload-zone").set_input_files(str(files["portrait"]))
    zone = page.get_by_test_id("home-upload-zone")
    expect(zone.get_by_text(messages.PROCESSING).first).to_be_visible(timeout=2_000)
    expect(zone.get_by_role("progressbar")).to_be_visible()
    unthrottle(cdp)
    wait_for_path(page, "/upload")
    expect(page.get_by_role("img", name="Your chosen photo")).to_be_visible()


def test_a_tap_on_get_my_score_while_the_photo_uploads_is_kept(page, app_server, files):
    open_page(page, f"{app_server.base_url}/upload")
    cdp = slow_uploads(page, files["portrait"].stat().st_size)
    file_input(page, "upload-zone").set_input_files(str(files["portrait"]))
    expect(page.get_by_text(messages.PROCESSING).first).to_be_visible(timeout=2_000)
    expect(page.get_by_role("progressbar")).to_be_visible()
    # Tapped while the photo travels: taken at once (not a spinner that ignores it), no
    # 'upload a photo first', and the score follows with no second tap.
    page.get_by_role("button", name=messages.GET_MY_SCORE).click(timeout=1_000)
    expect(page.get_by_role("button", name=messages.ANALYZING)).to_be_disabled()
    page.wait_for_timeout(500)
    expect(page.get_by_text(messages.PLEASE_UPLOAD_PHOTO_FIRST)).to_have_count(0)
    unthrottle(cdp)
    see_the_score(page)
    expect(page.get_by_text(messages.PLEASE_UPLOAD_PHOTO_FIRST)).to_have_count(0)


def score_waits_for_the_slow_photo(page, base: str, kind: str, photo, button: str) -> None:
    """On /{kind}-upload: a photo still travelling shows its progress, and the score
    button pressed meanwhile waits for it instead of asking for a photo."""
    open_page(page, f"{base}/{kind}-upload")
    cdp = slow_uploads(page, photo.stat().st_size)
    file_input(page, "upload-zone").set_input_files(str(photo))
    expect(page.get_by_text(messages.PROCESSING).first).to_be_visible(timeout=2_000)
    expect(page.get_by_role("progressbar")).to_be_visible()
    page.get_by_role("button", name=button).click(timeout=30_000)
    page.wait_for_timeout(500)
    expect(page.get_by_text(messages.PLEASE_UPLOAD_PHOTO_FIRST_NO_BANG)).to_have_count(0)
    unthrottle(cdp)
    wait_for_path(page, f"/{kind}-results")
    expect(page.get_by_test_id("body-results")).to_be_visible()


def test_hands_get_my_score_waits_for_a_photo_still_uploading(page, app_server, files):
    address = new_member(page, app_server.base_url, "hands-progress")
    make_premium(app_server, address)
    score_waits_for_the_slow_photo(
        page, app_server.base_url, "hands", files["hand"], messages.GET_MY_SCORE
    )


def test_pet_get_my_score_waits_for_a_photo_still_uploading(page, app_server, files):
    new_member(page, app_server.base_url, "pet-progress")
    score_waits_for_the_slow_photo(
        page, app_server.base_url, "pet", files["cat"], messages.GET_MY_PETS_SCORE
    )


def test_a_photo_that_arrives_before_word_of_its_upload_is_still_scored(page, app_server, files):
    """The page tells the server an upload is starting while the photo itself travels by
    another road; on a busy server the photo can arrive first. The late word must not
    leave the photo 'on its way' for ever."""
    held: list[str] = []

    def hold_upload_notices(ws):
        server = ws.connect_to_server()

        def from_page(message):
            if "upload_started" in str(message):
                held.append(message)
            else:
                server.send(message)

        ws.on_message(from_page)
        return server

    servers = []
    page.route_web_socket(
        re.compile(r"/_event"), lambda ws: servers.append(hold_upload_notices(ws))
    )
    open_page(page, f"{app_server.base_url}/upload")
    with page.expect_response(lambda response: "/_upload" in response.url):
        file_input(page, "upload-zone").set_input_files(str(files["portrait"]))
    expect(page.get_by_role("img", name="Your chosen photo")).to_be_visible()
    assert len(held) == 1
    servers[-1].send(held.pop())  # the word of the upload, after the photo
    page.wait_for_timeout(500)
    expect(page.get_by_text(messages.PROCESSING)).to_have_count(0)
    page.get_by_role("button", name=messages.GET_MY_SCORE).click(timeout=5_000)
    see_the_score(page)


# -- an upload the network drops ----------------------------------------------------------
@pytest.mark.parametrize(
    ("path", "test_id"), [("/", "home-upload-zone"), ("/upload", "upload-zone")]
)
def test_an_upload_the_network_drops_clears_processing_and_says_so(
    page, app_server, files, path, test_id
):
    open_page(page, f"{app_server.base_url}{path}")
    page.route("**/_upload**", lambda route: route.abort("internetdisconnected"))
    file_input(page, test_id).set_input_files(str(files["portrait"]))
    exactly_one_notice(page, messages.UPLOAD_FAILED)
    expect(page.get_by_text(messages.PROCESSING)).to_have_count(0)
    expect(page.get_by_role("img", name="Your chosen photo")).to_have_count(0)
    assert urlparse(page.url).path.rstrip("/") == path.rstrip("/")  # still here
    # With the connection back, a photo chosen again goes through.
    page.unroute("**/_upload**")
    file_input(page, test_id).set_input_files(str(files["hand"]))
    if path == "/":
        wait_for_path(page, "/upload")
    expect(page.get_by_role("img", name="Your chosen photo")).to_be_visible()


def test_an_upload_the_network_drops_on_the_pet_page_clears_processing(page, app_server, files):
    """The feet, hands and pet pages share one drop chain: the pet page stands for them."""
    new_member(page, app_server.base_url, "pet-dropped")
    open_page(page, f"{app_server.base_url}/pet-upload")
    page.route("**/_upload**", lambda route: route.abort("internetdisconnected"))
    file_input(page, "upload-zone").set_input_files(str(files["cat"]))
    exactly_one_notice(page, messages.UPLOAD_FAILED)
    expect(page.get_by_text(messages.PROCESSING)).to_have_count(0)
    expect(page.get_by_role("img", name="Your chosen photo")).to_have_count(0)
    page.unroute("**/_upload**")
    # Another file: the picker ignores the very file it already holds.
    file_input(page, "upload-zone").set_input_files(str(files["portrait"]))
    expect(page.get_by_role("img", name="Your chosen photo")).to_be_visible()


# -- one bad file, one notice -----------------------------------------------------------
@pytest.mark.parametrize(
    ("path", "test_id"), [("/", "home-upload-zone"), ("/upload", "upload-zone")]
)
def test_a_bad_file_gets_one_notice_on_home_and_upload(page, app_server, files, path, test_id):
    open_page(page, f"{app_server.base_url}{path}")
    file_input(page, test_id).set_input_files(str(files["too_large"]))
    exactly_one_notice(page, messages.FILE_TOO_LARGE)
    page.locator(TOASTS).first.wait_for(state="detached", timeout=10_000)
    file_input(page, test_id).set_input_files(str(files["text"]))
    exactly_one_notice(page, messages.PLEASE_UPLOAD_IMAGE_FILE)


@pytest.mark.parametrize("kind", ["feet", "hands"])
def test_a_bad_file_gets_one_notice_on_feet_and_hands(page, app_server, files, kind):
    base = app_server.base_url
    address = new_member(page, base, f"{kind}-notice")
    make_premium(app_server, address)
    open_page(page, f"{base}/{kind}-upload")
    file_input(page, "upload-zone").set_input_files(str(files["too_large"]))
    exactly_one_notice(page, messages.FILE_SIZE_LIMIT)
    page.locator(TOASTS).first.wait_for(state="detached", timeout=10_000)
    file_input(page, "upload-zone").set_input_files(str(files["text"]))
    exactly_one_notice(page, messages.PLEASE_UPLOAD_IMAGE_FILE)


def test_a_bad_file_gets_one_notice_on_the_video_page(page, app_server, files):
    base = app_server.base_url
    new_member(page, base, "video-notice")
    open_page(page, f"{base}/video-generation")
    expect(page.get_by_text(messages.VIDEO_TAKES_UP_TO, exact=False)).to_be_visible()
    file_input(page, "video-upload-zone").set_input_files(str(files["too_large"]))
    exactly_one_notice(page, messages.FILE_TOO_LARGE)
    page.locator(TOASTS).first.wait_for(state="detached", timeout=10_000)
    file_input(page, "video-upload-zone").set_input_files(str(files["text"]))
    exactly_one_notice(page, messages.PLEASE_UPLOAD_IMAGE_FILE)


# -- a file that claims to be an image but cannot be read -------------------------------
@pytest.mark.parametrize("name", ["renamed", "truncated", "empty"])
def test_an_unreadable_image_says_failed_to_read_on_upload(page, app_server, files, name):
    open_page(page, f"{app_server.base_url}/upload")
    file_input(page, "upload-zone").set_input_files(str(files[name]))
    exactly_one_notice(page, messages.FAILED_TO_READ_IMAGE)
    expect(page.get_by_role("img", name="Your chosen photo")).to_have_count(0)


def test_a_truncated_jpeg_says_failed_to_read_on_home(page, app_server, files):
    open_page(page, f"{app_server.base_url}/")
    file_input(page, "home-upload-zone").set_input_files(str(files["truncated"]))
    exactly_one_notice(page, messages.FAILED_TO_READ_IMAGE)
    assert page.url.rstrip("/") == app_server.base_url.rstrip("/")


# -- a good photo the storage cannot keep -----------------------------------------------
@contextlib.contextmanager
def storage_down(app_server):
    """The app's media folder unusable while inside: a plain file stands where it was."""
    media = app_server.data_dir / "media"
    away = media.with_name("media-away")
    media.mkdir(exist_ok=True)
    media.rename(away)
    media.write_text("not a folder")
    try:
        yield
    finally:
        media.unlink()
        away.rename(media)


def test_a_good_photo_the_storage_cannot_keep_says_so_and_a_retry_keeps_it(page, app_server, files):
    open_page(page, f"{app_server.base_url}/upload")
    with storage_down(app_server):
        file_input(page, "upload-zone").set_input_files(str(files["portrait"]))
        exactly_one_notice(page, messages.PHOTO_NOT_STORED)  # not "Failed to read image file"
        expect(page.get_by_role("img", name="Your chosen photo")).to_have_count(0)
    with page.expect_file_chooser() as chooser:  # the same file, picked again as a person does
        page.get_by_test_id("upload-zone").click()
    chooser.value.set_files(str(files["portrait"]))
    expect(page.get_by_role("img", name="Your chosen photo")).to_be_visible()


# -- one list of formats ----------------------------------------------------------------
def test_home_and_upload_name_the_same_formats(page, app_server):
    base = app_server.base_url
    open_page(page, f"{base}/")
    home = page.get_by_test_id("home-upload-zone").get_by_text(FORMATS_LINE).inner_text()
    open_page(page, f"{base}/upload")
    upload = page.get_by_test_id("upload-zone").get_by_text(FORMATS_LINE).inner_text()
    assert home == upload
    # The server decodes JPEG, PNG, WebP and GIF (constants.ACCEPTED_IMAGE_FORMATS).
    for name in ("JPG", "PNG", "WebP", "GIF"):
        assert name in home
