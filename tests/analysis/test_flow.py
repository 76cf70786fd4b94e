"""The scoring flow's server side: staging an upload, then scoring it, on real photos."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from prettyscore.analysis import service, tiers
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed
from prettyscore.core.media import MediaOwner, MediaStore
from tests.fixtures.photos import astronaut, coffee, jpeg


@pytest.fixture
def owner() -> MediaOwner:
    return MediaOwner.visitor("a-visitor-secret-for-tests")


def files_under(store: MediaStore) -> list:
    return [p for p in store.root.rglob("*") if p.is_file()] if store.root.exists() else []


def test_a_staged_photo_is_stored_for_the_visitor_without_its_exif_and_at_most_2560px(store, owner):
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # camera make: metadata a stored photo must not keep
    key = service.stage_photo(store, owner, jpeg(astronaut(), (4000, 4000), exif=exif))
    assert key.startswith("v/")
    stored = Image.open(io.BytesIO(store.read(key)))
    assert max(stored.size) == service.STORED_LONG_SIDE
    assert len(stored.getexif()) == 0


def test_something_that_is_not_an_image_is_refused_and_nothing_is_written(store, owner):
    with pytest.raises(ValidationFailed) as raised:
        service.stage_photo(store, owner, b"%PDF-1.7 definitely not a photo")
    assert raised.value.message == messages.PLEASE_UPLOAD_IMAGE_FILE
    assert files_under(store) == []


def test_scoring_a_face_gives_the_tier_label_and_the_four_bars(store, owner):
    key = service.stage_photo(store, owner, jpeg(astronaut()))
    result = service.score_staged_photo(store, key)
    tier = tiers.tier_for(result.score)
    assert 1.0 <= result.score <= 10.0
    assert (result.label, result.tier_key, result.emoji) == (tier.label, tier.key, tier.emoji)
    rows = service.breakdown_rows(result)
    assert [row["name"] for row in rows] == [
        "Overall",
        "Symmetry",
        "Skin Quality",
        "Facial Harmony",
    ]
    assert rows[0]["value"] == result.score
    assert result.image_key == key
    again = service.score_staged_photo(store, key)
    assert (again.score, again.breakdown) == (result.score, result.breakdown)
    assert again.result_id != result.result_id  # each analysis is its own result


def test_a_photo_without_a_face_gets_the_no_face_message(store, owner):
    key = service.stage_photo(store, owner, jpeg(coffee()))
    with pytest.raises(ValidationFailed) as raised:
        service.score_staged_photo(store, key)
    assert raised.value.message == messages.NO_FACE_FOUND


def test_a_result_survives_the_round_trip_through_the_tabs_state(store, owner):
    key = service.stage_photo(store, owner, jpeg(astronaut()))
    result = service.score_staged_photo(store, key)
    assert service.ScoreResult.from_dict(result.to_dict()) == result
    assert result.score_text == f"{result.score:.1f}".removesuffix(".0")
