"""Custom prompts through every place a member edits from (results, /editor, the
dashboard's saved photo), on a real database: the ordinary ways of asking work and
count one free edit; what the local engine cannot do is refused with the same message,
spends no free edit and saves nothing; with EDIT_ENGINE=http every prompt goes to the
provider as typed."""

from __future__ import annotations

import base64
import io
import secrets

import numpy as np
import pytest
from PIL import Image
from skimage import data

from prettyscore.accounts import service as accounts
from prettyscore.analysis.service import ScoreResult
from prettyscore.core import constants, messages
from prettyscore.core.errors import DomainError
from prettyscore.core.media import MediaOwner, MediaStore, key_from_url
from prettyscore.editing import service as editing
from prettyscore.editing.adjustments import Adjustments
from prettyscore.editor import service as editor
from prettyscore.photos import history
from prettyscore.photos import service as photos
from tests.fixtures.ai_provider import API_KEY
from tests.helpers.fake_ai_provider import Reply

VISITOR = MediaOwner.visitor("custom-prompt-tests")
EDITS = "/v1/images/edits"
PLACES = ("results", "editor", "dashboard")


def jpeg(size: int = 160) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(data.astronaut()).resize((size, size)).save(buffer, format="JPEG")
    return buffer.getvalue()


def files_in(store: MediaStore) -> set:
    return {p for p in store.root.rglob("*") if p.is_file()}


def new_member(db_factory):
    with db_factory() as db:
        email = f"prompts-{secrets.token_hex(4)}@example.com"
        return accounts.sign_up(db, email, "secret1").user_id


def saved_photo(db_factory, store: MediaStore, user_id) -> str:
    key = store.save(jpeg(), owner=VISITOR, ext="jpg")
    result = ScoreResult(
        result_id=secrets.token_urlsafe(12),
        image_key=key,
        score=8.1,
        label="Gorgeous",
        tier_key="gorgeous",
        emoji="😍",
        color="#ec4899",
        breakdown={"symmetry": 8.0, "skinQuality": 8.2, "facialHarmony": 8.1},
        special_panel="",
    )
    with db_factory() as db:
        return str(photos.save_result(db, store, user_id, result).id)


class Member:
    """A member with one saved photo and one uploaded photo, editing from ``place``."""

    def __init__(self, db_factory, store: MediaStore, place: str):
        self.db_factory, self.store, self.place = db_factory, store, place
        self.user_id = new_member(db_factory)
        self.photo_id = saved_photo(db_factory, store, self.user_id)
        self.key = store.save(jpeg(), owner=VISITOR, ext="jpg")
        self.owner_key = editing.allowance_key(self.user_id, None)

    def edit(self, prompt: str) -> str:
        """Edit as ``place`` does; the edited image's key."""
        common = {"owner_key": self.owner_key}
        if self.place == "results":
            outcome = editing.edit_photo(
                self.db_factory,
                self.store,
                image_key=self.key,
                prompt=prompt,
                media_owner=VISITOR,
                **common,
            )
            return outcome.image_key
        if self.place == "editor":
            edited = editor.edit_with_adjustments(
                self.db_factory,
                self.store,
                key=self.key,
                adjustments=Adjustments(brightness=120),
                prompt=prompt,
                owner=VISITOR,
                **common,
            )
            return edited.outcome.image_key
        edited = history.edit_saved_photo(
            self.db_factory,
            self.store,
            user_id=self.user_id,
            photo_id=self.photo_id,
            prompt=prompt,
        )
        return key_from_url(edited.edited_url)

    def edits_left(self) -> int:
        with self.db_factory() as db:
            return editing.edits_remaining(db, self.owner_key)

    def saved(self):
        with self.db_factory() as db:
            photo = photos.get_photo(db, self.user_id, self.photo_id)
            return photo.edited_image_url, photo.last_edit_prompt


def level(store: MediaStore, key: str) -> float:
    return float(np.asarray(Image.open(io.BytesIO(store.read(key))).convert("L")).mean())


@pytest.mark.parametrize("place", PLACES)
def test_an_ordinary_phrasing_is_edited_and_counts_one_free_edit(db_factory, store, place):
    member = Member(db_factory, store, place)
    before = level(store, member.key)
    edited = member.edit("increase brightness")
    assert level(store, edited) > before + 5
    assert member.edits_left() == constants.FREE_EDITS - 1


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize(
    "prompt", ["add sunglasses", "make me look younger", "make it brighter and add a hat"]
)
def test_what_cannot_be_done_is_refused_alike_everywhere_and_spends_and_saves_nothing(
    db_factory, store, place, prompt
):
    member = Member(db_factory, store, place)
    files, saved = files_in(store), member.saved()
    with pytest.raises(DomainError) as refused:
        member.edit(prompt)
    assert refused.value.message == messages.EDIT_NOT_SUPPORTED
    assert member.edits_left() == constants.FREE_EDITS
    assert files_in(store) == files  # no edited file, no baked slider version
    assert member.saved() == saved  # the saved photo and its history are unchanged


def provider_image() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (1024, 1024), (20, 160, 40)).save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


@pytest.mark.parametrize("place", PLACES)
def test_with_the_http_engine_every_prompt_goes_to_the_provider_as_typed(
    db_factory, store, place, ai_provider, app_settings
):
    app_settings(
        EDIT_ENGINE="http",
        EDIT_API_BASE=ai_provider.url + "/v1",
        EDIT_API_KEY=API_KEY,
        EDIT_MODEL="gpt-image-1",
        EDIT_TIMEOUT_SECONDS=5,
    )
    ai_provider.script("POST", EDITS, Reply(json={"data": [{"b64_json": provider_image()}]}))
    member = Member(db_factory, store, place)
    edited = member.edit("add sunglasses")
    (request,) = ai_provider.received("POST", EDITS)
    assert request.fields["prompt"] == "add sunglasses"
    green = np.asarray(Image.open(io.BytesIO(store.read(edited))).convert("RGB")).mean(axis=(0, 1))
    assert green[1] > 120 and green[0] < 60  # the provider's picture is the result
    assert member.edits_left() == constants.FREE_EDITS - 1
