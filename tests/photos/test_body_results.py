"""Feet, hands and pet results: what each results page shows (or where it sends the
browser instead), saving once to My Photos, and the 600×800 card."""

from __future__ import annotations

import io
import secrets
from datetime import timedelta

import pytest
from PIL import Image
from skimage import data as skdata
from sqlmodel import select

from prettyscore.accounts import service as accounts
from prettyscore.analysis.kinds import BREAKDOWN_KEYS, FEET, HANDS, PET, label_for
from prettyscore.analysis.service import ScoreResult
from prettyscore.billing.models import Subscription
from prettyscore.core import constants, messages
from prettyscore.core.errors import PermissionDenied, ValidationFailed
from prettyscore.core.media import MediaOwner, MediaStore, key_from_url
from prettyscore.core.model_types import utcnow
from prettyscore.gates import service as gates
from prettyscore.gates.models import FeatureUsage
from prettyscore.photos.models import Photo
from prettyscore.photos.state import photo_card
from prettyscore.scoring import body_service

FEET_BREAKDOWN = {
    "toeSymmetry": 8.1,
    "archQuality": 9.0,
    "skinAppearance": 7.6,
    "overallAesthetics": 8.4,
}
HANDS_BREAKDOWN = {
    "fingerProportions": 7.9,
    "skinQuality": 8.8,
    "nailAppearance": 9.3,
    "overallAesthetics": 8.0,
}
BREAKDOWNS = {
    FEET: FEET_BREAKDOWN,
    HANDS: HANDS_BREAKDOWN,
    PET: {"faceVisibility": 9, "photoClarity": 8, "colorCharm": 9, "overallCuteness": 9},
}


def staged_photo(store: MediaStore) -> str:
    buffer = io.BytesIO()
    Image.fromarray(skdata.astronaut()).save(buffer, format="JPEG", quality=90)
    owner = MediaOwner.visitor(secrets.token_urlsafe(16))
    return store.save(buffer.getvalue(), owner=owner, ext="jpg")


def result_of(store: MediaStore, kind: str, score: float = 8.3) -> ScoreResult:
    """A result as the analysis leaves it for the tab (label from the kind's table)."""
    label = label_for(kind, score)
    return ScoreResult(
        result_id=secrets.token_urlsafe(12),
        image_key=staged_photo(store),
        score=score,
        label=label.label,
        tier_key=kind,
        emoji=label.emoji,
        color=label.color,
        breakdown=dict(BREAKDOWNS[kind]),
        special_panel="",
        kind=kind,
    )


def member(db, name: str, *, premium: bool = False):
    user_id = accounts.sign_up(db, f"{name}@example.com", "secret1").user_id
    if premium:
        db.add(Subscription(user_id=user_id, expires_at=utcnow() + timedelta(days=30)))
    db.flush()
    return user_id


# ---------------------------------------------------------------------------
# What the results pages show
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", [FEET, HANDS, PET])
def test_without_a_result_a_results_page_goes_back_to_its_upload_page(db, kind):
    uid = member(db, "nothing")
    assert body_service.result_to_show(db, uid, kind, None) is None
    assert body_service.result_to_show(db, None, kind, {}) is None
    assert body_service.UPLOAD_ROUTES[kind] == f"/{kind}-upload"
    assert body_service.RESULTS_ROUTES[kind] == f"/{kind}-results"


@pytest.mark.parametrize("kind", [FEET, PET])
def test_feet_and_pets_need_a_score_as_well_as_the_image(db, store, kind):
    navigation = body_service.photo_navigation(staged_photo(store))
    assert body_service.result_to_show(db, member(db, "half"), kind, navigation) is None


@pytest.mark.parametrize("kind", [FEET, HANDS, PET])
def test_an_analysed_result_is_shown_as_the_server_keeps_it(db, store, kind):
    result = result_of(store, kind)
    navigation = body_service.result_navigation(result)
    assert body_service.result_to_show(db, None, kind, navigation) == result
    assert db.exec(select(FeatureUsage)).all() == []  # shown again, not scored again


def test_a_hands_photo_without_a_score_reads_85_and_that_is_a_use_of_the_gate(db, store):
    uid = member(db, "handsy", premium=True)
    key = staged_photo(store)
    shown = body_service.result_to_show(db, uid, HANDS, body_service.photo_navigation(key))
    assert (shown.kind, shown.image_key, shown.score) == (HANDS, key, 85.0)
    assert (shown.label, body_service.score_text(shown)) == ("Perfect Hands", "85")
    assert shown.breakdown == dict.fromkeys(BREAKDOWN_KEYS[HANDS], 10.0)
    assert body_service.card_filename(shown) == "hands-score-85.png"
    assert body_service.celebrates(shown)
    uses = db.exec(select(FeatureUsage.feature_name)).all()
    assert uses == [gates.HANDS_SCORING]


def test_the_hands_default_needs_the_gates_access_like_any_score(db, store):
    navigation = body_service.photo_navigation(staged_photo(store))
    with pytest.raises(PermissionDenied):
        body_service.result_to_show(db, member(db, "nohands"), HANDS, navigation)
    assert body_service.result_to_show(db, None, HANDS, navigation) is None


def test_the_bars_name_each_kinds_own_sub_scores_and_confetti_starts_at_8_5(store):
    feet = result_of(store, FEET, 8.4)
    assert body_service.breakdown_rows(feet) == [
        {"name": "Toe Symmetry", "value": 8.1},
        {"name": "Arch Quality", "value": 9.0},
        {"name": "Skin Appearance", "value": 7.6},
        {"name": "Overall Aesthetics", "value": 8.4},
    ]
    assert not body_service.celebrates(feet)
    assert body_service.celebrates(result_of(store, FEET, 8.5))
    text = body_service.share_text(feet)
    assert "8.4/10" in text and feet.label in text


# ---------------------------------------------------------------------------
# Saving
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", [FEET, HANDS])
def test_a_save_keeps_the_kind_and_its_breakdown_once(db, store, kind):
    uid = member(db, f"saver-{kind}")
    result = result_of(store, kind, 9.1)
    first = body_service.save_body_result(db, store, uid, result)
    again = body_service.save_body_result(db, store, uid, result)
    assert first.id == again.id
    rows = db.exec(select(Photo).where(Photo.user_id == uid)).all()
    assert len(rows) == 1
    photo = rows[0]
    assert (photo.photo_type, photo.score, photo.rating_label) == (kind, 9.1, "Exceptional")
    assert photo.breakdown == BREAKDOWNS[kind]
    assert (photo.public_listing, photo.edited_image_url) == (False, None)
    key = key_from_url(photo.original_image_url)
    assert key.startswith(f"u/{uid}/") and store.read(key) == store.read(result.image_key)


def test_pet_results_are_not_saved(db, store):
    uid = member(db, "petsaver")
    with pytest.raises(ValidationFailed) as raised:
        body_service.save_body_result(db, store, uid, result_of(store, PET))
    assert raised.value.message == messages.FAILED_TO_SAVE_RESULTS
    assert db.exec(select(Photo)).all() == []


def test_my_photos_shows_a_hands_photo_with_the_hands_sub_scores(db, store):
    uid = member(db, "album")
    photo = body_service.save_body_result(db, store, uid, result_of(store, HANDS, 8.8))
    card = photo_card(photo)
    assert card.kind_title == messages.TITLE_HANDS_UPLOAD
    assert [(m.name, m.value) for m in card.metrics] == [
        ("Finger Proportions", "7.9"),
        ("Skin Quality", "8.8"),
        ("Nail Appearance", "9.3"),
        ("Overall Aesthetics", "8.0"),
    ]


# ---------------------------------------------------------------------------
# The card
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "score", "name"),
    [(FEET, 8.3, "feet-score-8.3.png"), (HANDS, 10, "hands-score-10.png")],
)
def test_the_card_is_a_600_by_800_png_named_for_its_kind(store, kind, score, name):
    result = result_of(store, kind, score)
    png = body_service.render_card(store, result)
    card = Image.open(io.BytesIO(png))
    assert (
        (card.format, card.size) == ("PNG", constants.BODY_RESULT_CARD_SIZE) == ("PNG", (600, 800))
    )
    assert body_service.card_filename(result) == name


def test_feet_and_hands_cards_say_what_was_scored(store):
    feet = result_of(store, FEET, 8.3)
    hands = ScoreResult(**{**feet.to_dict(), "kind": HANDS, "breakdown": HANDS_BREAKDOWN})
    feet_card = Image.open(io.BytesIO(body_service.render_card(store, feet)))
    hands_card = Image.open(io.BytesIO(body_service.render_card(store, hands)))
    title_band = (0, 70, 600, 100)  # under the brand, above the photo
    assert feet_card.crop(title_band).tobytes() != hands_card.crop(title_band).tobytes()
