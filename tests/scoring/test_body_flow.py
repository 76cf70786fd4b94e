"""The feet, hands and pet flow on the server, on real photos and a real database: the
upload's checks and messages, who may score, and the feature gate's use of each score."""

from __future__ import annotations

import io
from datetime import timedelta

import numpy as np
import pytest
from PIL import Image
from sqlmodel import select

from prettyscore.accounts import service as accounts
from prettyscore.analysis.kinds import BREAKDOWN_KEYS, FEET, HANDS, PET, label_for
from prettyscore.billing.models import Subscription
from prettyscore.core import constants, messages
from prettyscore.core.errors import NotAuthenticated, PermissionDenied, ValidationFailed
from prettyscore.core.media import MediaOwner, MediaStore
from prettyscore.core.model_types import utcnow
from prettyscore.gates import service as gates
from prettyscore.gates.models import FeatureUsage
from prettyscore.scoring import body_service
from tests.fixtures.body_photos import Scene, feet, real_hand
from tests.fixtures.photos import astronaut, chelsea, coffee


@pytest.fixture
def owner() -> MediaOwner:
    return MediaOwner.visitor("a-browser-secret-for-body-tests")


def jpeg(pixels: np.ndarray, **save_args) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="JPEG", quality=92, **save_args)
    return buffer.getvalue()


def files_under(store: MediaStore) -> list:
    return [p for p in store.root.rglob("*") if p.is_file()] if store.root.exists() else []


def member(db, name: str):
    user_id = accounts.sign_up(db, f"{name}@example.com", "secret1").user_id
    db.commit()
    return user_id


def premium_member(db, name: str):
    user_id = member(db, name)
    db.add(Subscription(user_id=user_id, expires_at=utcnow() + timedelta(days=30)))
    db.commit()
    return user_id


def uses(db, user_id, feature: str) -> int:
    db.expire_all()
    query = select(FeatureUsage).where(
        FeatureUsage.user_id == user_id, FeatureUsage.feature_name == feature
    )
    return len(db.exec(query).all())


# ---------------------------------------------------------------------------
# The upload's checks
# ---------------------------------------------------------------------------
def test_a_chosen_photo_is_kept_for_the_browser_without_its_exif(store, owner):
    exif = Image.Exif()
    exif[0x8825] = {2: (51.0, 30.0, 0.0)}  # a GPS position the stored photo must not keep
    exif[0x010F] = "PhoneMaker"
    key = body_service.stage_body_photo(store, owner, jpeg(astronaut(), exif=exif))
    assert key.startswith("v/")
    stored = Image.open(io.BytesIO(store.read(key)))
    assert stored.size == (512, 512)
    assert len(stored.getexif()) == 0


def test_a_photo_over_10mb_gets_the_pages_own_message_and_nothing_is_written(store, owner):
    too_big = jpeg(astronaut()) + bytes(constants.MAX_UPLOAD_BYTES)
    with pytest.raises(ValidationFailed) as raised:
        body_service.stage_body_photo(store, owner, too_big)
    assert raised.value.message == messages.FILE_SIZE_LIMIT
    assert files_under(store) == []


@pytest.mark.parametrize(
    ("data", "name", "text"),
    [
        (b"%PDF-1.7 not a photo at all", "paper.pdf", messages.PLEASE_UPLOAD_IMAGE_FILE),
        (b"", None, messages.PLEASE_UPLOAD_IMAGE_FILE),
        (jpeg(astronaut())[:5000], None, messages.FAILED_TO_READ_IMAGE),
        (b"", "empty.jpg", messages.FAILED_TO_READ_IMAGE),
    ],
    ids=["a document", "nothing", "a truncated photo", "an empty photo"],
)
def test_what_is_not_a_whole_image_is_refused_and_nothing_is_written(
    store, owner, data, name, text
):
    with pytest.raises(ValidationFailed) as raised:
        body_service.stage_body_photo(store, owner, data, name=name)
    assert raised.value.message == text
    assert files_under(store) == []


def test_a_decompression_bomb_is_refused_from_its_header(store, owner):
    buffer = io.BytesIO()
    Image.new("1", (10_000, 10_000)).save(buffer, format="PNG")  # 100 MP in a few kB
    with pytest.raises(ValidationFailed) as raised:
        body_service.stage_body_photo(store, owner, buffer.getvalue())
    assert raised.value.message == messages.IMAGE_TOO_LARGE_DIMENSIONS
    assert files_under(store) == []


# ---------------------------------------------------------------------------
# Who may score
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", [FEET, HANDS, PET])
def test_visitors_are_asked_to_sign_in_for_every_kind(db, kind):
    with pytest.raises(NotAuthenticated) as raised:
        body_service.check_may_score(db, None, kind)
    assert raised.value.message == messages.SIGN_IN_TO_ACCESS_FEATURE


def test_pets_are_free_for_every_member_and_feet_and_hands_need_the_gate(db):
    uid = member(db, "free")
    body_service.check_may_score(db, uid, PET)
    for kind in (FEET, HANDS):
        with pytest.raises(PermissionDenied) as raised:
            body_service.check_may_score(db, uid, kind)
        assert raised.value.code == gates.PREMIUM_REQUIRED


def test_an_unknown_kind_is_refused(db):
    with pytest.raises(ValidationFailed):
        body_service.check_may_score(db, member(db, "odd"), "elbows")


# ---------------------------------------------------------------------------
# Analysing, and the gate's use
# ---------------------------------------------------------------------------
def test_a_free_members_trial_gives_one_feet_score_and_is_then_used_up(
    db, db_factory, store, owner
):
    uid = member(db, "trial")
    gates.activate_trial(db, uid, gates.FEET_SCORING)
    db.commit()
    key = body_service.stage_body_photo(store, owner, jpeg(feet(Scene(skin="deep"))))

    result = body_service.analyse_for_member(db_factory, store, uid, key, FEET)
    assert result.kind == FEET and result.image_key == key
    assert tuple(result.breakdown) == BREAKDOWN_KEYS[FEET]
    assert result.label == label_for(FEET, result.score).label
    assert uses(db, uid, gates.FEET_SCORING) == 1
    access = gates.check_feature_access(db, uid, gates.FEET_SCORING)
    assert (access.has_access, access.reason) == (False, gates.TRIAL_EXCEEDED)

    with pytest.raises(PermissionDenied) as raised:
        body_service.analyse_for_member(db_factory, store, uid, key, FEET)
    assert raised.value.code == gates.TRIAL_EXCEEDED
    assert uses(db, uid, gates.FEET_SCORING) == 1
    # the hands trial is its own
    assert gates.check_feature_access(db, uid, gates.HANDS_SCORING).trial_remaining == 1


def test_a_premium_member_scores_hands_as_often_as_they_like_each_use_recorded(
    db, db_factory, store, owner
):
    uid = premium_member(db, "premium")
    key = body_service.stage_body_photo(store, owner, jpeg(real_hand("adult-palm")))
    first = body_service.analyse_for_member(db_factory, store, uid, key, HANDS)
    second = body_service.analyse_for_member(db_factory, store, uid, key, HANDS)
    assert (first.score, first.breakdown) == (second.score, second.breakdown)
    assert first.result_id != second.result_id
    assert [row["name"] for row in body_service.breakdown_rows(first)] == [
        "Finger Proportions",
        "Skin Quality",
        "Nail Appearance",
        "Overall Aesthetics",
    ]
    assert uses(db, uid, gates.HANDS_SCORING) == 2
    assert gates.check_feature_access(db, uid, gates.HANDS_SCORING).trial_remaining == 1


def test_a_photo_without_a_hand_is_refused_and_costs_no_hands_trial(db, db_factory, store, owner):
    uid = member(db, "nohand")
    gates.activate_trial(db, uid, gates.HANDS_SCORING)
    db.commit()
    key = body_service.stage_body_photo(store, owner, jpeg(coffee()))
    with pytest.raises(ValidationFailed) as raised:
        body_service.analyse_for_member(db_factory, store, uid, key, HANDS)
    assert raised.value.message == messages.NO_HAND_FOUND
    assert uses(db, uid, gates.HANDS_SCORING) == 0
    assert gates.check_feature_access(db, uid, gates.HANDS_SCORING).has_access

    hand = body_service.stage_body_photo(store, owner, jpeg(real_hand("child-palm")))
    result = body_service.analyse_for_member(db_factory, store, uid, hand, HANDS)
    assert result.kind == HANDS and 1.0 <= result.score <= 10.0
    assert uses(db, uid, gates.HANDS_SCORING) == 1
    assert not gates.check_feature_access(db, uid, gates.HANDS_SCORING).has_access


def test_a_member_scores_a_pet_with_no_gate_and_no_use_recorded(db, db_factory, store, owner):
    uid = member(db, "catlover")
    key = body_service.stage_body_photo(store, owner, jpeg(chelsea()))
    result = body_service.analyse_for_member(db_factory, store, uid, key, PET)
    assert result.kind == PET
    assert result.label == label_for(PET, result.score).label
    shown = f"{result.score:.1f}".removesuffix(".0")
    assert body_service.pet_summary(result) == messages.PET_SCORED.format(score=shown)
    assert db.exec(select(FeatureUsage)).all() == []


def test_a_free_member_without_a_trial_gets_no_score(db, db_factory, store, owner):
    uid = member(db, "locked")
    key = body_service.stage_body_photo(store, owner, jpeg(astronaut()))
    with pytest.raises(PermissionDenied) as raised:
        body_service.analyse_for_member(db_factory, store, uid, key, HANDS)
    assert raised.value.code == gates.PREMIUM_REQUIRED
    assert uses(db, uid, gates.HANDS_SCORING) == 0
