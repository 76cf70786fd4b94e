"""The free-edit allowance on a real database: atomic under concurrency, only successes
count, Premium unlimited."""

from __future__ import annotations

import io
import threading
import uuid
from datetime import timedelta

import pytest
from PIL import Image
from skimage import data

from prettyscore.accounts import service as accounts
from prettyscore.billing.models import Subscription
from prettyscore.core import constants, messages
from prettyscore.core.errors import DomainError, PermissionDenied, ValidationFailed
from prettyscore.core.media import MediaOwner, MediaStore
from prettyscore.core.model_types import utcnow
from prettyscore.editing import service


@pytest.fixture
def visitor() -> MediaOwner:
    return MediaOwner.visitor("visitor-secret-for-edit-tests")


def small_photo(store: MediaStore, owner: MediaOwner) -> str:
    buffer = io.BytesIO()
    Image.fromarray(data.astronaut()).resize((256, 256)).save(buffer, format="JPEG")
    return store.save(buffer.getvalue(), owner=owner, ext="jpg")


def subscriber(db_factory) -> str:
    """The allowance key of a member with a subscription (Premium: unlimited edits)."""
    with db_factory() as db:
        user_id = accounts.sign_up(db, f"premium-{uuid.uuid4().hex[:6]}@example.com", "secret1")
        user_id = user_id.user_id
        db.add(Subscription(user_id=user_id, expires_at=utcnow() + timedelta(days=30)))
    return service.allowance_key(user_id, None)


def edit(db_factory, store, owner, key, prompt="brighter", who="v:someone"):
    return service.edit_photo(
        db_factory,
        store,
        owner_key=who,
        image_key=key,
        prompt=prompt,
        media_owner=owner,
    )


def test_ten_parallel_edits_with_five_free_give_exactly_five(db_factory, store, visitor):
    key = small_photo(store, visitor)
    outcomes: list[str] = []
    barrier = threading.Barrier(10)

    def attempt():
        barrier.wait()
        try:
            edit(db_factory, store, visitor, key, who="v:racer")
            outcomes.append("edited")
        except PermissionDenied as error:
            outcomes.append(error.message)

    threads = [threading.Thread(target=attempt) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == sorted(
        ["edited"] * constants.FREE_EDITS + [messages.USED_ALL_FREE_EDITS_UPGRADE] * 5
    )
    with db_factory() as db:
        assert service.edits_remaining(db, "v:racer") == 0


def test_each_success_counts_down_and_the_sixth_is_refused(db_factory, store, visitor):
    key = small_photo(store, visitor)
    remaining = [edit(db_factory, store, visitor, key, who="v:counter").remaining for _ in range(5)]
    assert remaining == [4, 3, 2, 1, 0]
    with pytest.raises(PermissionDenied) as raised:
        edit(db_factory, store, visitor, key, who="v:counter")
    assert raised.value.message == messages.USED_ALL_FREE_EDITS_UPGRADE


def test_an_edit_that_cannot_be_done_uses_no_free_edit(db_factory, store, visitor):
    key = small_photo(store, visitor)
    with pytest.raises(ValidationFailed):
        edit(db_factory, store, visitor, key, prompt="turn me into a dragon", who="v:dragon")
    with pytest.raises(DomainError) as blank:
        edit(db_factory, store, visitor, key, prompt="   ", who="v:dragon")
    assert blank.value.message == messages.PLEASE_ENTER_EDIT_INSTRUCTION
    with db_factory() as db:
        assert service.edits_remaining(db, "v:dragon") == constants.FREE_EDITS


def test_premium_edits_are_unlimited_and_leave_the_allowance_alone(db_factory, store, visitor):
    key = small_photo(store, visitor)
    premium = subscriber(db_factory)
    outcomes = [edit(db_factory, store, visitor, key, who=premium) for _ in range(7)]
    assert {o.remaining for o in outcomes} == {service.UNLIMITED}
    assert len({o.image_key for o in outcomes}) == 7  # each edit is a new photo
    with db_factory() as db:
        assert service.edits_remaining(db, premium) == constants.FREE_EDITS


def test_members_and_visitors_have_their_own_allowances():
    member_key = service.allowance_key(uuid.uuid4(), "same-browser")
    visitor_key = service.allowance_key(None, "same-browser")
    assert member_key.startswith("u:") and visitor_key.startswith("v:")
    assert "same-browser" not in visitor_key  # the cookie's secret is never stored


def test_the_hd_download_is_a_png_copy_in_the_browsers_folder_named_as_document_000_says(
    store, visitor
):
    key = small_photo(store, visitor)
    png_key = service.download_copy(store, key, visitor)
    assert png_key != key and png_key.startswith(visitor.folder) and png_key.endswith(".png")
    with Image.open(io.BytesIO(store.read(png_key))) as copy:
        assert (copy.format, copy.size) == ("PNG", (256, 256))
        assert "exif" not in copy.info
    assert store.exists(key)  # the photo itself stays as it is
    assert service.photo_download_name("8.7") == "pretty-score-8.7-edited.png"
    assert service.photo_download_name("10", "original") == "pretty-score-10-original.png"
