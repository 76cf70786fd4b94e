"""Verification requests: the form's rules, one per member, and the admin's review."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlmodel import func, select

from prettyscore.accounts.models import Profile
from prettyscore.core import messages
from prettyscore.core.errors import Conflict, NotFound, PermissionDenied, ValidationFailed
from prettyscore.leaderboard import service as leaderboard
from prettyscore.photos.models import Photo
from prettyscore.verification import service
from prettyscore.verification.models import VerificationRequest
from prettyscore.verification.service import VerificationForm
from tests.fixtures.people import admin, member

FORM = VerificationForm(
    full_name="  Ada Lovelace ",
    reason="I model for brands and people copy my photos.",
    instagram_handle="@ada.lovelace",
    other_social="https://example.com/ada",
)


def requests_of(db, user_id) -> int:
    query = select(func.count()).where(VerificationRequest.user_id == user_id)
    return db.exec(query).one()


def verified(db, user_id) -> bool:
    db.expire_all()
    return db.get(Profile, user_id).is_verified


# ---------------------------------------------------------------------------
# The form
# ---------------------------------------------------------------------------
def test_a_member_sends_a_request_trimmed_and_it_is_pending(db):
    uid = member(db)
    request = service.submit_request(db, uid, FORM)
    assert (request.full_name, request.instagram_handle) == ("Ada Lovelace", "ada.lovelace")
    assert (request.status, request.admin_notes) == ("pending", None)
    shown = service.member_verification(db, uid)
    assert shown.verified is False and shown.request.id == request.id


def test_the_socials_are_optional(db):
    request = service.submit_request(
        db, member(db), VerificationForm(full_name="Bo", reason="Because", instagram_handle="  ")
    )
    assert (request.instagram_handle, request.other_social) == (None, None)


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"full_name": "   "}, "full_name", messages.FULL_NAME_REQUIRED),
        ({"full_name": "\x01\x07\x1b\u202e"}, "full_name", messages.FULL_NAME_REQUIRED),
        ({"full_name": "x" * 101}, "full_name", messages.FULL_NAME_TOO_LONG),
        ({"reason": None}, "reason", messages.VERIFICATION_REASON_REQUIRED),
        ({"reason": "x" * 1001}, "reason", messages.VERIFICATION_REASON_TOO_LONG),
        ({"instagram_handle": "not a handle!"}, "instagram_handle", messages.INSTAGRAM_INVALID),
        ({"other_social": "x" * 256}, "other_social", messages.VERIFICATION_OTHER_SOCIAL_TOO_LONG),
    ],
)
def test_each_rule_names_its_field_and_nothing_is_stored(db, changes, field, message):
    uid = member(db)
    form = VerificationForm(**{**FORM.__dict__, **changes})
    with pytest.raises(ValidationFailed) as refused:
        service.submit_request(db, uid, form)
    assert (refused.value.field, refused.value.message) == (field, message)
    assert requests_of(db, uid) == 0


def test_the_longest_allowed_values_are_kept(db):
    form = VerificationForm(full_name="n" * 100, reason="r" * 1000, other_social="s" * 255)
    request = service.submit_request(db, member(db), form)
    assert (len(request.full_name), len(request.reason), len(request.other_social)) == (
        100,
        1000,
        255,
    )


# ---------------------------------------------------------------------------
# One request per member
# ---------------------------------------------------------------------------
def test_a_second_request_is_refused(db):
    uid = member(db)
    first = service.submit_request(db, uid, FORM)
    with pytest.raises(Conflict) as refused:
        service.submit_request(db, uid, FORM)
    assert refused.value.message == messages.VERIFICATION_ALREADY_REQUESTED
    assert requests_of(db, uid) == 1
    assert service.request_of(db, uid).id == first.id


def test_two_requests_at_the_same_moment_store_one(db_factory):
    with db_factory() as db:
        uid = member(db)
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def send():
        start.wait()
        try:
            with db_factory() as db:
                service.submit_request(db, uid, FORM)
            outcomes.append("stored")
        except Conflict as refused:
            outcomes.append(refused.message)

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == sorted(["stored", messages.VERIFICATION_ALREADY_REQUESTED])
    with db_factory() as db:
        assert requests_of(db, uid) == 1


def test_the_database_keeps_one_request_per_member_whatever_the_code_does(db):
    uid = member(db)
    service.submit_request(db, uid, FORM)
    db.add(VerificationRequest(user_id=uid, full_name="Again", reason="Again"))
    with pytest.raises(Exception, match="(?i)unique"):
        db.flush()


def test_a_verified_member_cannot_ask_again(db):
    uid, boss = member(db), admin(db)
    service.approve_request(db, boss, service.submit_request(db, uid, FORM).id)
    db.delete(service.request_of(db, uid))
    db.flush()
    with pytest.raises(Conflict) as refused:
        service.submit_request(db, uid, FORM)
    assert refused.value.message == messages.VERIFICATION_ALREADY_VERIFIED


# ---------------------------------------------------------------------------
# The admin's review
# ---------------------------------------------------------------------------
def every_admin_call(request_id):
    return {
        "list_requests": lambda db, who: service.list_requests(db, who),
        "approve_request": lambda db, who: service.approve_request(db, who, request_id, "ok"),
        "reject_request": lambda db, who: service.reject_request(db, who, request_id, "no"),
    }


@pytest.mark.parametrize("call", list(every_admin_call(None)))
def test_a_member_is_refused_every_review_call_and_nothing_changes(db, call):
    uid = member(db)
    request = service.submit_request(db, uid, FORM)
    for caller in (uid, member(db), None):
        with pytest.raises(PermissionDenied) as refused:
            every_admin_call(request.id)[call](db, caller)
        assert refused.value.message == messages.ADMIN_ACCESS_REQUIRED
    db.refresh(request)
    assert request.status == "pending" and not verified(db, uid)


def test_requests_are_listed_newest_first_with_the_members_email(db):
    boss = admin(db)
    older, newer = member(db, "older"), member(db, "newer")
    first = service.submit_request(db, older, FORM)
    first.created_at -= timedelta(hours=1)
    db.add(first)
    service.submit_request(db, newer, VerificationForm(full_name="Newer", reason="Me"))
    rows = service.list_requests(db, boss)
    assert [row.user_id for row in rows] == [newer, older]
    assert rows[0].email.startswith("newer-")
    assert (rows[1].instagram_handle, rows[1].other_social) == ("ada.lovelace", FORM.other_social)


def test_approval_verifies_the_member_and_the_leaderboard_shows_the_badge(db):
    uid, boss = member(db), admin(db)
    listed = Photo(
        user_id=uid,
        original_image_url="/media/u/x.jpg",
        score=9.1,
        rating_label="Stunning",
        public_listing=True,
    )
    db.add(listed)
    db.flush()
    assert leaderboard.leaderboard_page(db).entries[0].verified is False

    approved = service.approve_request(db, boss, service.submit_request(db, uid, FORM).id, " ok ")
    assert (approved.status, approved.admin_notes) == ("approved", "ok")
    assert approved.reviewed_at is not None
    assert verified(db, uid)
    assert leaderboard.leaderboard_page(db).entries[0].verified is True
    assert service.member_verification(db, uid).verified is True


def test_approval_and_the_badge_are_one_transaction(db_factory):
    with db_factory() as db:
        uid, boss = member(db), admin(db)
        request_id = service.submit_request(db, uid, FORM).id
    with pytest.raises(RuntimeError), db_factory() as db:
        service.approve_request(db, boss, request_id)
        raise RuntimeError("the request fails before its transaction commits")
    with db_factory() as db:
        assert db.get(VerificationRequest, request_id).status == "pending"
        assert not db.get(Profile, uid).is_verified


def test_rejection_keeps_the_notes_and_leaves_the_member_unverified(db):
    uid, boss = member(db), admin(db)
    request = service.submit_request(db, uid, FORM)
    rejected = service.reject_request(db, boss, request.id, "Please link a public profile")
    assert (rejected.status, rejected.admin_notes) == ("rejected", "Please link a public profile")
    assert not verified(db, uid)
    assert service.member_verification(db, uid).request.status == "rejected"


@pytest.mark.parametrize("first", ["approve_request", "reject_request"])
def test_only_a_pending_request_can_be_reviewed(db, first):
    uid, boss = member(db), admin(db)
    request = service.submit_request(db, uid, FORM)
    getattr(service, first)(db, boss, request.id)
    for again in (service.approve_request, service.reject_request):
        with pytest.raises(Conflict) as refused:
            again(db, boss, request.id, "changed my mind")
        assert refused.value.message == messages.VERIFICATION_ALREADY_REVIEWED
    db.refresh(request)
    assert request.status == ("approved" if first == "approve_request" else "rejected")
    assert request.admin_notes is None


def test_notes_too_long_or_an_unknown_request_are_refused(db):
    boss = admin(db)
    request = service.submit_request(db, member(db), FORM)
    with pytest.raises(ValidationFailed) as refused:
        service.approve_request(db, boss, request.id, "n" * 1001)
    assert refused.value.message == messages.ADMIN_NOTES_TOO_LONG
    for unknown in ("nope", "00000000-0000-0000-0000-000000000000"):
        with pytest.raises(NotFound):
            service.reject_request(db, boss, unknown)
    db.refresh(request)
    assert request.status == "pending"
