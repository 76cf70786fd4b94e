"""A member's score across their saved face photos, as the dashboard's Overview says it:
the middle and the range, from two face photos on (on a real database)."""

from __future__ import annotations

from prettyscore.core import messages
from prettyscore.dashboard import service
from prettyscore.photos.models import Photo
from tests.fixtures.factories import add_member


def save(db, user, score: float, photo_type: str = "face") -> None:
    db.add(
        Photo(
            user_id=user.id,
            original_image_url=f"/media/u/{user.id}/photo.jpg",
            score=score,
            rating_label="Attractive",
            photo_type=photo_type,
        )
    )
    db.commit()


def test_the_middle_and_range_of_the_members_face_photos(db):
    member, other = add_member(db), add_member(db, "other")
    for score in (6.8, 7.9, 7.2):
        save(db, member, score)
    save(db, member, 9.6, "feet")  # another kind, on its own scale
    save(db, other, 2.0)

    found = service.score_range(db, member.id)

    assert (found.count, found.middle, found.lowest, found.highest) == (3, 7.2, 6.8, 7.9)
    assert found.text == "Your score across 3 photos: middle 7.2 (range 6.8–7.9)"
    assert found.text == messages.SCORE_ACROSS_PHOTOS.format(
        count=3, middle="7.2", lowest="6.8", highest="7.9"
    )
    assert service.overview(db, member.id).score_range == found


def test_an_even_count_has_the_mean_of_its_two_middle_scores(db):
    member = add_member(db)
    for score in (6.0, 7.0, 8.0, 9.0):
        save(db, member, score)

    found = service.score_range(db, member.id)

    assert (found.middle, found.text) == (7.5, "Your score across 4 photos: middle 7.5 (range 6–9)")


def test_one_face_photo_is_no_range_and_none_is_nothing(db):
    member = add_member(db)
    assert service.score_range(db, member.id) is None
    assert service.overview(db, member.id).score_range is None

    save(db, member, 7.4)
    assert service.score_range(db, member.id).count == 1
    assert service.score_range(db, member.id).text == ""
