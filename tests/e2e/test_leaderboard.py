"""The leaderboard in a browser: entering the contest, what visitors see, moderation."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect
from sqlmodel import func, select

from prettyscore.accounts import service as accounts
from prettyscore.core import messages
from prettyscore.leaderboard import service as leaderboard
from prettyscore.leaderboard.service import PAGE_SIZE
from prettyscore.photos.models import Photo
from tests.e2e.flows import (
    astronaut_jpeg,
    expect_on_load_notice,
    member_id,
    new_member,
    open_page,
    save_scored_photo,
    submit_first_choice_to_ranking,
    wait_for_path,
    with_app_database,
)

pytestmark = pytest.mark.e2e

# Entries put straight into the database score low, so a scored photo entered through
# the contest page always ranks above them.
LOW_SCORE = 1.5
# Filler entries for paging rank below every other test's entries.
FILLER_SCORE = 1.0


def entry(page, photo_id):
    return page.locator(f'[data-testid="leaderboard-entry"][data-photo-id="{photo_id}"]')


def listed_entry(app_server, address: str, **fields) -> str:
    """A listed photo of the member with ``address``, as the contest page would leave it."""
    with with_app_database(app_server) as db:
        photo = Photo(
            user_id=member_id(db, address),
            original_image_url=f"/media/u/{uuid.uuid4()}/missing.jpg",
            score=fields.pop("score", LOW_SCORE),
            rating_label="Attractive",
            public_listing=True,
            display_name=fields.pop("display_name", "Listed member"),
            **fields,
        )
        db.add(photo)
        db.flush()
        return str(photo.id)


def only_photo_of(app_server, address: str) -> Photo:
    with with_app_database(app_server) as db:
        return db.exec(select(Photo).where(Photo.user_id == member_id(db, address))).one()


def test_a_member_enters_a_saved_photo_and_sees_it_ranked(page, app_server, tmp_path):
    base = app_server.base_url
    address = new_member(page, base, "entrant")
    save_scored_photo(page, base, astronaut_jpeg(tmp_path))
    open_page(page, f"{base}/global-ranking")
    expect(page.get_by_text(messages.CONTEST_GRAND_PRIZE)).to_be_visible()
    page.get_by_role("button", name=messages.CONTEST_SUBMIT).click()
    expect(page.get_by_text(messages.SELECT_PHOTO_TO_SUBMIT)).to_be_visible()

    submit_first_choice_to_ranking(page, base)
    mine = entry(page, only_photo_of(app_server, address).id)
    expect(mine).to_be_visible()
    # Other tests list photos on the same server: the rank is the server's count.
    with with_app_database(app_server) as db:
        rank = leaderboard.rank_of(db, only_photo_of(app_server, address).id)
    expect(mine.get_by_label(f"Rank {rank}")).to_be_visible()
    medals = {1: "gold", 2: "silver", 3: "bronze"}
    if rank in medals:
        expect(mine.get_by_test_id("rank-icon")).to_have_attribute("data-medal", medals[rank])
    first = page.get_by_test_id("leaderboard-entry").first
    expect(first.get_by_test_id("rank-icon")).to_have_attribute("data-medal", "gold")
    expect(page.get_by_text(messages.LEADERBOARD_TIE_RULE)).to_be_visible()  # equal scores
    expect(mine.get_by_role("button", name=messages.LEADERBOARD_CONTACT)).to_have_count(0)


def test_a_visitor_must_sign_in_to_contact_and_sees_bios_as_plain_text(
    page, new_context, app_server
):
    base = app_server.base_url
    owner = new_member(new_context().new_page(), base, "bio")
    bio = "<script>alert(1)</script><b>x</b>"
    photo_id = listed_entry(app_server, owner, bio=bio)

    open_page(page, f"{base}/leaderboard")
    shown = entry(page, photo_id)
    expect(shown.get_by_test_id("entry-bio")).to_have_text(bio)
    expect(shown.locator("b")).to_have_count(0)
    shown.get_by_role("button", name=messages.LEADERBOARD_CONTACT).click()
    expect(page.get_by_text(messages.SIGN_IN_TO_CONTACT)).to_be_visible()
    wait_for_path(page, "/auth", "?next=/leaderboard")


def test_an_admin_verifies_one_entry_and_removes_another_at_once(
    page, new_context, app_server, tmp_path
):
    base = app_server.base_url
    contestant_page = new_context().new_page()
    contestant = new_member(contestant_page, base, "contestant")
    save_scored_photo(contestant_page, base, astronaut_jpeg(tmp_path))
    submit_first_choice_to_ranking(contestant_page, base)
    removed = only_photo_of(app_server, contestant)
    removed_image = removed.edited_image_url or removed.original_image_url
    verified_id = listed_entry(app_server, new_member(new_context().new_page(), base, "queued"))

    visitor = new_context()
    assert visitor.request.get(f"{base}{removed_image}").status == 200

    admin = new_member(page, base, "moderator")
    with with_app_database(app_server) as db:
        accounts.grant_role(db, admin)
    open_page(page, f"{base}/admin/leaderboard")
    page.locator(f'[data-testid="pending-entry"][data-photo-id="{verified_id}"]').get_by_role(
        "button", name=messages.ADMIN_VERIFY
    ).click()
    expect(page.get_by_text(messages.ADMIN_ENTRY_VERIFIED)).to_be_visible()
    page.locator(f'[data-testid="pending-entry"][data-photo-id="{removed.id}"]').get_by_role(
        "button", name=messages.ADMIN_REMOVE
    ).click()
    expect(page.get_by_text(messages.ADMIN_ENTRY_REMOVED)).to_be_visible()

    board = visitor.new_page()
    open_page(board, f"{base}/leaderboard")
    expect(entry(board, verified_id).get_by_test_id("verified-badge")).to_be_visible()
    expect(entry(board, removed.id)).to_have_count(0)
    assert visitor.request.get(f"{base}{removed_image}").status == 404


def test_show_more_brings_the_next_entries_in_rank_order(page, new_context, app_server):
    base = app_server.base_url
    owner = new_member(new_context().new_page(), base, "filler")
    for _ in range(PAGE_SIZE + 5):
        listed_entry(app_server, owner, score=FILLER_SCORE)
    with with_app_database(app_server) as db:
        total = db.exec(select(func.count()).where(Photo.public_listing)).one()

    open_page(page, f"{base}/leaderboard")
    shown = page.get_by_test_id("leaderboard-entry")
    expect(shown).to_have_count(PAGE_SIZE)
    page.get_by_role("button", name=messages.LEADERBOARD_SHOW_MORE).click()
    expect(shown).to_have_count(min(total, 2 * PAGE_SIZE))
    expect(shown.nth(PAGE_SIZE).get_by_label(f"Rank {PAGE_SIZE + 1}")).to_be_visible()


def test_a_member_who_is_not_an_admin_cannot_moderate(page, app_server):
    base = app_server.base_url
    new_member(page, base, "not-admin")
    page.goto(f"{base}/admin/leaderboard")
    expect_on_load_notice(page, messages.ACCESS_DENIED_ADMIN_ONLY)
    wait_for_path(page, "/")
    expect(page.get_by_role("button", name=messages.ADMIN_VERIFY)).to_have_count(0)


def test_a_visitor_is_sent_to_sign_in_before_entering_the_contest(page, app_server):
    page.goto(f"{app_server.base_url}/global-ranking")
    wait_for_path(page, "/auth", "?next=/global-ranking")
