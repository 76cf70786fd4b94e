"""Feet, hands and pet scores in a real browser: a free member's one feet trial on a
phone (a portrait refused as no feet, at no cost), a premium member's hands score saved
to My Photos, and pets for members only."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest
from PIL import Image
from playwright.sync_api import expect
from skimage import data
from sqlmodel import select

from prettyscore.billing.models import Subscription
from prettyscore.core import constants, messages
from prettyscore.core.model_types import utcnow
from prettyscore.gates import service as gates
from prettyscore.gates.models import FeatureUsage
from prettyscore.photos.models import Photo
from tests.e2e.flows import (
    astronaut_jpeg,
    lose_tab_state,
    member_id,
    new_member,
    open_page,
    wait_for_path,
    with_app_database,
)
from tests.fixtures.body_photos import Scene, feet, real_hand

pytestmark = pytest.mark.e2e

SCORE = re.compile(r"^(10|\d(\.\d)?)$")  # 8.3, 9, 10
PHONE = (390, 844)


def shown(score: float) -> str:
    return f"{score:.1f}".removesuffix(".0")


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    """Photos as a person would pick them: a portrait, a hand, a cat (real photos) and
    feet (drawn: there is no real photo of feet to test on)."""
    folder = tmp_path_factory.mktemp("body-photos")
    cat = folder / "chelsea.jpg"
    Image.fromarray(data.chelsea()).save(cat, format="JPEG", quality=92)
    hand = folder / "hand.jpg"
    Image.fromarray(real_hand("adult-palm")).save(hand, format="JPEG", quality=92)
    bare_feet = folder / "feet.jpg"
    Image.fromarray(feet(Scene(skin="deep"))).save(bare_feet, format="JPEG", quality=92)
    return {"person": astronaut_jpeg(folder), "cat": cat, "hand": hand, "feet": bare_feet}


def make_premium(app_server, address: str) -> uuid.UUID:
    with with_app_database(app_server) as db:
        user_id = member_id(db, address)
        db.add(Subscription(user_id=user_id, expires_at=utcnow() + timedelta(days=30)))
    return user_id


def saved_photos(app_server, address: str) -> list[Photo]:
    with with_app_database(app_server) as db:
        query = select(Photo).where(Photo.user_id == member_id(db, address))
        return list(db.exec(query).all())


def uses(app_server, address: str, feature: str) -> int:
    with with_app_database(app_server) as db:
        query = select(FeatureUsage).where(
            FeatureUsage.user_id == member_id(db, address), FeatureUsage.feature_name == feature
        )
        return len(db.exec(query).all())


def choose_from_gallery(page, path) -> None:
    page.get_by_test_id("upload-zone").locator("input[type=file]").set_input_files(str(path))
    expect(page.get_by_role("img", name=messages.CHOSEN_PHOTO_ALT)).to_be_visible()


def get_the_score(page, button: str, results_path: str) -> None:
    """Press the score button: the check lines show with the button disabled, then the
    results page opens."""
    page.get_by_role("button", name=button).click()
    expect(page.get_by_test_id("analyzing-card")).to_be_visible()
    expect(page.get_by_role("button", name=messages.ANALYZING)).to_be_disabled()
    wait_for_path(page, results_path)


def test_a_free_member_uses_the_feet_trial_once_and_is_then_offered_premium(
    new_context, app_server, photos
):
    base = app_server.base_url
    page = new_context(viewport=PHONE).new_page()
    address = new_member(page, base, "feet")
    open_page(page, f"{base}/feet-upload")
    locked = page.get_by_test_id("gate-locked")
    expect(locked.get_by_text(messages.GATE_PREMIUM_REQUIRED_TITLE)).to_be_visible()
    locked.get_by_role("button", name=messages.GATE_ACTIVATE_FREE_TRIAL).click()
    expect(page.get_by_text(messages.TRIAL_ACTIVATED)).to_be_visible()

    upload = page.get_by_test_id("feet-upload")
    expect(upload.get_by_role("heading", name=messages.TITLE_FEET_UPLOAD)).to_be_visible()
    upload.get_by_role("button", name=messages.GET_MY_SCORE).click()
    expect(page.get_by_text(messages.PLEASE_UPLOAD_PHOTO_FIRST_NO_BANG)).to_be_visible()

    # A portrait shows no feet: the analysis refuses it, the trial is not spent and
    # nothing is saved.
    choose_from_gallery(page, photos["person"])
    upload.get_by_role("button", name=messages.GET_MY_SCORE).click()
    expect(page.get_by_text(messages.NO_FEET_FOUND)).to_be_visible()
    wait_for_path(page, "/feet-upload")
    expect(locked).to_have_count(0)
    assert uses(app_server, address, gates.FEET_SCORING) == 0
    assert saved_photos(app_server, address) == []

    upload.get_by_role("button", name=messages.CHANGE_PHOTO).click()
    choose_from_gallery(page, photos["feet"])
    get_the_score(page, messages.GET_MY_SCORE, "/feet-results")

    results = page.get_by_test_id("body-results")
    expect(results.get_by_role("heading", name=messages.FEET_RESULTS_TITLE)).to_be_visible()
    expect(results.get_by_test_id("score-value")).to_have_text(SCORE)
    for name in ("Toe Symmetry", "Arch Quality", "Skin Appearance", "Overall Aesthetics"):
        expect(results.get_by_role("progressbar", name=name)).to_be_visible()
    expect(results.get_by_role("link", name=messages.SCORE_YOUR_FACE)).to_have_attribute(
        "href", "/upload"
    )
    expect(results.get_by_role("link", name=messages.SCORE_YOUR_HANDS)).to_have_attribute(
        "href", "/hands-upload"
    )
    score = results.get_by_test_id("score-value").inner_text()

    with page.expect_download() as download:
        results.get_by_role("button", name=messages.DOWNLOAD_RESULT_CARD).click()
    assert download.value.suggested_filename == f"feet-score-{score}.png"
    card = Image.open(download.value.path())
    assert (card.format, card.size) == ("PNG", constants.BODY_RESULT_CARD_SIZE)
    expect(page.get_by_text(messages.RESULT_CARD_DOWNLOADED)).to_be_visible()

    results.get_by_role("button", name=messages.SAVE_TO_DASHBOARD).click()
    expect(page.get_by_text(messages.RESULTS_SAVED)).to_be_visible()
    expect(results.get_by_role("button", name=messages.SAVE_TO_DASHBOARD)).to_have_count(0)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    results.get_by_role("button", name=messages.SHARE_HEADING).click()
    expect(page.get_by_text(messages.SHARE_TEXT_COPIED_SHORT, exact=True)).to_be_visible()
    label = results.get_by_test_id("score-label").inner_text()
    assert f"{score}/10 ({label})" in page.evaluate("navigator.clipboard.readText()")
    [photo] = saved_photos(app_server, address)
    assert (photo.photo_type, shown(photo.score)) == ("feet", score)
    assert list(photo.breakdown) == [
        "toeSymmetry",
        "archQuality",
        "skinAppearance",
        "overallAesthetics",
    ]
    assert uses(app_server, address, gates.FEET_SCORING) == 1

    results.get_by_role("link", name=messages.TRY_ANOTHER_PHOTO).click()
    wait_for_path(page, "/feet-upload")
    expect(locked.get_by_text(messages.GATE_TRIAL_USED_TITLE)).to_be_visible()
    expect(locked.get_by_role("link", name=messages.GATE_UPGRADE_TO_PREMIUM)).to_have_attribute(
        "href", "/premium"
    )
    expect(locked.get_by_role("button", name=messages.GATE_ACTIVATE_FREE_TRIAL)).to_have_count(0)
    expect(page.get_by_test_id("upload-zone")).to_have_count(0)


def test_a_premium_member_scores_hands_from_the_camera_and_finds_them_in_my_photos(
    page, app_server, photos
):
    base = app_server.base_url
    address = new_member(page, base, "hands")
    make_premium(app_server, address)
    open_page(page, f"{base}/hands-upload")
    upload = page.get_by_test_id("hands-upload")
    expect(upload.get_by_role("heading", name=messages.TITLE_HANDS_UPLOAD)).to_be_visible()
    camera = page.get_by_test_id("camera-picker").locator("input[type=file]")
    expect(camera).to_have_attribute("capture", "environment")
    camera.set_input_files(str(photos["hand"]))
    expect(page.get_by_role("img", name=messages.CHOSEN_PHOTO_ALT)).to_be_visible()
    expect(upload.get_by_role("button", name=messages.CHANGE_PHOTO)).to_be_visible()
    get_the_score(page, messages.GET_MY_SCORE, "/hands-results")

    results = page.get_by_test_id("body-results")
    expect(results.get_by_role("heading", name=messages.HANDS_RESULTS_TITLE)).to_be_visible()
    expect(results.get_by_role("link", name=messages.SCORE_YOUR_FEET)).to_have_attribute(
        "href", "/feet-upload"
    )
    score = results.get_by_test_id("score-value").inner_text()
    results.get_by_role("button", name=messages.SAVE_TO_DASHBOARD).click()
    expect(page.get_by_text(messages.RESULTS_SAVED)).to_be_visible()
    expect(results.get_by_role("button", name=messages.SAVE_TO_DASHBOARD)).to_have_count(0)
    page.reload()  # saved once: the button stays hidden
    expect(results.get_by_test_id("score-value")).to_have_text(score)
    expect(results.get_by_role("button", name=messages.SAVE_TO_DASHBOARD)).to_have_count(0)

    open_page(page, f"{base}/dashboard")
    card = page.get_by_test_id("photo-card")
    expect(card).to_have_count(1)
    expect(card.get_by_text(messages.TITLE_HANDS_UPLOAD)).to_be_visible()
    for metric in ("Finger Proportions", "Skin Quality", "Nail Appearance", "Overall Aesthetics"):
        expect(card.get_by_text(metric)).to_be_visible()
    expect(card.get_by_text("Symmetry", exact=True)).to_have_count(0)
    [photo] = saved_photos(app_server, address)
    assert (photo.photo_type, shown(photo.score)) == ("hands", score)

    # A chosen photo that reaches the results page without a score reads as 85.
    open_page(page, f"{base}/hands-upload")
    choose_from_gallery(page, photos["person"])
    open_page(page, f"{base}/hands-results")
    expect(results.get_by_test_id("score-value")).to_have_text("85")
    expect(results.get_by_test_id("score-label")).to_have_text("Perfect Hands")
    assert uses(app_server, address, gates.HANDS_SCORING) == 2

    # A portrait has no hand to measure: refused, and no use is counted.
    open_page(page, f"{base}/hands-upload")
    page.get_by_role("button", name=messages.CHANGE_PHOTO).click()
    choose_from_gallery(page, photos["person"])
    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    expect(page.get_by_text(messages.NO_HAND_FOUND)).to_be_visible()
    assert uses(app_server, address, gates.HANDS_SCORING) == 2


@pytest.mark.postgres_redis
def test_a_hands_score_on_screen_survives_its_tab_losing_its_state(page, app_server, photos):
    """Redis loses the tab's state while the member looks at their hands score: Save
    still saves that score once, and a reload still shows it, saved."""
    if not app_server.redis_url:
        pytest.skip("the in-memory state manager keeps a tab's state while the app runs")
    base = app_server.base_url
    address = new_member(page, base, "kept-hands")
    make_premium(app_server, address)
    open_page(page, f"{base}/hands-upload")
    choose_from_gallery(page, photos["hand"])
    get_the_score(page, messages.GET_MY_SCORE, "/hands-results")
    results = page.get_by_test_id("body-results")
    score = results.get_by_test_id("score-value").inner_text()

    lose_tab_state(app_server, page)
    results.get_by_role("button", name=messages.SAVE_TO_DASHBOARD).click()
    expect(page.get_by_text(messages.RESULTS_SAVED)).to_be_visible()
    wait_for_path(page, "/hands-results")

    lose_tab_state(app_server, page)
    page.reload()
    wait_for_path(page, "/hands-results")
    expect(results.get_by_test_id("score-value")).to_have_text(score)
    expect(results.get_by_role("button", name=messages.SAVE_TO_DASHBOARD)).to_have_count(0)
    [photo] = saved_photos(app_server, address)
    assert (photo.photo_type, shown(photo.score)) == ("hands", score)


def test_a_member_scores_a_pet_and_visitors_are_asked_to_sign_in(
    page, app_server, photos, new_context, tmp_path
):
    base = app_server.base_url
    visitor = new_context().new_page()
    visitor.goto(f"{base}/pet-upload")
    wait_for_path(visitor, "/auth", "?next=/pet-upload")
    expect(visitor.get_by_text(messages.SIGN_IN_TO_ACCESS_FEATURE)).to_be_visible()

    new_member(page, base, "pets")
    open_page(page, f"{base}/pet-results")  # nothing scored yet
    wait_for_path(page, "/pet-upload")
    upload = page.get_by_test_id("pet-upload")
    expect(upload.get_by_role("heading", name=messages.TITLE_PET_UPLOAD)).to_be_visible()
    expect(upload.get_by_text(messages.FREE_FOR_ALL_USERS)).to_be_visible()

    too_big = tmp_path / "huge.jpg"
    too_big.write_bytes(b"\xff\xd8\xff" + bytes(11 * 1024 * 1024))
    page.get_by_test_id("upload-zone").locator("input[type=file]").set_input_files(str(too_big))
    expect(page.get_by_text(messages.FILE_SIZE_LIMIT)).to_be_visible()

    choose_from_gallery(page, photos["cat"])
    get_the_score(page, messages.GET_MY_PETS_SCORE, "/pet-results")
    results = page.get_by_test_id("body-results")
    score = results.get_by_test_id("score-value").inner_text()
    assert SCORE.match(score)
    expect(results.get_by_text(messages.OUT_OF_10, exact=True)).to_be_visible()
    expect(results.get_by_text(messages.PET_SCORED.format(score=score))).to_be_visible()
    results.get_by_role("button", name=messages.SHARE_RESULTS).click()
    expect(page.get_by_text(messages.SHARE_COMING_SOON)).to_be_visible()
    results.get_by_role("button", name=messages.DOWNLOAD, exact=True).click()
    expect(page.get_by_text(messages.DOWNLOAD_COMING_SOON)).to_be_visible()
    expect(results.get_by_role("button", name=messages.SAVE_TO_DASHBOARD)).to_have_count(0)

    results.get_by_role("link", name=messages.TRY_ANOTHER_PHOTO).click()
    wait_for_path(page, "/pet-upload")
    expect(page.get_by_test_id("upload-zone")).to_be_visible()
