"""The files the REST functions write into a member's folder (an edit, a photo sent
inline) have an owner row and a lifetime: after it the sweep deletes them, unless a
video generation has taken one over. Over HTTP, both databases."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from prettyscore.core.model_types import utcnow
from prettyscore.photos import media_files
from prettyscore.photos.models import MediaFile
from tests.api.functions_support import (
    astronaut_jpeg,
    call,
    data_url,
    key_of,
    media_store,
    new_member,
    stored_photo,
    wait_for_video,
)

AFTER_THE_LIFETIME = media_files.LIFETIME + timedelta(minutes=1)


def temporary(db, member) -> dict[str, str]:
    """The member's temporary files: key → kind."""
    db.rollback()  # read what the server committed
    found = db.exec(select(MediaFile.key, MediaFile.kind).where(MediaFile.user_id == member.id))
    return dict(found.all())


def sweep_later(api_server, db_factory) -> int:
    return media_files.sweep_expired(
        media_store(api_server), db_factory, now=utcnow() + AFTER_THE_LIFETIME
    )


def test_an_edit_gets_an_owner_row_and_goes_after_its_lifetime(api, api_server, db, db_factory):
    member = new_member(db)
    source = stored_photo(api_server, member)

    answer = call(api, "edit-photo", member, imageUrl=source, prompt="brighter")

    assert answer.status_code == 200, answer.text
    edited = key_of(answer.json()["editedImageUrl"])
    assert temporary(db, member) == {edited: media_files.API_EDIT}
    row = db.exec(select(MediaFile).where(MediaFile.key == edited)).one()
    assert row.expires_at - row.created_at == media_files.LIFETIME

    media_files.sweep_expired(media_store(api_server), db_factory, now=utcnow())
    assert media_store(api_server).exists(edited)  # within its lifetime

    assert sweep_later(api_server, db_factory) == 1
    assert not media_store(api_server).exists(edited)
    assert temporary(db, member) == {}
    assert media_store(api_server).exists(key_of(source))  # not a temporary file


def test_an_inline_photo_is_noted_and_its_edit_is_the_members_too(api, api_server, db, db_factory):
    member = new_member(db)

    answer = call(api, "edit-photo", member, imageUrl=data_url(astronaut_jpeg()), prompt="warmer")

    assert answer.status_code == 200, answer.text
    edited = key_of(answer.json()["editedImageUrl"])
    noted = temporary(db, member)
    kinds = sorted(noted.values())
    assert kinds == [media_files.API_EDIT, media_files.API_UPLOAD]
    assert all(key.startswith(f"u/{member.id}/") for key in noted)
    inline = next(key for key, kind in noted.items() if kind == media_files.API_UPLOAD)
    assert not media_store(api_server).exists(inline)  # removed by the call itself

    sweep_later(api_server, db_factory)

    assert not media_store(api_server).exists(edited)
    assert temporary(db, member) == {}


def test_an_edit_that_is_animated_is_kept_by_its_generation(api, api_server, db, db_factory):
    member = new_member(db)
    edit = call(
        api, "edit-photo", member, imageUrl=stored_photo(api_server, member), prompt="sharper"
    )
    edited_url = edit.json()["editedImageUrl"]

    started = call(api, "generate-video", member, imageUrl=edited_url, duration=1)
    assert started.status_code == 200, started.text
    finished = wait_for_video(api, member, started.json()["taskId"])

    assert finished["status"] == "completed"
    assert temporary(db, member) == {}  # the generation owns its photo and its clip
    sweep_later(api_server, db_factory)
    assert media_store(api_server).exists(key_of(edited_url))
    assert media_store(api_server).exists(key_of(finished["video_url"]))
