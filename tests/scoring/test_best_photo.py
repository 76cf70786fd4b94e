"""Which photo shows you best, on the server: real photos of one person, staged as the
page stages them, read by the real analysis and ranked by the photo part."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from sqlalchemy import func, select

from prettyscore.analysis import face_photo
from prettyscore.core import messages
from prettyscore.core.all_models import metadata
from prettyscore.core.errors import ValidationFailed
from prettyscore.core.media import MediaOwner
from prettyscore.scoring import best_photo_service
from prettyscore.scoring.best_photo_service import Upload
from tests.fixtures.media import owner_keys
from tests.fixtures.photos import SAME_PERSON, coffee, dim_and_soft_jpeg, same_person_jpeg


@pytest.fixture
def owner() -> MediaOwner:
    return MediaOwner.visitor("a-browser-secret-for-best-photo-tests")


def jpeg(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=92)
    return buffer.getvalue()


def stage(store, owner, *files: bytes) -> list[str]:
    return best_photo_service.stage_photos(store, owner, [Upload(data) for data in files])


# ---------------------------------------------------------------------------
# The ranking
# ---------------------------------------------------------------------------
def test_a_dim_soft_copy_ranks_last_with_light_or_sharpness_advice(store, owner):
    keys = stage(
        store,
        owner,
        same_person_jpeg("lisa1.jpg"),
        dim_and_soft_jpeg("lisa1.jpg"),
        same_person_jpeg("zoom_30cm.jpg"),
    )
    ranking = best_photo_service.rank_photos(store, keys)

    assert ranking.by_photo
    assert [photo.rank for photo in ranking.photos] == [1, 2, 3]
    worse = ranking.photos[-1]
    assert worse.image_key == keys[1]
    assert worse.quality < ranking.photos[0].quality
    # What differs from the best is its light or its sharpness, and so is the advice.
    assert worse.differs[0] in {"Light", "Sharpness"}
    assert set(worse.differs) <= set(face_photo.ASPECT_NAMES.values())
    assert worse.advice in {
        face_photo.ADVICE[face_photo.LIGHT],
        face_photo.ADVICE[face_photo.SHARPNESS],
    }


def test_each_ranked_photo_has_its_scores_aspects_and_one_line_of_advice(store, owner):
    keys = stage(store, owner, same_person_jpeg("lisa3.jpg"), same_person_jpeg("zoom_30cm.jpg"))
    ranking = best_photo_service.rank_photos(store, keys)

    assert sorted(photo.image_key for photo in ranking.photos) == sorted(keys)
    best, other = ranking.photos
    assert best.quality >= other.quality
    assert best.differs == []
    for photo in ranking.photos:
        assert 1.0 <= photo.score <= 10.0 and 1.0 <= photo.person_score <= 10.0
        assert abs(photo.score - photo.person_score) <= 1.0  # the photo only nudges it
        assert 0.0 <= photo.quality <= 10.0
        assert list(photo.aspects) == list(face_photo.ASPECTS)
        assert all(0.0 <= value <= 10.0 for value in photo.aspects.values())
        assert photo.advice and "\n" not in photo.advice
        assert photo.refusal == ""
    rows = best_photo_service.aspect_rows(best)
    assert [row["name"] for row in rows] == [face_photo.ASPECT_NAMES[k] for k in face_photo.ASPECTS]


def test_photos_that_read_the_same_keep_the_order_they_were_given(store, owner):
    keys = stage(store, owner, same_person_jpeg("lisa4.jpg"), same_person_jpeg("lisa4.jpg"))
    ranking = best_photo_service.rank_photos(store, keys)

    assert [(photo.image_key, photo.rank) for photo in ranking.photos] == [
        (keys[0], 1),
        (keys[1], 2),
    ]
    assert ranking.photos[0].quality == ranking.photos[1].quality
    assert ranking.photos[1].differs == []


def test_a_photo_without_a_face_gets_its_refusal_and_comes_after_the_ranked_ones(store, owner):
    keys = stage(
        store,
        owner,
        jpeg(Image.fromarray(coffee())),
        same_person_jpeg("lisa1.jpg"),
        same_person_jpeg("lisa2.jpg"),
    )
    ranking = best_photo_service.rank_photos(store, keys)

    refused = ranking.photos[-1]
    assert refused.image_key == keys[0]
    assert refused.rank is None
    assert refused.refusal == messages.NO_FACE_FOUND
    assert refused.quality is None and refused.aspects == {} and refused.differs == []
    assert [photo.rank for photo in ranking.photos[:2]] == [1, 2]


def test_an_engine_that_reads_no_photo_ranks_by_score(store, owner, app_settings):
    app_settings(SCORING_ENGINE="simulated")
    keys = stage(store, owner, *(same_person_jpeg(f"lisa{n}.jpg") for n in (1, 2, 3)))
    ranking = best_photo_service.rank_photos(store, keys)

    assert not ranking.by_photo
    scores = [photo.score for photo in ranking.photos]
    assert scores == sorted(scores, reverse=True)
    assert [photo.rank for photo in ranking.photos] == [1, 2, 3]
    assert all(photo.aspects == {} and photo.advice == "" for photo in ranking.photos)


# ---------------------------------------------------------------------------
# Choosing the photos
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("count", "text"),
    [
        (0, messages.BEST_PHOTO_TOO_FEW),
        (1, messages.BEST_PHOTO_TOO_FEW),
        (7, messages.BEST_PHOTO_TOO_MANY),
    ],
)
def test_fewer_than_two_or_more_than_six_photos_are_refused_and_nothing_is_kept(
    store, owner, count, text
):
    with pytest.raises(ValidationFailed) as raised:
        stage(store, owner, *[same_person_jpeg("lisa1.jpg")] * count)
    assert raised.value.message == text
    assert owner_keys(store) == []
    with pytest.raises(ValidationFailed) as raised:
        best_photo_service.rank([best_photo_service.PhotoRead(f"k{n}") for n in range(count)])
    assert raised.value.message == text


def test_one_file_that_is_not_a_photo_refuses_the_choice_and_keeps_nothing(store, owner):
    with pytest.raises(ValidationFailed) as raised:
        stage(
            store,
            owner,
            same_person_jpeg("lisa1.jpg"),
            same_person_jpeg("lisa2.jpg"),
            b"%PDF-1.7 a paper",
        )
    assert raised.value.message == messages.PLEASE_UPLOAD_IMAGE_FILE
    assert owner_keys(store) == []


def test_the_photos_are_kept_in_the_browsers_own_folder_without_their_exif(store, owner):
    exif = Image.Exif()
    exif[0x8825] = {2: (51.0, 30.0, 0.0)}  # a GPS position
    with Image.open(SAME_PERSON / "lisa1.jpg") as photo:
        buffer = io.BytesIO()
        photo.save(buffer, format="JPEG", exif=exif)
    keys = stage(store, owner, buffer.getvalue(), same_person_jpeg("lisa2.jpg"))

    assert sorted(owner_keys(store)) == sorted(keys)
    assert all(key.startswith(f"v/{owner.owner_id}/") for key in keys)
    assert len(Image.open(io.BytesIO(store.read(keys[0]))).getexif()) == 0


def test_a_visitors_comparison_leaves_no_row(db, store, owner):
    keys = stage(store, owner, same_person_jpeg("lisa1.jpg"), same_person_jpeg("lisa2.jpg"))
    best_photo_service.rank_photos(store, keys)

    rows = {
        table.name: db.execute(select(func.count()).select_from(table)).scalar_one()
        for table in metadata.sorted_tables
    }
    assert {name: count for name, count in rows.items() if count} == {}
