"""Leaderboard service: order and ranks, paging, badges, entering, moderation."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from prettyscore.accounts import service as accounts
from prettyscore.accounts.models import Profile
from prettyscore.core import messages
from prettyscore.core.errors import NotFound, PermissionDenied, ValidationFailed
from prettyscore.core.model_types import utcnow
from prettyscore.leaderboard import service
from prettyscore.photos.models import Photo
from prettyscore.photos.service import MAX_DISPLAY_NAME

START = utcnow() - timedelta(days=1)


def member(db, name: str) -> uuid.UUID:
    return accounts.sign_up(db, f"{name}-{uuid.uuid4().hex[:6]}@example.com", "secret1").user_id


def admin(db) -> uuid.UUID:
    address = f"admin-{uuid.uuid4().hex[:6]}@example.com"
    user_id = accounts.sign_up(db, address, "secret1").user_id
    accounts.grant_role(db, address)
    return user_id


def photo(db, user_id, score: float, *, minute: int = 0, listed=True, **fields) -> Photo:
    row = Photo(
        user_id=user_id,
        original_image_url=f"/media/u/{user_id}/{uuid.uuid4().hex}.jpg",
        score=score,
        rating_label="Stunning",
        public_listing=listed,
        created_at=START + timedelta(minutes=minute),
        **fields,
    )
    db.add(row)
    db.flush()
    return row


def ids(page) -> list[str]:
    return [entry.photo_id for entry in page.entries]


def test_higher_score_first_then_the_older_entry_and_unlisted_never(db):
    uid = member(db, "a")
    newer_tie = photo(db, uid, 8.0, minute=5)
    best = photo(db, uid, 9.5, minute=9)
    older_tie = photo(db, uid, 8.0, minute=1)
    photo(db, uid, 9.9, listed=False)
    page = service.leaderboard_page(db, offset=0, limit=10)
    assert ids(page) == [str(best.id), str(older_tie.id), str(newer_tie.id)]
    assert [entry.rank for entry in page.entries] == [1, 2, 3]
    assert page.total == 3


def test_rank_of_matches_the_position_on_the_page_even_for_exact_ties(db):
    uid = member(db, "ties")
    rows = [photo(db, uid, 7.0, minute=3) for _ in range(4)] + [photo(db, uid, 9.0)]
    listed = service.leaderboard_page(db, offset=0, limit=10).entries
    assert len(listed) == len(rows)
    for entry in listed:
        assert service.rank_of(db, entry.photo_id) == entry.rank


def test_rank_of_an_unlisted_or_unknown_photo_is_not_found(db):
    uid = member(db, "hidden")
    hidden = photo(db, uid, 9.0, listed=False)
    for photo_id in (hidden.id, uuid.uuid4(), "not-an-id"):
        with pytest.raises(NotFound):
            service.rank_of(db, photo_id)


def test_pages_follow_each_other_without_gaps_or_repeats(db):
    uid = member(db, "pager")
    for index in range(7):
        photo(db, uid, 5.0 + (index % 3), minute=index)
    first = service.leaderboard_page(db, offset=0, limit=3)
    second = service.leaderboard_page(db, offset=3, limit=3)
    third = service.leaderboard_page(db, offset=6, limit=3)
    everything = service.leaderboard_page(db, offset=0, limit=10)
    assert ids(first) + ids(second) + ids(third) == ids(everything)
    assert [entry.rank for entry in third.entries] == [7]
    assert first.total == 7


def test_show_more_after_the_last_entry_continues_through_ties(db):
    uid = member(db, "keyset")
    for index in range(9):
        photo(db, uid, 5.0 + (index % 2), minute=index % 3)
    everything = service.leaderboard_page(db, offset=0, limit=20).entries
    first = service.leaderboard_page(db, offset=0, limit=4).entries
    second = service.leaderboard_page(db, offset=4, limit=4, after=first[-1].photo_id).entries
    third = service.leaderboard_page(db, offset=8, limit=4, after=second[-1].photo_id).entries
    assert first + second + third == everything


def test_show_more_after_an_entry_removed_meanwhile_goes_on_from_the_position(db):
    boss, uid = admin(db), member(db, "gone")
    rows = [photo(db, uid, 9.0 - index) for index in range(5)]
    service.remove_entry(db, boss, rows[1].id)
    page = service.leaderboard_page(db, offset=2, limit=5, after=str(rows[1].id))
    assert ids(page) == [str(row.id) for row in rows[3:]]
    assert [entry.rank for entry in page.entries] == [3, 4]


def test_entries_show_the_edit_name_bio_and_score(db):
    uid = member(db, "shown")
    row = photo(
        db, uid, 8.66, display_name="Ana", bio="<b>hi</b>", edited_image_url="/media/u/x/e.jpg"
    )
    (entry,) = service.leaderboard_page(db, offset=0, limit=5).entries
    assert entry.photo_id == str(row.id)
    assert (entry.display_name, entry.bio, entry.score) == ("Ana", "<b>hi</b>", 8.7)
    assert entry.image_url == "/media/u/x/e.jpg"


def test_verified_badge_from_the_entry_or_the_members_profile(db):
    plain, checked, profile_verified = member(db, "p"), member(db, "c"), member(db, "v")
    profile = db.get(Profile, profile_verified)
    profile.is_verified = True
    db.add(profile)
    photo(db, plain, 9.0)
    photo(db, checked, 8.0, is_verified=True)
    photo(db, profile_verified, 7.0)
    entries = service.leaderboard_page(db, offset=0, limit=5).entries
    assert [entry.verified for entry in entries] == [False, True, True]


def test_submitting_lists_the_members_photo_queued_under_the_name_and_bio_given(db):
    uid = member(db, "entrant")
    row = photo(db, uid, 8.0, listed=False)
    service.submit_to_ranking(db, uid, str(row.id), "  Ana  ", "  Loves <b>rockets</b> ")
    db.refresh(row)
    assert row.public_listing is True and row.is_verified is False
    assert (row.display_name, row.bio) == ("Ana", "Loves <b>rockets</b>")
    assert service.rank_of(db, row.id) == 1
    entry = service.leaderboard_page(db, offset=0, limit=1).entries[0]
    assert (entry.display_name, entry.bio) == ("Ana", "Loves <b>rockets</b>")


def test_submitting_without_a_display_name_is_refused_with_the_documents_message(db):
    uid = member(db, "nameless")
    row = photo(db, uid, 8.0, listed=False, display_name="From the results page")
    for nothing in (None, "", "   "):
        with pytest.raises(ValidationFailed) as refused:
            service.submit_to_ranking(db, uid, row.id, nothing, "a bio")
        assert refused.value.message == messages.PLEASE_ENTER_DISPLAY_NAME
    db.refresh(row)
    assert row.public_listing is False
    assert service.leaderboard_page(db, offset=0, limit=1).total == 0


def test_the_bio_is_optional_and_long_words_are_cut_to_the_forms_limits(db):
    uid = member(db, "long")
    row = photo(db, uid, 8.0, listed=False)
    service.submit_to_ranking(db, uid, row.id, "N" * 80, "   ")
    db.refresh(row)
    assert (row.display_name, row.bio) == ("N" * MAX_DISPLAY_NAME, None)


def test_a_listed_entry_keeps_its_place_and_a_new_name_goes_back_to_review(db):
    uid = member(db, "renamed")
    row = photo(db, uid, 8.0, display_name="Zoe", is_verified=True)
    service.submit_to_ranking(db, uid, row.id, "Zoe", None)
    db.refresh(row)
    assert (row.display_name, row.is_verified) == ("Zoe", True)  # nothing new to review
    service.submit_to_ranking(db, uid, row.id, "Zoe B.", "New bio")
    db.refresh(row)
    assert (row.display_name, row.bio, row.is_verified) == ("Zoe B.", "New bio", False)
    assert service.rank_of(db, row.id) == 1


def test_nothing_selected_is_refused_with_the_documents_message(db):
    uid = member(db, "empty")
    for nothing in (None, "", "  "):
        with pytest.raises(ValidationFailed) as refused:
            service.submit_to_ranking(db, uid, nothing, "Ana")
        assert refused.value.message == messages.SELECT_PHOTO_TO_SUBMIT


def test_someone_elses_photo_cannot_be_submitted(db):
    owner, other = member(db, "owner"), member(db, "other")
    row = photo(db, owner, 8.0, listed=False)
    with pytest.raises(NotFound):
        service.submit_to_ranking(db, other, row.id, "Thief")
    db.refresh(row)
    assert row.public_listing is False


def test_only_the_members_ten_best_photos_are_offered_and_accepted(db):
    uid = member(db, "many")
    rows = [photo(db, uid, 1.0 + index * 0.5, minute=index, listed=False) for index in range(12)]
    offered = service.top_photos_for_submission(db, uid)
    assert [row.id for row in offered] == [row.id for row in reversed(rows)][:10]
    with pytest.raises(ValidationFailed):
        service.submit_to_ranking(db, uid, rows[0].id, "Eleventh best")
    assert service.leaderboard_page(db, offset=0, limit=5).total == 0


def test_pending_entries_are_the_listed_unverified_ones_newest_first(db):
    uid = member(db, "queue")
    old = photo(db, uid, 9.0, minute=1)
    new = photo(db, uid, 5.0, minute=8)
    photo(db, uid, 9.5, is_verified=True)
    photo(db, uid, 9.9, listed=False)
    assert [entry.photo_id for entry in service.pending_entries(db)] == [str(new.id), str(old.id)]


def test_an_admin_verifies_an_entry_and_it_shows_the_badge(db):
    boss, uid = admin(db), member(db, "verified")
    row = photo(db, uid, 9.0)
    service.verify_entry(db, boss, row.id)
    assert service.leaderboard_page(db, offset=0, limit=1).entries[0].verified is True
    assert service.pending_entries(db) == []


def test_an_admin_removes_an_entry_at_once(db):
    boss, uid = admin(db), member(db, "removed")
    kept, removed = photo(db, uid, 8.0), photo(db, uid, 9.0)
    service.remove_entry(db, boss, removed.id)
    page = service.leaderboard_page(db, offset=0, limit=5)
    assert ids(page) == [str(kept.id)] and page.total == 1
    assert service.rank_of(db, kept.id) == 1
    with pytest.raises(NotFound):
        service.rank_of(db, removed.id)


def test_a_member_who_is_not_an_admin_cannot_moderate(db):
    uid = member(db, "plain")
    row = photo(db, uid, 9.0)
    for action in (service.verify_entry, service.remove_entry):
        with pytest.raises(PermissionDenied):
            action(db, uid, row.id)
    db.refresh(row)
    assert row.public_listing is True and row.is_verified is False
