"""edit-photo over HTTP: real edits of the member's own photos, the free allowance of 5
(the pages' one), Premium unlimited, inline photos checked like uploads. Both databases."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import pytest
from sqlmodel import select

from prettyscore.core import constants, messages
from prettyscore.editing.models import EditAllowance
from prettyscore.functions.routing import MAX_BODY_BYTES
from tests.api.functions_support import (
    astronaut_jpeg,
    call,
    data_url,
    key_of,
    make_premium,
    member_files,
    new_member,
    read_image,
    stored_photo,
)


def edits_used(db, member) -> int:
    db.rollback()  # read what the server committed
    used = db.exec(
        select(EditAllowance.edits_used).where(EditAllowance.owner_key == f"u:{member.id}")
    ).first()
    return used or 0


def test_a_member_edits_their_own_photo(api, api_server, db):
    member = new_member(db)
    source = stored_photo(api_server, member)

    answer = call(api, "edit-photo", member, imageUrl=source, prompt="brighter")

    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["editsRemaining"] == constants.FREE_EDITS - 1
    assert body["editedImageUrl"].startswith(f"{api_server.url}/media/u/{member.id}/")
    before = np.asarray(read_image(api_server, source), dtype=float)
    after = np.asarray(read_image(api_server, body["editedImageUrl"]), dtype=float)
    assert after.shape == before.shape
    assert after.mean() > before.mean() + 5  # really brighter


def test_the_edited_url_can_be_edited_again(api, api_server, db):
    member = new_member(db)
    source = stored_photo(api_server, member)
    first = call(api, "edit-photo", member, imageUrl=source, prompt="warmer")

    edited = first.json()["editedImageUrl"]
    again = call(api, "edit-photo", member, imageUrl=edited, prompt="brighter")

    assert again.status_code == 200, again.text
    assert again.json()["editsRemaining"] == constants.FREE_EDITS - 2


def test_five_free_edits_then_the_upgrade_message(api, api_server, db):
    member = new_member(db)
    source = stored_photo(api_server, member)

    remaining = [
        call(api, "edit-photo", member, imageUrl=source, prompt="brighter").json()["editsRemaining"]
        for _ in range(constants.FREE_EDITS)
    ]
    refused = api.post(
        "/functions/v1/edit-photo",
        json={"imageUrl": source, "prompt": "brighter"},
        headers={**member.headers, "X-Supabase-Api-Version": "2024-01-01"},
    )

    assert remaining == [4, 3, 2, 1, 0]
    assert refused.status_code == 403
    assert refused.json() == {
        "code": "no_free_edits",
        "message": messages.USED_ALL_FREE_EDITS_UPGRADE,
        "error": messages.USED_ALL_FREE_EDITS_UPGRADE,
    }
    assert edits_used(db, member) == constants.FREE_EDITS


def test_premium_edits_are_unlimited(api, api_server, db):
    member = new_member(db)
    make_premium(api, db, member)
    source = stored_photo(api_server, member)

    answers = [
        call(api, "edit-photo", member, imageUrl=source, prompt="brighter")
        for _ in range(constants.FREE_EDITS + 1)
    ]

    assert [a.status_code for a in answers] == [200] * (constants.FREE_EDITS + 1)
    assert {a.json()["editsRemaining"] for a in answers} == {None}
    assert edits_used(db, member) == 0


def test_a_refused_instruction_uses_no_free_edit(api, api_server, db):
    member = new_member(db)
    source = stored_photo(api_server, member)

    blank = call(api, "edit-photo", member, imageUrl=source, prompt="   ")
    unknown = call(api, "edit-photo", member, imageUrl=source, prompt="qwerty zxcv")

    assert blank.status_code == 400
    assert blank.json()["msg"] == messages.PLEASE_ENTER_EDIT_INSTRUCTION
    assert unknown.status_code == 400
    assert unknown.json()["msg"] == messages.EDIT_NOT_SUPPORTED
    assert edits_used(db, member) == 0


def test_a_member_cannot_edit_another_members_photo(api, api_server, db):
    owner, other = new_member(db, "owner"), new_member(db, "other")
    theirs = stored_photo(api_server, owner)
    absolute_theirs = api_server.url + theirs
    elsewhere = "https://elsewhere.example" + stored_photo(api_server, other)

    answers = [
        call(api, "edit-photo", other, imageUrl=url, prompt="brighter")
        for url in (theirs, absolute_theirs, elsewhere, "/media/../../etc/passwd", "")
    ]

    assert [a.status_code for a in answers] == [400] * 5
    assert {a.json()["msg"] for a in answers} == {messages.PLEASE_UPLOAD_IMAGE_FILE}
    assert edits_used(db, other) == 0
    assert len(member_files(api_server, owner)) == 1  # nothing was written for the other


def test_a_missing_file_of_ones_own_is_refused_like_anyone_elses(api, api_server, db):
    member = new_member(db)
    missing = f"/media/u/{member.id}/{'A' * 32}.jpg"

    answer = call(api, "edit-photo", member, imageUrl=missing, prompt="brighter")

    assert answer.status_code == 400
    assert answer.json()["msg"] == messages.PLEASE_UPLOAD_IMAGE_FILE


def test_an_inline_photo_is_checked_stored_edited_and_not_kept(api, api_server, db):
    member = new_member(db)

    answer = call(api, "edit-photo", member, imageUrl=data_url(astronaut_jpeg()), prompt="brighter")

    assert answer.status_code == 200, answer.text
    edited_name = key_of(answer.json()["editedImageUrl"]).rsplit("/", 1)[1]
    assert member_files(api_server, member) == [edited_name]  # the inline original is gone
    assert read_image(api_server, answer.json()["editedImageUrl"]).size == (512, 512)


@pytest.mark.parametrize(
    ("inline", "text"),
    [
        (data_url(b"just some text, not a picture"), messages.PLEASE_UPLOAD_IMAGE_FILE),
        ("data:image/png;base64,not*base64!", messages.FAILED_TO_READ_IMAGE),
        (data_url(b"x", kind="text/plain"), messages.PLEASE_UPLOAD_IMAGE_FILE),
        (data_url(b"\xff" * (constants.MAX_UPLOAD_BYTES + 1)), messages.FILE_TOO_LARGE),
    ],
    ids=["not-an-image", "bad-base64", "not-image-type", "over-10-MB"],
)
def test_an_inline_file_that_is_no_usable_photo_is_refused(api, api_server, db, inline, text):
    member = new_member(db)

    answer = call(api, "edit-photo", member, imageUrl=inline, prompt="brighter")

    assert answer.status_code == 400
    assert answer.json()["msg"] == text
    assert member_files(api_server, member) == []
    assert edits_used(db, member) == 0


def test_a_body_over_the_limit_is_refused_before_it_is_read(api, db):
    member = new_member(db)
    padding = "A" * MAX_BODY_BYTES

    answer = api.post(
        "/functions/v1/edit-photo",
        content=f'{{"imageUrl": "data:image/png;base64,{padding}", "prompt": "brighter"}}',
        headers={**member.headers, "Content-Type": "application/json"},
    )

    assert answer.status_code == 413
    assert answer.json()["msg"] == messages.FILE_TOO_LARGE


def test_parallel_edits_never_exceed_the_free_allowance(api, api_server, db):
    member = new_member(db)
    source = stored_photo(api_server, member)
    attempts = constants.FREE_EDITS + 3

    def edit(_):
        with httpx.Client(base_url=api_server.url, timeout=60) as client:
            return call(client, "edit-photo", member, imageUrl=source, prompt="brighter")

    with ThreadPoolExecutor(max_workers=attempts) as pool:
        statuses = sorted(answer.status_code for answer in pool.map(edit, range(attempts)))

    assert statuses == [200] * constants.FREE_EDITS + [403] * 3
    assert edits_used(db, member) == constants.FREE_EDITS
