"""The editor's rules without a browser: versions, whose files may be used, AI edits that
keep the sliders, and saving to a member's photos on a real database."""

from __future__ import annotations

import io
import secrets
import uuid

import numpy as np
import pytest
from PIL import Image
from skimage import data
from sqlmodel import select

from prettyscore.accounts import service as accounts
from prettyscore.core import constants, messages
from prettyscore.core.errors import DomainError, NotFound, PermissionDenied
from prettyscore.core.media import LocalMediaStore, MediaOwner, MediaStore, key_from_url
from prettyscore.editing import service as editing
from prettyscore.editing.adjustments import Adjustments
from prettyscore.editor import service
from prettyscore.editor.service import Version, VersionHistory
from prettyscore.photos import service as photos_service
from prettyscore.photos.models import Photo, PhotoEditStep

VISITOR = MediaOwner.visitor("editor-tests-visitor")
BRIGHTER = Adjustments(brightness=150)


@pytest.fixture
def store(tmp_path) -> MediaStore:
    return LocalMediaStore(tmp_path / "media")


def jpeg_of(pixels: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="JPEG", quality=92)
    return buffer.getvalue()


def stored_astronaut(store: MediaStore, owner: MediaOwner = VISITOR) -> str:
    return store.save(jpeg_of(data.astronaut()), owner=owner, ext="jpg")


def mean_level(store: MediaStore, key: str) -> float:
    return float(np.asarray(Image.open(io.BytesIO(store.read(key)))).mean())


def member(db_factory) -> uuid.UUID:
    with db_factory() as db:
        address = f"editor-{secrets.token_hex(3)}@example.com"
        return accounts.sign_up(db, address, "secret1").user_id


# -- versions ------------------------------------------------------------------------
def test_undo_and_redo_walk_the_versions_and_stop_at_the_ends():
    history = VersionHistory.starting_with(Version("a"))
    assert (history.can_undo, history.can_redo) == (False, False)
    history.add(Version("b", "Blur background"))
    history.add(Version("c", "make it warmer"))
    assert history.current.key == "c"
    assert history.undo() and history.undo()
    assert history.current.key == "a"
    assert not history.undo()
    assert history.redo() and history.current.key == "b"
    assert history.can_undo and history.can_redo
    assert history.last_prompt() == "Blur background"


def test_a_new_edit_drops_the_redo_versions():
    history = VersionHistory.starting_with(Version("a"), Version("b"), Version("c"))
    history.undo()
    history.undo()
    dropped = history.add(Version("d"))
    assert [v.key for v in dropped] == ["b", "c"]
    assert [v.key for v in history.versions] == ["a", "d"]
    assert not history.can_redo


def test_the_history_survives_the_round_trip_through_state():
    history = VersionHistory.starting_with(Version("a", width=9), Version("b", "x", True, 12))
    history.undo()
    rows, position = history.to_state()
    assert VersionHistory.from_state(rows, position) == history


def test_dropping_versions_deletes_only_the_files_the_editor_made(store):
    mine = Version(stored_astronaut(store), made_here=True)
    theirs = Version(stored_astronaut(store))
    service.discard(store, [mine, theirs])
    assert not store.exists(mine.key)
    assert store.exists(theirs.key)


# -- whose files ---------------------------------------------------------------------
def test_a_key_outside_this_browser_and_member_folders_is_refused(store):
    own = stored_astronaut(store)
    somebody = stored_astronaut(store, MediaOwner.visitor("somebody-else"))
    assert service.check_owned(own, [VISITOR]) == own
    for key in (somebody, "../../etc/passwd", "v/../u/x.jpg", ""):
        with pytest.raises(PermissionDenied):
            service.check_owned(key, [VISITOR])


# -- the work on pixels --------------------------------------------------------------------
def test_apply_and_download_put_the_sliders_into_the_file(store):
    key = stored_astronaut(store)
    assert service.bake(store, key, Adjustments(), VISITOR) is None  # nothing to apply
    baked = service.bake(store, key, BRIGHTER, VISITOR)
    assert mean_level(store, baked) > mean_level(store, key) + 20
    png = service.export_png(store, key, BRIGHTER, VISITOR)
    assert png.endswith(".png") and png.startswith("v/")
    assert Image.open(io.BytesIO(store.read(png))).format == "PNG"
    assert mean_level(store, png) == pytest.approx(mean_level(store, baked), abs=2)


def test_an_ai_edit_keeps_the_pending_sliders_and_counts_one_edit(db_factory, store):
    key = stored_astronaut(store)
    edited = service.edit_with_adjustments(
        db_factory,
        store,
        key=key,
        adjustments=BRIGHTER,
        prompt="Blur background",
        owner=VISITOR,
        owner_key="v:editor-tests-1",
    )
    assert edited.baked_key and store.exists(edited.baked_key)
    assert edited.outcome.remaining == constants.FREE_EDITS - 1
    assert edited.width == data.astronaut().shape[1]
    assert mean_level(store, edited.outcome.image_key) > mean_level(store, key) + 15


def test_a_refused_edit_leaves_no_baked_file_and_uses_no_edit(db_factory, store):
    key = stored_astronaut(store)
    before = {p for p in store.root.rglob("*") if p.is_file()}
    with pytest.raises(DomainError) as refusal:
        service.edit_with_adjustments(
            db_factory,
            store,
            key=key,
            adjustments=BRIGHTER,
            prompt="turn me into a dragon",
            owner=VISITOR,
            owner_key="v:editor-tests-2",
        )
    assert refusal.value.message == messages.EDIT_NOT_SUPPORTED
    assert {p for p in store.root.rglob("*") if p.is_file()} == before
    with db_factory() as db:
        assert editing.edits_remaining(db, "v:editor-tests-2") == constants.FREE_EDITS


# -- saving ------------------------------------------------------------------------------
def test_a_first_save_is_scored_on_the_final_photo_and_keeps_the_original_as_before(
    db_factory, store
):
    uid = member(db_factory)
    original = stored_astronaut(store)
    final = service.bake(store, original, Adjustments(brightness=115), VISITOR)
    result = service.score_new_photo(store, original, final)
    assert (result.image_key, result.edited_key) == (original, final)
    with db_factory() as db:
        photo = photos_service.save_result(db, store, uid, result)
        assert photo.edited_image_url and photo.score == result.score
        assert key_from_url(photo.edited_image_url).startswith(f"u/{uid}/")


def test_a_photo_whose_face_is_gone_is_not_saved(store):
    key = stored_astronaut(store)
    faceless = service.bake(store, key, Adjustments(contrast=0), VISITOR)  # uniform grey
    with pytest.raises(DomainError) as refusal:
        service.score_new_photo(store, key, faceless)
    assert refusal.value.message == messages.NO_FACE_FOUND


def test_saving_a_member_photo_records_an_edit_it_can_undo(db_factory, store):
    uid = member(db_factory)
    result = service.score_new_photo(store, stored_astronaut(store), stored_astronaut(store))
    with db_factory() as db:
        photo_id = str(photos_service.save_result(db, store, uid, result).id)
    with db_factory() as db:
        opened = service.open_member_photo(db, uid, photo_id)
    assert opened.key.startswith(f"u/{uid}/")
    final = service.bake(store, opened.key, BRIGHTER, VISITOR)

    with db_factory() as db:
        service.update_member_photo(db, store, uid, photo_id, final, "Adjusted brightness 150%")
    with db_factory() as db:
        photo = db.get(Photo, uuid.UUID(photo_id))
        edited_key = key_from_url(photo.edited_image_url)
        assert edited_key.startswith(f"u/{uid}/")  # a copy of its own, not the visitor's
        assert mean_level(store, edited_key) > mean_level(store, opened.key) + 20
        steps = db.exec(select(PhotoEditStep).where(PhotoEditStep.photo_id == photo.id)).all()
        assert [step.prompt for step in steps] == ["Adjusted brightness 150%"]
    with db_factory() as db:
        assert service.open_member_photo(db, uid, photo_id).key == edited_key


def test_nobody_opens_or_saves_over_another_members_photo(db_factory, store):
    owner, intruder = member(db_factory), member(db_factory)
    result = service.score_new_photo(store, stored_astronaut(store), stored_astronaut(store))
    with db_factory() as db:
        photo_id = str(photos_service.save_result(db, store, owner, result).id)
    final = stored_astronaut(store)
    with db_factory() as db, pytest.raises(NotFound):
        service.open_member_photo(db, intruder, photo_id)
    with db_factory() as db, pytest.raises(NotFound):
        service.update_member_photo(db, store, intruder, photo_id, final, "mine now")
    assert not any(store.root.glob(f"u/{intruder}/*"))


def test_a_result_saved_on_the_results_page_is_found_again_not_saved_twice(db_factory, store):
    uid, other = member(db_factory), member(db_factory)
    result = service.score_new_photo(store, stored_astronaut(store), stored_astronaut(store))
    with db_factory() as db:
        photo_id = str(photos_service.save_result(db, store, uid, result).id)
    with db_factory() as db:
        assert service.saved_photo_of_result(db, uid, result.result_id) == photo_id
        assert service.saved_photo_of_result(db, other, result.result_id) is None
        assert service.saved_photo_of_result(db, uid, "") is None


def test_save_scores_a_new_photo_once_then_updates_it(db_factory, store):
    uid = member(db_factory)
    original = stored_astronaut(store)
    final = service.bake(store, original, Adjustments(brightness=115), VISITOR)
    request = {"photo_id": "", "result_id": "", "original_key": original, "prompt": "Brighter"}

    first = service.save_edited_photo(db_factory, store, uid, final_key=final, **request)
    assert first.result is not None and first.result.edited_key == final
    again = service.save_edited_photo(
        db_factory, store, uid, **{**request, "photo_id": first.photo_id}, final_key=original
    )
    assert again == service.SavedPhoto(first.photo_id)  # updated, not scored or saved twice
    with db_factory() as db:
        assert len(db.exec(select(Photo).where(Photo.user_id == uid)).all()) == 1
        only = PhotoEditStep.photo_id == uuid.UUID(first.photo_id)
        assert [step.prompt for step in db.exec(select(PhotoEditStep).where(only))] == ["Brighter"]


def test_save_from_a_result_already_saved_updates_that_photo(db_factory, store):
    uid = member(db_factory)
    result = service.score_new_photo(store, stored_astronaut(store), stored_astronaut(store))
    with db_factory() as db:
        photo_id = str(photos_service.save_result(db, store, uid, result).id)
    saved = service.save_edited_photo(
        db_factory,
        store,
        uid,
        photo_id="",
        result_id=result.result_id,
        original_key=result.image_key,
        final_key=stored_astronaut(store),
        prompt="Blur background",
    )
    assert saved == service.SavedPhoto(photo_id)
