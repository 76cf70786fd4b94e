"""Editing a saved photo: the undo stack lives in the database, Redo re-applies the last
prompt, free edits are counted, and nobody touches another member's photo."""

from __future__ import annotations

import io
import secrets
import threading
from datetime import timedelta

import numpy as np
import pytest
from PIL import Image
from skimage import data
from sqlmodel import select

from prettyscore.accounts import service as accounts
from prettyscore.analysis.service import ScoreResult
from prettyscore.billing.models import Subscription
from prettyscore.core import constants, messages
from prettyscore.core.errors import DomainError, NotFound, PermissionDenied
from prettyscore.core.media import MediaOwner, MediaStore, key_from_url
from prettyscore.core.model_types import utcnow
from prettyscore.editing import service as editing
from prettyscore.photos import history, service
from prettyscore.photos.models import Photo, PhotoEditStep


def member(db_factory, name: str, *, premium: bool = True):
    """A member; a subscriber unless ``premium`` is False (edits then use free ones)."""
    with db_factory() as db:
        email = f"{name}-{secrets.token_hex(3)}@example.com"
        user_id = accounts.sign_up(db, email, "secret1").user_id
        if premium:
            db.add(Subscription(user_id=user_id, expires_at=utcnow() + timedelta(days=30)))
        return user_id


def saved_photo(db_factory, store: MediaStore, user_id) -> str:
    buffer = io.BytesIO()
    Image.fromarray(data.astronaut()).resize((160, 160)).save(buffer, format="JPEG")
    key = store.save(buffer.getvalue(), owner=MediaOwner.visitor("history-tests"), ext="jpg")
    result = ScoreResult(
        result_id=secrets.token_urlsafe(12),
        image_key=key,
        score=8.2,
        label="Gorgeous",
        tier_key="gorgeous",
        emoji="😍",
        color="#ec4899",
        breakdown={"symmetry": 8.0, "skinQuality": 8.4, "facialHarmony": 8.1},
        special_panel="",
    )
    with db_factory() as db:
        return str(service.save_result(db, store, user_id, result).id)


def mean_level(store: MediaStore, url: str) -> float:
    return float(np.asarray(Image.open(io.BytesIO(store.read(key_from_url(url))))).mean())


def edit(db_factory, store, user_id, photo_id, prompt="brighter"):
    return history.edit_saved_photo(
        db_factory, store, user_id=user_id, photo_id=photo_id, prompt=prompt
    )


def test_each_edit_is_kept_and_undo_walks_back_to_the_original(db_factory, store):
    uid = member(db_factory, "editor")
    photo_id = saved_photo(db_factory, store, uid)
    with db_factory() as db:
        original = service.get_photo(db, uid, photo_id).original_image_url

    first = edit(db_factory, store, uid, photo_id, "brighter")
    second = edit(db_factory, store, uid, photo_id, "black and white")
    assert (first.undo_steps, second.undo_steps) == (1, 2)
    assert mean_level(store, first.edited_url) > mean_level(store, original)
    assert second.last_prompt == "black and white"

    with db_factory() as db:
        photo = history.undo_edit(db, store, uid, photo_id)
        assert photo.edited_image_url == first.edited_url
    assert not store.exists(key_from_url(second.edited_url))  # gone once undone

    with db_factory() as db:
        photo = history.undo_edit(db, store, uid, photo_id)
        assert photo.edited_image_url is None  # the original shows again
        assert history.current_image_url(photo) == original

    with pytest.raises(DomainError) as nothing_left, db_factory() as db:
        history.undo_edit(db, store, uid, photo_id)
    assert nothing_left.value.message == messages.NO_EDITS_TO_UNDO


def test_redo_applies_the_last_prompt_again(db_factory, store):
    uid = member(db_factory, "redoer")
    photo_id = saved_photo(db_factory, store, uid)
    with pytest.raises(DomainError) as nothing_yet:
        history.redo_edit(db_factory, store, user_id=uid, photo_id=photo_id)
    assert nothing_yet.value.message == messages.NOTHING_TO_REDO

    once = edit(db_factory, store, uid, photo_id, "brighter")
    brightened = mean_level(store, once.edited_url)
    with db_factory() as db:
        history.undo_edit(db, store, uid, photo_id)
    redone = history.redo_edit(db_factory, store, user_id=uid, photo_id=photo_id)
    assert redone.last_prompt == "brighter" and redone.undo_steps == 1
    assert mean_level(store, redone.edited_url) == pytest.approx(brightened, abs=0.5)

    twice = history.redo_edit(db_factory, store, user_id=uid, photo_id=photo_id)
    assert twice.undo_steps == 2
    assert mean_level(store, twice.edited_url) > mean_level(store, redone.edited_url)


def test_edits_of_a_saved_photo_use_the_members_free_edits(db_factory, store):
    uid = member(db_factory, "counter", premium=False)
    photo_id = saved_photo(db_factory, store, uid)
    outcome = edit(db_factory, store, uid, photo_id)
    assert outcome.remaining == constants.FREE_EDITS - 1

    with pytest.raises(DomainError):
        edit(db_factory, store, uid, photo_id, "make me an astronaut on the moon")
    with db_factory() as db:
        left = editing.edits_remaining(db, editing.allowance_key(uid, None))
        assert left == constants.FREE_EDITS - 1  # the refused prompt used none
        assert history.undo_steps(db, service.get_photo(db, uid, photo_id).id) == 1

    for _ in range(left):
        edit(db_factory, store, uid, photo_id)
    with pytest.raises(PermissionDenied) as used_up:
        edit(db_factory, store, uid, photo_id)
    assert used_up.value.message == messages.USED_ALL_FREE_EDITS_UPGRADE


def test_parallel_edits_of_one_photo_lose_no_step(db_factory, store):
    uid = member(db_factory, "racer")
    photo_id = saved_photo(db_factory, store, uid)
    barrier = threading.Barrier(4)
    errors: list[Exception] = []

    def attempt():
        barrier.wait()
        try:
            edit(db_factory, store, uid, photo_id)
        except Exception as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=attempt) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with db_factory() as db:
        photo = service.get_photo(db, uid, photo_id)
        positions = db.exec(
            select(PhotoEditStep.position).where(PhotoEditStep.photo_id == photo.id)
        ).all()
        assert sorted(positions) == [1, 2, 3, 4]
    for _ in range(4):
        with db_factory() as db:
            history.undo_edit(db, store, uid, photo_id)
    with db_factory() as db:
        assert service.get_photo(db, uid, photo_id).edited_image_url is None


def test_the_stack_keeps_the_newest_steps_and_deletes_older_images(db_factory, store, monkeypatch):
    monkeypatch.setattr(history, "MAX_UNDO_STEPS", 3)
    uid = member(db_factory, "deep")
    photo_id = saved_photo(db_factory, store, uid)
    edits = [edit(db_factory, store, uid, photo_id) for _ in range(5)]
    with db_factory() as db:
        assert history.undo_steps(db, service.get_photo(db, uid, photo_id).id) == 3
    # Steps 1 and 2 (which held "original" and the first edit) were dropped: that image too.
    assert not store.exists(key_from_url(edits[0].edited_url))
    assert all(store.exists(key_from_url(e.edited_url)) for e in edits[1:])


def test_nobody_edits_or_undoes_another_members_photo(db_factory, store):
    owner = member(db_factory, "owner")
    stranger = member(db_factory, "stranger")
    photo_id = saved_photo(db_factory, store, owner)
    edit(db_factory, store, owner, photo_id)
    with pytest.raises(NotFound):
        edit(db_factory, store, stranger, photo_id)
    with pytest.raises(NotFound), db_factory() as db:
        history.undo_edit(db, store, stranger, photo_id)
    stranger_file = store.save(b"x", owner=MediaOwner.member(stranger), ext="jpg")
    with pytest.raises(PermissionDenied), db_factory() as db:
        history.record_edit(db, store, owner, photo_id, f"/media/{stranger_file}", "brighter")


def test_deleting_a_photo_deletes_every_image_of_its_history(db_factory, store):
    uid = member(db_factory, "tidy")
    photo_id = saved_photo(db_factory, store, uid)
    edits = [edit(db_factory, store, uid, photo_id) for _ in range(3)]
    with db_factory() as db:
        original = service.get_photo(db, uid, photo_id).original_image_url
        service.delete_photo(db, store, uid, photo_id)
    for url in [original, *(e.edited_url for e in edits)]:
        assert not store.exists(key_from_url(url))
    with db_factory() as db:
        assert db.exec(select(PhotoEditStep)).all() == []
        assert db.exec(select(Photo)).all() == []
