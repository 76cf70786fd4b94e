"""Members' temporary files (a photo chosen on the video page, an edit, a clip being
rendered): each gets an owner row and a lifetime; housekeeping deletes it after that
lifetime unless a saved photo or a video generation has come to own it; deleting the
account deletes every file in the member's folder. Real databases (both), real files."""

from __future__ import annotations

import io
import secrets
import time
from datetime import timedelta

import pytest
from PIL import Image
from skimage import data
from sqlmodel import select

from prettyscore.accounts import service as accounts
from prettyscore.analysis.service import ScoreResult
from prettyscore.core.media import MediaOwner, MediaStore, key_from_url, media_url
from prettyscore.core.model_types import utcnow
from prettyscore.editing import service as editing
from prettyscore.photos import housekeeping, media_files, pending
from prettyscore.photos import service as photos
from prettyscore.photos.models import MediaFile, Photo
from prettyscore.video import service as video
from prettyscore.video.models import VideoGeneration

AFTER_THE_LIFETIME = media_files.LIFETIME.total_seconds() + 60


def portrait() -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(data.astronaut()).resize((256, 256)).save(buffer, format="JPEG")
    return buffer.getvalue()


def member(db_factory, name: str):
    with db_factory() as db:
        return accounts.sign_up(db, f"{name}-{secrets.token_hex(4)}@example.com", "secret1").user_id


def rows(db_factory) -> list[MediaFile]:
    with db_factory() as db:
        return list(db.exec(select(MediaFile).order_by(MediaFile.created_at)).all())


def sweep(store: MediaStore, db_factory, *, seconds_from_now: float) -> int:
    """One round of the periodic housekeeping, as if run ``seconds_from_now`` later."""
    return housekeeping.run_once(store, db_factory, now=time.time() + seconds_from_now)


def folder_of(store: MediaStore, user_id) -> list[str]:
    folder = store.root / MediaOwner.member(user_id).folder
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


def visitor_result(store: MediaStore) -> ScoreResult:
    owner = MediaOwner.visitor(secrets.token_urlsafe(16))
    image_key = store.save(portrait(), owner=owner, ext="jpg")
    explanation_key = store.save(portrait(), owner=owner, ext="jpg")
    return ScoreResult(
        result_id=secrets.token_urlsafe(12),
        image_key=image_key,
        score=8.2,
        label="Gorgeous",
        tier_key="gorgeous",
        emoji="😍",
        color="#ec4899",
        breakdown={"symmetry": 8.0, "skinQuality": 8.3, "facialHarmony": 8.2},
        special_panel="",
        explanation_key=explanation_key,
        explanation=[{"part": "symmetry", "part_name": "Symmetry", "text": "x", "in_range": True}],
    )


# ---------------------------------------------------------------------------
# An owner row and a lifetime
# ---------------------------------------------------------------------------
def test_a_photo_chosen_on_the_video_page_gets_an_owner_row_and_a_lifetime(db_factory, store):
    user_id = member(db_factory, "picker")
    before = utcnow()

    key = video.stage_source(db_factory, store, user_id, portrait())

    assert key.startswith(f"u/{user_id}/") and store.exists(key)
    [row] = rows(db_factory)
    assert (row.user_id, row.key, row.kind) == (user_id, key, media_files.VIDEO_PICK)
    assert before <= row.created_at <= utcnow()
    assert row.expires_at - row.created_at == media_files.LIFETIME


def test_an_edit_for_a_member_gets_an_owner_row_a_visitors_does_not(db_factory, store):
    user_id = member(db_factory, "editor")
    source = store.save(portrait(), owner=MediaOwner.member(user_id), ext="jpg")
    files = media_files.TemporaryFiles(store, db_factory, media_files.API_EDIT)

    outcome = editing.edit_photo(
        db_factory,
        files,
        owner_key=editing.allowance_key(user_id, None),
        image_key=source,
        prompt="brighter",
        media_owner=MediaOwner.member(user_id),
        engine_name="local",
    )
    visitor_key = files.save(portrait(), owner=MediaOwner.visitor("s" * 20), ext="jpg")

    assert store.exists(outcome.image_key) and store.exists(visitor_key)
    assert [(r.user_id, r.key, r.kind) for r in rows(db_factory)] == [
        (user_id, outcome.image_key, media_files.API_EDIT)
    ]


# ---------------------------------------------------------------------------
# The sweep
# ---------------------------------------------------------------------------
def test_the_sweep_deletes_a_temporary_file_and_its_row_after_its_lifetime(db_factory, store):
    user_id = member(db_factory, "sweeper")
    key = video.stage_source(db_factory, store, user_id, portrait())

    sweep(store, db_factory, seconds_from_now=media_files.LIFETIME.total_seconds() - 60)
    assert store.exists(key) and len(rows(db_factory)) == 1  # not yet

    assert sweep(store, db_factory, seconds_from_now=AFTER_THE_LIFETIME) == 1
    assert not store.exists(key)
    assert rows(db_factory) == []
    assert folder_of(store, user_id) == []


def test_a_row_whose_file_is_already_gone_is_dropped(db_factory, store):
    user_id = member(db_factory, "tidy")
    key = video.stage_source(db_factory, store, user_id, portrait())
    store.delete(key)  # e.g. a REST call that discarded its inline photo

    assert sweep(store, db_factory, seconds_from_now=AFTER_THE_LIFETIME) == 0
    assert rows(db_factory) == []


def test_a_file_that_became_a_saved_photo_survives_the_sweep(db_factory, store):
    user_id = member(db_factory, "keeper")
    picked = video.stage_source(db_factory, store, user_id, portrait())
    edited = video.stage_source(db_factory, store, user_id, portrait())
    with db_factory() as db:
        # A photo that shows a temporary file itself, and one saved the usual way (copies).
        db.add(
            Photo(
                user_id=user_id,
                original_image_url=media_url(picked),
                edited_image_url=media_url(edited),
                score=8.0,
                rating_label="Gorgeous",
                breakdown={"symmetry": 8.0},
            )
        )
        saved = photos.save_result(db, store, user_id, visitor_result(store))
        saved_keys = [
            key_from_url(url)
            for url in (
                saved.original_image_url,
                saved.explanation_image_url,
            )
        ]

    sweep(store, db_factory, seconds_from_now=AFTER_THE_LIFETIME)

    assert store.exists(picked) and store.exists(edited)
    assert all(store.exists(key) for key in saved_keys)
    assert rows(db_factory) == []  # the photos own them now: no longer temporary


def test_a_generation_takes_over_the_chosen_photo_and_its_clip(db_factory, store):
    user_id = member(db_factory, "animator")
    picked = video.stage_source(db_factory, store, user_id, portrait())
    with db_factory() as db:
        job = video.start_generation(
            db, user_id, source_image_url=media_url(picked), prompt=None, duration_seconds=1
        )
    assert rows(db_factory) == []  # claimed by the generation when it started

    video.render_generation(db_factory, store, job.id)

    with db_factory() as db:
        done = db.get(VideoGeneration, job.id)
    assert done.status == "completed"
    clip = key_from_url(done.video_url)
    assert rows(db_factory) == []  # the clip too, once the generation completed
    sweep(store, db_factory, seconds_from_now=AFTER_THE_LIFETIME)
    assert store.exists(picked) and store.exists(clip)


def test_a_photo_picked_but_never_animated_goes_and_the_animated_one_stays(db_factory, store):
    user_id = member(db_factory, "chooser")
    dropped = video.stage_source(db_factory, store, user_id, portrait())
    used = video.stage_source(db_factory, store, user_id, portrait())
    with db_factory() as db:
        video.start_generation(
            db, user_id, source_image_url=media_url(used), prompt=None, duration_seconds=1
        )

    sweep(store, db_factory, seconds_from_now=AFTER_THE_LIFETIME)

    assert not store.exists(dropped) and store.exists(used)


def test_the_sweep_keeps_a_file_whose_owner_row_came_without_a_claim(db_factory, store):
    """Even a generation that did not claim its photo (it started elsewhere) keeps it."""
    user_id = member(db_factory, "safe")
    key = video.stage_source(db_factory, store, user_id, portrait())
    with db_factory() as db:
        db.add(VideoGeneration(user_id=user_id, source_image_url=media_url(key)))

    sweep(store, db_factory, seconds_from_now=AFTER_THE_LIFETIME)

    assert store.exists(key) and rows(db_factory) == []


def test_the_sweep_works_through_more_rows_than_one_batch(db_factory, store, monkeypatch):
    monkeypatch.setattr(media_files, "SWEEP_BATCH", 3)
    user_id = member(db_factory, "many")
    files = media_files.TemporaryFiles(store, db_factory, media_files.API_UPLOAD)
    keys = [files.save(b"x", owner=MediaOwner.member(user_id), ext="jpg") for _ in range(7)]

    removed = media_files.sweep_expired(store, db_factory, now=utcnow() + timedelta(days=2))

    assert removed == 7 and not any(store.exists(key) for key in keys)
    assert rows(db_factory) == []


def test_an_unfinished_save_keeps_a_file_that_a_photo_shows_as_its_explanation(db_factory, store):
    user_id = member(db_factory, "explained")
    files = pending.PendingFiles(store)  # an intent left behind, as by a crash
    key = files.save(portrait(), owner=MediaOwner.member(user_id), ext="jpg")
    with db_factory() as db:
        db.add(
            Photo(
                user_id=user_id,
                original_image_url=media_url(
                    store.save(b"o", owner=MediaOwner.member(user_id), ext="jpg")
                ),
                explanation_image_url=media_url(key),
                score=8.0,
                rating_label="Gorgeous",
                breakdown={"symmetry": 8.0},
            )
        )

    pending.sweep_unfinished(store, db_factory, now=time.time() + pending.GRACE_SECONDS + 60)

    assert store.exists(key)


# ---------------------------------------------------------------------------
# Deleting the account
# ---------------------------------------------------------------------------
def test_deleting_the_account_removes_every_file_in_the_members_folder(db_factory, store):
    leaving, staying = member(db_factory, "leaving"), member(db_factory, "staying")
    theirs = video.stage_source(db_factory, store, staying, portrait())
    video.stage_source(db_factory, store, leaving, portrait())  # temporary
    animated = video.stage_source(db_factory, store, leaving, portrait())
    with db_factory() as db:
        photos.save_result(db, store, leaving, visitor_result(store))  # owned
        video.start_generation(
            db, leaving, source_image_url=media_url(animated), prompt=None, duration_seconds=1
        )
    files = media_files.TemporaryFiles(store, db_factory, media_files.API_EDIT)
    files.save(portrait(), owner=MediaOwner.member(leaving), ext="jpg")
    store.save(portrait(), owner=MediaOwner.member(leaving), ext="png")  # no row at all
    assert len(folder_of(store, leaving)) == 6

    with db_factory() as db:
        photos.delete_account(db, store, leaving)

    assert not (store.root / MediaOwner.member(leaving).folder).exists()
    assert [(r.user_id, r.key) for r in rows(db_factory)] == [(staying, theirs)]
    assert store.exists(theirs)


def test_no_file_is_written_for_an_account_that_is_gone(db_factory, store):
    user_id = member(db_factory, "gone")
    with db_factory() as db:
        photos.delete_account(db, store, user_id)

    with pytest.raises(media_files.MemberGone):
        video.stage_source(db_factory, store, user_id, portrait())

    assert folder_of(store, user_id) == [] and rows(db_factory) == []


def test_a_file_written_while_the_account_was_deleted_is_removed(db_factory, store):
    user_id = member(db_factory, "racing")

    class DeletedWhileWriting(media_files.TemporaryFiles):
        def write(self, key, data):
            with db_factory() as db:
                photos.delete_account(db, store, user_id)
            super().write(key, data)

    files = DeletedWhileWriting(store, db_factory, media_files.VIDEO_PICK)
    with pytest.raises(media_files.MemberGone):
        files.save(portrait(), owner=MediaOwner.member(user_id), ext="jpg")

    assert folder_of(store, user_id) == [] and rows(db_factory) == []
