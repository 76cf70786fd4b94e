"""My Photos service: saving once, listing only one's own, deleting photo and account."""

from __future__ import annotations

import dataclasses
import io
import secrets
from datetime import timedelta

import pytest
from PIL import Image
from sqlmodel import select

from prettyscore.accounts import service as accounts
from prettyscore.analysis.service import ScoreResult
from prettyscore.core import messages
from prettyscore.core.errors import NotAuthenticated, NotFound, ValidationFailed
from prettyscore.core.media import MediaOwner, MediaStore, key_from_url, parse_key
from prettyscore.core.model_types import utcnow
from prettyscore.photos import service
from prettyscore.photos.models import Photo


def jpeg_bytes(color=(200, 120, 150)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), color).save(buffer, format="JPEG")
    return buffer.getvalue()


def visitor_result(store: MediaStore, score: float = 8.7) -> ScoreResult:
    key = store.save(jpeg_bytes(), owner=MediaOwner.visitor(secrets.token_urlsafe(16)), ext="jpg")
    return ScoreResult(
        result_id=secrets.token_urlsafe(12),
        image_key=key,
        score=score,
        label="Absolutely Stunning",
        tier_key="stunning",
        emoji="🤩",
        color="#ec4899",
        breakdown={"symmetry": 8.5, "skinQuality": 8.9, "facialHarmony": 8.6},
        special_panel="",
    )


def member(db, name: str):
    return accounts.sign_up(db, f"{name}@example.com", "secret1").user_id


def test_saving_copies_the_photo_into_the_members_own_folder(db, store):
    uid = member(db, "saver")
    result = visitor_result(store)
    photo = service.save_result(db, store, uid, result)
    key = key_from_url(photo.original_image_url)
    assert key.startswith(f"u/{uid}/")
    assert store.read(key) == store.read(result.image_key)
    assert photo.score == 8.7 and photo.rating_label == "Absolutely Stunning"
    assert photo.breakdown == {"symmetry": 8.5, "skinQuality": 8.9, "facialHarmony": 8.6}
    assert photo.public_listing is False and photo.is_verified is False
    assert photo.display_name is None and photo.bio is None and photo.edited_image_url is None


def test_saving_the_same_result_twice_keeps_one_photo(db, store):
    uid = member(db, "twice")
    result = visitor_result(store)
    first = service.save_result(db, store, uid, result)
    second = service.save_result(db, store, uid, result)
    assert first.id == second.id
    assert len(db.exec(select(Photo)).all()) == 1
    assert len(list((store.root / "u" / str(uid)).iterdir())) == 1


def test_the_leaderboard_opt_in_needs_a_display_name(db, store):
    with pytest.raises(ValidationFailed) as raised:
        service.check_listing("   ", "bio")
    assert raised.value.message == messages.PLEASE_ENTER_DISPLAY_NAME
    with pytest.raises(ValidationFailed) as only_controls:
        service.check_listing("\x01\x07\r\n", "bio")
    assert only_controls.value.message == messages.PLEASE_ENTER_DISPLAY_NAME
    assert service.check_listing("  Ada ", "  ") == ("Ada", None)
    assert service.check_listing("Ada\nLovelace\u202e", None) == ("Ada Lovelace", None)

    uid = member(db, "lister")
    listing = service.check_listing("Ada", "Loves maths")
    photo = service.save_result(db, store, uid, visitor_result(store, 9.6), listing=listing)
    assert (photo.public_listing, photo.is_verified) == (True, False)
    assert (photo.display_name, photo.bio) == ("Ada", "Loves maths")


def test_an_already_saved_photo_can_then_join_the_leaderboard(db, store):
    uid = member(db, "later")
    result = visitor_result(store, 9.7)
    service.save_result(db, store, uid, result)
    photo = service.save_result(db, store, uid, result, listing=("Bea", None))
    assert photo.public_listing and len(db.exec(select(Photo)).all()) == 1


def test_members_list_only_their_own_photos_in_either_order(db, store):
    me, other = member(db, "me"), member(db, "other")
    for score in (7.2, 9.1, 8.0):
        service.save_result(db, store, me, visitor_result(store, score))
    service.save_result(db, store, other, visitor_result(store, 9.9))
    newest_first = service.list_photos(db, me, sort="latest")
    assert newest_first.total == 3
    assert [p.score for p in newest_first.photos] == [8.0, 9.1, 7.2]
    best_first = service.list_photos(db, me, sort="highest")
    assert [p.score for p in best_first.photos] == [9.1, 8.0, 7.2]


def test_a_thousand_photos_come_a_page_at_a_time(db, store):
    uid = member(db, "prolific")
    start = utcnow()
    db.add_all(
        Photo(
            user_id=uid,
            original_image_url=f"/media/u/{uid}/p{i}.jpg",
            score=6 + (i % 40) / 10,
            rating_label="Pretty",
            created_at=start + timedelta(seconds=i),
        )
        for i in range(1000)
    )
    db.flush()
    page = service.list_photos(db, uid, sort="latest", offset=24)
    assert page.total == 1000 and len(page.photos) == service.PAGE_SIZE
    assert page.photos[0].original_image_url == f"/media/u/{uid}/p975.jpg"


def test_deleting_a_photo_removes_its_row_and_files_and_only_the_owner_can(db, store):
    owner, stranger = member(db, "owner"), member(db, "stranger")
    photo = service.save_result(db, store, owner, visitor_result(store), listing=("Cy", None))
    key = key_from_url(photo.original_image_url)
    with pytest.raises(NotFound):
        service.delete_photo(db, store, stranger, photo.id)
    assert store.exists(key)
    service.delete_photo(db, store, owner, photo.id)
    assert db.exec(select(Photo)).all() == []
    assert not store.exists(key)


def test_deleting_a_photo_already_deleted_is_done_but_a_strangers_stays(db, store):
    owner, stranger = member(db, "first-tab"), member(db, "stranger")
    photo = service.save_result(db, store, owner, visitor_result(store))
    photo_id, key = photo.id, key_from_url(photo.original_image_url)
    with pytest.raises(NotFound):
        service.delete_photo(db, store, stranger, photo_id, gone_ok=True)
    assert store.exists(key)
    service.delete_photo(db, store, owner, photo_id)  # the other tab
    service.delete_photo(db, store, owner, photo_id, gone_ok=True)  # this tab: done
    with pytest.raises(NotFound):
        service.delete_photo(db, store, owner, photo_id)  # without gone_ok: "not found"
    with pytest.raises(NotFound):
        service.delete_photo(db, store, owner, "not-a-photo-id", gone_ok=True)
    assert db.exec(select(Photo)).all() == [] and not store.exists(key)


def test_deleting_an_account_removes_the_member_their_photos_and_files(db, store):
    leaving, staying = member(db, "leaving"), member(db, "staying")
    my_key = key_from_url(
        service.save_result(db, store, leaving, visitor_result(store)).original_image_url
    )
    theirs = service.save_result(db, store, staying, visitor_result(store))
    service.delete_account(db, store, leaving)
    db.expire_all()
    assert [p.id for p in db.exec(select(Photo)).all()] == [theirs.id]
    assert not store.exists(my_key)
    assert store.exists(key_from_url(theirs.original_image_url))
    with pytest.raises(NotAuthenticated):
        accounts.sign_in(db, "leaving@example.com", "secret1")


def test_saving_again_after_another_edit_keeps_the_newest_edit(db, store):
    uid = member(db, "editor")
    result = visitor_result(store)
    first = service.save_result(db, store, uid, result)
    assert first.edited_image_url is None
    edited_key = store.save(jpeg_bytes((10, 200, 30)), owner=MediaOwner.visitor("s"), ext="jpg")
    edited = service.save_result(db, store, uid, dataclasses.replace(result, edited_key=edited_key))
    assert edited.id == first.id
    assert store.read(key_from_url(edited.edited_image_url)) == store.read(edited_key)
    newer_key = store.save(jpeg_bytes((0, 0, 250)), owner=MediaOwner.visitor("s"), ext="jpg")
    old_saved = key_from_url(edited.edited_image_url)
    newest = service.save_result(db, store, uid, dataclasses.replace(result, edited_key=newer_key))
    assert store.read(key_from_url(newest.edited_image_url)) == store.read(newer_key)
    assert not store.exists(old_saved)


def explained_result(store: MediaStore) -> ScoreResult:
    result = visitor_result(store)
    picture = store.save(
        jpeg_bytes((20, 20, 20)), owner=parse_key(result.image_key).owner, ext="jpg"
    )
    notes = [
        {
            "part": "facialHarmony",
            "part_name": "Facial Harmony",
            "text": "Eye spacing: 0.46 of face width, ideal 0.44–0.49",
            "in_range": True,
        }
    ]
    return dataclasses.replace(result, explanation_key=picture, explanation=notes)


def test_a_saved_photo_keeps_its_explanation_in_the_members_folder(db, store):
    uid, stranger = member(db, "explained"), member(db, "curious")
    result = explained_result(store)
    photo = service.save_result(db, store, uid, result)
    key = key_from_url(photo.explanation_image_url)
    assert key.startswith(f"u/{uid}/")
    assert store.read(key) == store.read(result.explanation_key)
    assert service.photo_explanation(db, uid, photo.id) == result.explanation
    with pytest.raises(NotFound):
        service.photo_explanation(db, stranger, photo.id)


def test_a_photo_without_an_explanation_has_no_picture_and_no_notes(db, store):
    uid = member(db, "unexplained")
    photo = service.save_result(db, store, uid, visitor_result(store))
    assert photo.explanation_image_url is None
    assert service.photo_explanation(db, uid, photo.id) == []


def test_deleting_a_photo_deletes_its_explanation_picture(db, store):
    uid = member(db, "tidier")
    photo = service.save_result(db, store, uid, explained_result(store))
    key = key_from_url(photo.explanation_image_url)
    service.delete_photo(db, store, uid, photo.id)
    assert not store.exists(key)
