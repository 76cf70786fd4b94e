"""Face scoring in a real browser: the visitor's flow, the member's flow, bad uploads."""

from __future__ import annotations

import re

import httpx
import pytest
from PIL import Image
from playwright.sync_api import expect
from skimage import data
from sqlmodel import Session, select

from prettyscore.analysis import tiers
from prettyscore.core import constants, messages
from prettyscore.core.db import make_engine
from prettyscore.photos.models import Photo
from tests.e2e.flows import (
    choose_on_upload_page,
    fill_sign_up,
    lose_tab_state,
    new_member,
    open_page,
    score_from_upload_page,
    see_the_score,
    shown_explanation,
    unique_email,
    wait_for_path,
)
from tests.e2e.test_no_lost_click import HeldClicks, expect_no_answer_notice
from tests.e2e.test_phone_layout import measure

pytestmark = pytest.mark.e2e

SCORE_TEXT = re.compile(r"^(10|\d\.\d)$")


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    """Real photos as files a person would pick: a face, no face, and not an image."""
    folder = tmp_path_factory.mktemp("photos")

    def jpeg(name, pixels):
        path = folder / name
        Image.fromarray(pixels).save(path, format="JPEG", quality=92)
        return path

    fake = folder / "holiday.jpg"
    fake.write_text("this is a text file wearing a .jpg name")
    return {
        "face": jpeg("astronaut.jpg", data.astronaut()),
        "no_face": jpeg("coffee.jpg", data.coffee()),
        "not_an_image": fake,
    }


def stored_files(app_server) -> list:
    media = app_server.data_dir / "media"
    return [p for p in media.rglob("*") if p.is_file()] if media.exists() else []


def test_a_visitor_goes_from_home_to_a_score_with_every_panel(page, app_server, photos):
    base = app_server.base_url
    open_page(page, f"{base}/")
    page.get_by_test_id("home-upload-zone").locator("input[type=file]").set_input_files(
        str(photos["face"])
    )
    wait_for_path(page, "/upload")
    expect(page.get_by_role("img", name="Your chosen photo")).to_be_visible()
    expect(page.get_by_role("button", name=messages.CHANGE_PHOTO)).to_be_visible()

    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    expect(page.get_by_test_id("analyzing-overlay")).to_be_visible()
    see_the_score(page)

    results = page.get_by_test_id("results")
    expect(results.get_by_text("Score Breakdown")).to_be_visible()
    for bar in ("Overall", "Symmetry", "Skin Quality", "Facial Harmony"):
        expect(results.get_by_test_id("breakdown").get_by_text(bar, exact=True)).to_be_visible()
    expect(results.get_by_text(re.compile(r"\d\.\d/10")).first).to_be_visible()
    for option in ("Text/SMS", "Email", "X/Twitter", "Facebook", "Instagram", "TikTok"):
        expect(results.get_by_text(option, exact=True)).to_be_visible()
    expect(results.get_by_role("button", name=messages.SIGN_IN_TO_SAVE)).to_be_visible()
    expect(results.get_by_role("button", name="Try Again")).to_be_visible()

    with page.expect_download() as download:
        results.get_by_role("button", name="Download Result Card").click()
    name = download.value.suggested_filename
    assert re.fullmatch(r"pretty-score-(10|\d\.\d)\.png", name)
    card = Image.open(download.value.path())
    assert (card.format, card.size) == ("PNG", constants.RESULT_CARD_SIZE)
    expect(page.get_by_text(messages.RESULT_CARD_DOWNLOADED)).to_be_visible()


def test_a_visitors_photo_is_not_served_to_anyone_else(page, app_server, photos):
    base = app_server.base_url
    score_from_upload_page(page, base, photos["face"])
    src = page.get_by_role("img", name=messages.PHOTO_ALT).first.get_attribute("src")
    assert src.startswith("/media/v/")
    mine = page.request.get(f"{base}{src}")
    assert mine.status == 200 and mine.headers["content-type"] == "image/jpeg"
    assert httpx.get(f"{base}{src}").status_code == 404  # no cookie: someone else


def test_a_member_saves_a_result_and_finds_it_in_my_photos(page, app_server, photos):
    base = app_server.base_url
    new_member(page, base, "saver")
    expect(page.get_by_test_id("photo-count")).to_have_text("My Photos (0)")
    expect(page.get_by_role("link", name=messages.UPLOAD_YOUR_FIRST_PHOTO)).to_be_visible()

    score_from_upload_page(page, base, photos["face"])
    page.get_by_role("button", name="Save to My Photos").click()
    expect(page.get_by_text(messages.PHOTO_SAVED)).to_be_visible()
    expect(page.get_by_role("button", name="Saved")).to_be_disabled()

    open_page(page, f"{base}/dashboard")
    expect(page.get_by_test_id("photo-count")).to_have_text("My Photos (1)")
    card = page.get_by_test_id("photo-card")
    expect(card).to_have_count(1)
    for metric in ("Symmetry", "Skin Quality", "Facial Harmony"):
        expect(card.get_by_text(metric)).to_be_visible()
    card.click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("button", name="Download")).to_be_visible()
    expect(dialog.get_by_role("button", name="Edit Photo")).to_be_visible()
    with page.expect_download() as download:
        dialog.get_by_role("button", name="Download").click()
    assert re.fullmatch(
        r"pretty-score-(10|\d\.\d)-original\.png", download.value.suggested_filename
    )
    assert Image.open(download.value.path()).format == "PNG"


def test_a_visitor_signs_in_to_save_and_comes_back_to_the_same_result(page, app_server, photos):
    base = app_server.base_url
    score_from_upload_page(page, base, photos["face"])
    score = (
        page.get_by_test_id("results").get_by_text(re.compile(r"^\d\.\d/10$")).first.inner_text()
    )
    page.get_by_role("button", name=messages.SIGN_IN_TO_SAVE).click()
    wait_for_path(page, "/auth", "?next=/results")
    wait_until_ready_after_navigation(page)

    fill_sign_up(page, unique_email("returning"))
    wait_for_path(page, "/results")
    page.get_by_role("button", name="Save to My Photos").click()
    expect(page.get_by_text(messages.PHOTO_SAVED)).to_be_visible()
    open_page(page, f"{base}/dashboard")
    expect(page.get_by_test_id("photo-count")).to_have_text("My Photos (1)")
    expect(page.get_by_test_id("photo-card").get_by_test_id("photo-score")).to_have_text(
        "".join(score.split())
    )


@pytest.mark.postgres_redis
def test_a_score_on_screen_survives_its_tab_losing_its_state(page, app_server, photos):
    """Redis loses the tab's state while the member looks at their score (a restart with
    every key gone, an expiry): Save still saves that score, and a reload still shows
    it, where the page used to go home with the score gone."""
    if not app_server.redis_url:
        pytest.skip("the in-memory state manager keeps a tab's state while the app runs")
    base = app_server.base_url
    new_member(page, base, "kept")
    score_from_upload_page(page, base, photos["face"])
    score = page.get_by_test_id("results").get_by_text(re.compile(r"^\d\.\d/10$")).first
    shown = "".join(score.inner_text().split())

    lose_tab_state(app_server, page)
    page.get_by_role("button", name="Save to My Photos").click()
    expect(page.get_by_text(messages.PHOTO_SAVED)).to_be_visible()
    wait_for_path(page, "/results")
    expect(score).to_have_text(shown)

    lose_tab_state(app_server, page)
    page.reload()
    wait_for_path(page, "/results")
    expect(score).to_have_text(shown)
    open_page(page, f"{base}/dashboard")
    expect(page.get_by_test_id("photo-count")).to_have_text("My Photos (1)")
    expect(page.get_by_test_id("photo-card").get_by_test_id("photo-score")).to_have_text(shown)


def test_bad_uploads_get_their_message_leave_nothing_behind_and_the_page_stays_usable(
    page, app_server, photos
):
    base = app_server.base_url
    before = set(stored_files(app_server))
    open_page(page, f"{base}/upload")
    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    expect(page.get_by_text(messages.PLEASE_UPLOAD_PHOTO_FIRST)).to_be_visible()

    page.get_by_role("button", name=messages.TAKE_PHOTO).click()
    expect(page.get_by_text(messages.CAMERA_COMING_SOON)).to_be_visible()

    choose_on_upload_page(page, photos["not_an_image"])
    expect(page.get_by_text(messages.FAILED_TO_READ_IMAGE)).to_be_visible()
    assert set(stored_files(app_server)) == before

    choose_on_upload_page(page, photos["no_face"])
    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    expect(page.get_by_text(messages.NO_FACE_FOUND)).to_be_visible()
    assert page.url.rstrip("/").endswith("/upload")

    page.get_by_role("button", name=messages.CHANGE_PHOTO).click()
    choose_on_upload_page(page, photos["face"])
    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    wait_for_path(page, "/results")


def test_an_eleven_megabyte_photo_is_refused_before_it_is_sent(page, app_server, tmp_path):
    big = tmp_path / "huge.jpg"
    big.write_bytes(b"\xff\xd8\xff" + bytes(11 * 1024 * 1024))
    before = set(stored_files(app_server))
    open_page(page, f"{app_server.base_url}/upload")
    choose_on_upload_page(page, big)
    expect(page.get_by_text(messages.FILE_TOO_LARGE)).to_be_visible()
    assert set(stored_files(app_server)) == before
    expect(page.get_by_test_id("upload-zone")).to_be_visible()


def wait_until_ready_after_navigation(page) -> None:
    """After a redirect inside the app: the auth card of the new page is on screen."""
    expect(page.get_by_text(messages.AUTH_SUBTITLE)).to_be_visible()


def test_results_without_a_result_go_home(page, app_server):
    page.goto(f"{app_server.base_url}/results")
    wait_for_path(page, "/")


def listed_photos(app_server) -> list:
    engine = make_engine(app_server.database_url)
    try:
        with Session(engine) as db:
            return list(db.exec(select(Photo).where(Photo.public_listing)))
    finally:
        engine.dispose()


def test_a_member_joins_the_leaderboard_queue_from_the_opt_in_dialog(page, app_server, photos):
    base = app_server.base_url
    new_member(page, base, "star")
    score_from_upload_page(page, base, photos["face"])
    open_page(page, f"{base}/results?leaderboard=1")
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("Join the Leaderboard")).to_be_visible()

    dialog.get_by_role("button", name=messages.ADD_ME_TO_LEADERBOARD).click()
    expect(page.get_by_text(messages.PLEASE_ENTER_DISPLAY_NAME)).to_be_visible()
    name = f"Astro {unique_email('fan')[:12]}"
    dialog.get_by_placeholder("Display name").fill(name)
    dialog.get_by_placeholder("Short bio (optional)").fill("<b>Loves</b> rockets")
    dialog.get_by_role("button", name=messages.ADD_ME_TO_LEADERBOARD).click()
    expect(page.get_by_text(messages.ADDED_TO_LEADERBOARD_QUEUE)).to_be_visible()
    expect(dialog).to_be_hidden()

    mine = [photo for photo in listed_photos(app_server) if photo.display_name == name]
    assert len(mine) == 1
    assert (mine[0].is_verified, mine[0].bio) == (False, "<b>Loves</b> rockets")


def test_a_member_deletes_a_photo_and_its_file(page, app_server, photos):
    base = app_server.base_url
    new_member(page, base, "tidy")
    score_from_upload_page(page, base, photos["face"])
    page.get_by_role("button", name="Save to My Photos").click()
    expect(page.get_by_text(messages.PHOTO_SAVED)).to_be_visible()
    open_page(page, f"{base}/dashboard")
    src = page.get_by_test_id("photo-card").get_by_role("img").get_attribute("src")
    assert page.request.get(f"{base}{src}").status == 200

    page.get_by_test_id("photo-card").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Delete photo").click()
    expect(page.get_by_text(messages.PHOTO_DELETED)).to_be_visible()
    expect(page.get_by_test_id("photo-count")).to_have_text("My Photos (0)")
    assert page.request.get(f"{base}{src}").status == 404


def test_quick_and_custom_edits_show_the_slider_and_count_down(page, app_server, photos):
    base = app_server.base_url
    rescore = HeldClicks("rescore_edited", holding=False)
    page.route_web_socket(re.compile(r"/_event"), rescore.route)
    score_from_upload_page(page, base, photos["face"])
    left = page.get_by_test_id("free-edits-left")
    expect(left).to_contain_text(str(constants.FREE_EDITS))
    expect(page.get_by_label(messages.COMPARISON_SLIDER_LABEL)).to_have_count(0)

    page.get_by_role("button", name="Blur background").click()
    expect(page.get_by_text(messages.PHOTO_ENHANCED_REMAINING.format(n=4))).to_be_visible()
    expect(left).to_contain_text("4")
    expect(page.get_by_label(messages.COMPARISON_SLIDER_LABEL)).to_be_visible()

    edit_button = page.get_by_role("button", name="Edit", exact=True)
    expect(edit_button).to_be_disabled()  # nothing typed yet
    page.get_by_label("Editing instruction").fill("make it warmer")
    expect(edit_button).to_be_enabled()
    page.keyboard.press("Enter")
    expect(page.get_by_text(messages.PHOTO_EDITED_REMAINING.format(n=3))).to_be_visible()

    page.get_by_label("Editing instruction").fill("turn me into a dragon")
    expect(edit_button).to_be_enabled()
    edit_button.click()
    expect(page.get_by_text(messages.EDIT_NOT_SUPPORTED)).to_be_visible()
    expect(left).to_contain_text("3")  # a refused edit uses none

    # 'Score the edited photo' is busy from the press and says so when no answer comes.
    rescore.holding = True
    page.get_by_role("button", name="Score the edited photo").click()
    expect(page.get_by_role("button", name="Score the edited photo")).to_be_disabled()
    expect_no_answer_notice(page, "rescore_edited")
    rescore.release()
    wait_for_path(page, "/upload")
    expect(page.get_by_text(messages.PHOTO_ENHANCED_ANALYZE)).to_be_visible()
    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    see_the_score(page)


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


#: How the score follows from the bars, as the breakdown says it.
BREAKDOWN_SUM = re.compile(
    r"Your score: (?P<harmony>\d+\.\d) × (?P<harmony_share>\d+)% "
    r"\+ (?P<skin>\d+\.\d) × (?P<skin_share>\d+)%"
    r"(?: (?P<top_sign>[+−]) (?P<top>\d+\.\d) for the top of the scale)?"
    r"(?: (?P<photo_sign>[+−]) (?P<photo>\d+\.\d) for the photo)?"
    r" = (?P<score>\d+(?:\.\d)?)"
)


def shown_bars(breakdown, testid: str) -> list[tuple[str, float, str]]:
    """Each bar's name, value and share ("counts 72%", or "")."""
    rows = []
    for bar in breakdown.get_by_test_id(testid).all():
        meter = bar.get_by_role("progressbar")
        share = bar.get_by_test_id("breakdown-share")
        rows.append(
            (
                meter.get_attribute("aria-label"),
                float(meter.get_attribute("aria-valuenow")),
                share.inner_text() if share.count() else "",
            )
        )
    return rows


def tenths(sign: str | None, value: str | None) -> int:
    return 0 if value is None else (-1 if sign == "−" else 1) * round(10 * float(value))


def shown_breakdown(scope, score: float) -> dict:
    """The face's breakdown in ``scope`` (the results page, a saved photo's dialog), checked
    as a person reads it: the score's bars are the overall and the two counted parts with
    their shares; Symmetry stands below them, said not to count; the sum line under the
    bars adds the shown bars up to the shown ``score``."""
    breakdown = scope.get_by_test_id("breakdown")
    expect(breakdown.get_by_test_id("breakdown-sum")).to_be_visible()
    bars = shown_bars(breakdown, "breakdown-bar")
    assert [name for name, _, _ in bars] == ["Overall", "Facial Harmony", "Skin Quality"]
    (_, overall, no_share), (_, harmony, harmony_share), (_, skin, skin_share) = bars
    assert (overall, no_share) == (score, "")
    apart = breakdown.get_by_test_id("breakdown-apart")
    expect(apart.get_by_text(messages.BREAKDOWN_NOT_COUNTED)).to_be_visible()
    assert [name for name, _, _ in shown_bars(apart, "breakdown-apart-bar")] == ["Symmetry"]
    total = breakdown.get_by_test_id("breakdown-sum")
    last_bar = breakdown.get_by_test_id("breakdown-bar").last.bounding_box()
    assert last_bar["y"] + last_bar["height"] <= total.bounding_box()["y"]
    assert total.bounding_box()["y"] < apart.bounding_box()["y"]
    text = total.inner_text()
    line = BREAKDOWN_SUM.fullmatch(text)
    assert line, text
    assert (float(line["harmony"]), f"counts {line['harmony_share']}%") == (harmony, harmony_share)
    assert (float(line["skin"]), f"counts {line['skin_share']}%") == (skin, skin_share)
    assert float(line["score"]) == score
    # The arithmetic holds to the shown decimal (thousandths: tenths times percent).
    added = (
        round(10 * harmony) * int(line["harmony_share"])
        + round(10 * skin) * int(line["skin_share"])
        + 100 * tenths(line["top_sign"], line["top"])
        + 100 * tenths(line["photo_sign"], line["photo"])
    )
    assert abs(added - 100 * round(10 * score)) < 50, text
    return {"bars": bars, "apart": shown_bars(apart, "breakdown-apart-bar"), "sum": text}


def visible_count(locator) -> int:
    return sum(1 for index in range(locator.count()) if locator.nth(index).is_visible())


def shown_notes(panel) -> list[str]:
    notes = panel.get_by_test_id("explanation-note")
    expect(notes.first).to_be_visible()
    return [text.strip() for text in notes.all_inner_texts()]


def test_the_score_is_explained_on_a_phone_and_again_in_my_photos(
    page, app_server, photos, tmp_path
):
    base = app_server.base_url
    page.set_viewport_size({"width": 390, "height": 844})
    new_member(page, base, "explained")
    score_from_upload_page(page, base, photos["face"])

    # The breakdown says which parts count, how much, and how they make the score; the
    # label is said once, in the badge under the score.
    results = page.get_by_test_id("results")
    score = float(results.get_by_test_id("score-value").inner_text())
    breakdown = shown_breakdown(results, score)
    label = tiers.tier_for(score).label
    assert visible_count(results.get_by_text(label, exact=True)) == 1
    expect(results.get_by_test_id("tier-badge")).to_contain_text(label)
    layout = measure(page)
    assert layout["scroll"] <= layout["inner"], layout["found"]

    panel, picture = shown_explanation(page)
    assert picture.evaluate("img => img.naturalWidth") > 0
    on_results = shown_notes(panel)
    assert any(
        re.match(r"Skin evenness: tone varies \d+\.\d\d% of the light .*\(counts \d+%\)", n)
        for n in on_results
    )
    assert any(
        re.match(r"Overall impression: learned from 2,513 people's ratings .*\(counts \d+%\)", n)
        for n in on_results
    )
    assert any(re.match(r"This photo: \d+\.\d out of 10 \(light ", n) for n in on_results)
    assert not any("golden ratio" in note for note in on_results)
    assert no_sideways_scroll(page)
    panel.screenshot(path=tmp_path / "explanation-phone.png")

    page.get_by_role("button", name="Save to My Photos").click()
    expect(page.get_by_text(messages.PHOTO_SAVED)).to_be_visible()
    page.reload()
    expect(page.get_by_test_id("explanation")).to_be_visible()
    assert shown_notes(page.get_by_test_id("explanation")) == on_results

    open_page(page, f"{base}/dashboard")
    page.get_by_test_id("photo-card").click()
    details = page.get_by_role("dialog").get_by_test_id("explanation")
    assert shown_notes(details) == on_results
    expect(details.get_by_role("img", name=messages.MEASURED_LINES_ALT)).to_have_js_property(
        "complete", True
    )
    # The saved photo's details show the same breakdown and sum.
    assert shown_breakdown(page.get_by_role("dialog"), score) == breakdown
    assert no_sideways_scroll(page)
    layout = measure(page)
    assert layout["scroll"] <= layout["inner"], layout["found"]
