"""Which photo a generation may animate: a saved photo's current image, and only a file
in the member's own folder (the dashboard's Generate Video names a photo, nothing more)."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from skimage import data
from sqlmodel import select

from prettyscore.accounts import service as accounts
from prettyscore.core import messages
from prettyscore.core.errors import NotFound, ValidationFailed
from prettyscore.core.media import MediaOwner, MediaStore, media_url
from prettyscore.photos.models import Photo
from prettyscore.video import service
from prettyscore.video.models import VideoGeneration


@pytest.fixture
def store(tmp_path) -> MediaStore:
    return MediaStore(tmp_path / "media")


def member(db, name: str):
    user_id = accounts.sign_up(db, f"{name}@example.com", "secret1").user_id
    db.commit()
    return user_id


def stored_photo(store: MediaStore, user_id) -> str:
    """A JPEG in the member's folder, as its media URL."""
    buffer = io.BytesIO()
    Image.fromarray(data.astronaut()).save(buffer, format="JPEG")
    return media_url(store.save(buffer.getvalue(), owner=MediaOwner.member(user_id), ext="jpg"))


def saved_photo(db, user_id, original_url: str, edited_url: str | None = None) -> str:
    photo = Photo(
        user_id=user_id,
        original_image_url=original_url,
        edited_image_url=edited_url,
        score=8.1,
        rating_label="Gorgeous",
        breakdown={"symmetry": 8.0},
    )
    db.add(photo)
    db.commit()
    return str(photo.id)


def test_a_saved_photo_is_animated_as_it_looks_now_its_edit_if_it_has_one(db, store):
    user_id = member(db, "saver")
    original = stored_photo(store, user_id)
    plain = saved_photo(db, user_id, original)
    assert service.saved_photo_source(db, user_id, plain) == original

    edited = stored_photo(store, user_id)
    retouched = saved_photo(db, user_id, stored_photo(store, user_id), edited)
    assert service.saved_photo_source(db, user_id, retouched) == edited


def test_another_members_photo_or_no_photo_is_not_found(db, store):
    owner, stranger = member(db, "owner"), member(db, "stranger")
    photo_id = saved_photo(db, owner, stored_photo(store, owner))
    for someone, wanted in ((stranger, photo_id), (owner, "not-a-photo-id")):
        with pytest.raises(NotFound):
            service.saved_photo_source(db, someone, wanted)


def test_a_photo_row_pointing_into_someone_elses_folder_is_refused(db, store):
    owner, victim = member(db, "owner2"), member(db, "victim")
    photo_id = saved_photo(db, owner, stored_photo(store, victim))
    with pytest.raises(ValidationFailed) as refused:
        service.saved_photo_source(db, owner, photo_id)
    assert refused.value.message == messages.PLEASE_UPLOAD_IMAGE_FILE


@pytest.mark.parametrize(
    "source", ["victim", "/media/x", "https://example.com/a.jpg", "", None], ids=repr
)
def test_a_generation_only_starts_from_a_file_of_the_members_own(db, store, source):
    user_id, victim = member(db, "starter"), member(db, "victim2")
    url = stored_photo(store, victim) if source == "victim" else source
    with pytest.raises(ValidationFailed) as refused:
        service.start_generation(db, user_id, source_image_url=url, prompt=None, duration_seconds=5)
    assert refused.value.message == messages.PLEASE_UPLOAD_IMAGE_FILE
    assert db.exec(select(VideoGeneration)).all() == []
