"""Verification in a browser: a member asks, an admin reviews, the badge appears."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from prettyscore.core import messages
from prettyscore.photos.models import Photo
from prettyscore.verification import service as verification
from tests.e2e.flows import (
    expect_on_load_notice,
    member_id,
    new_admin,
    new_member,
    open_page,
    wait_for_path,
    with_app_database,
)

pytestmark = pytest.mark.e2e


def listed_photo(app_server, address: str) -> str:
    """A listed leaderboard photo of the member, not verified as an entry."""
    with with_app_database(app_server) as db:
        photo = Photo(
            user_id=member_id(db, address),
            original_image_url=f"/media/u/{uuid.uuid4()}/missing.jpg",
            score=1.2,
            rating_label="Attractive",
            public_listing=True,
            display_name=f"Hopeful {uuid.uuid4().hex[:4]}",
        )
        db.add(photo)
        db.flush()
        return str(photo.id)


def request_id_of(app_server, address: str) -> str:
    with with_app_database(app_server) as db:
        return str(verification.request_of(db, member_id(db, address)).id)


def ask_for_verification(page, base: str, name: str) -> None:
    open_page(page, f"{base}/request-verification")
    form = page.get_by_test_id("verification-form")
    form.get_by_label(messages.VERIFICATION_FULL_NAME).fill(name)
    form.get_by_role("button", name=messages.VERIFICATION_SUBMIT).click()
    expect(page.get_by_test_id("error-reason")).to_have_text(messages.VERIFICATION_REASON_REQUIRED)
    form.get_by_label(messages.VERIFICATION_REASON).fill("Fans keep asking if it's really me.")
    form.get_by_label(messages.VERIFICATION_INSTAGRAM).fill("@the.real.one")
    form.get_by_role("button", name=messages.VERIFICATION_SUBMIT).click()
    expect(page.get_by_text(messages.VERIFICATION_SUBMITTED)).to_be_visible()
    expect(page.get_by_test_id("verification-status")).to_have_text("Pending")
    expect(page.get_by_test_id("verification-form")).to_have_count(0)


def review(page, app_server, address: str, button: str, notes: str) -> None:
    """As a new admin: open /admin/verification and review the member's request."""
    new_admin(page, app_server)
    open_page(page, f"{app_server.base_url}/admin/verification")
    card = page.locator(
        f'[data-testid="verification-request"]'
        f'[data-request-id="{request_id_of(app_server, address)}"]'
    )
    expect(card).to_contain_text(address)
    expect(card).to_contain_text("@the.real.one")
    expect(card.get_by_test_id("status-badge")).to_have_text("Pending")
    card.get_by_label(messages.VERIFICATION_NOTES_LABEL).fill(notes)
    card.get_by_role("button", name=button).click()


def test_an_approved_member_is_verified_and_badged_on_the_leaderboard(
    page, new_context, app_server
):
    base = app_server.base_url
    member_page = new_context().new_page()
    address = new_member(member_page, base, "hopeful")
    photo_id = listed_photo(app_server, address)
    entry = f'[data-testid="leaderboard-entry"][data-photo-id="{photo_id}"]'
    visitor = new_context().new_page()
    open_page(visitor, f"{base}/leaderboard")
    expect(visitor.locator(entry)).to_be_visible()
    expect(visitor.locator(entry).get_by_test_id("verified-badge")).to_have_count(0)

    ask_for_verification(member_page, base, "Hope Ful")
    review(page, app_server, address, messages.VERIFICATION_APPROVE, "Welcome!")
    expect(page.get_by_text(messages.VERIFICATION_APPROVED)).to_be_visible()

    open_page(member_page, f"{base}/request-verification")
    expect(member_page.get_by_text(messages.YOU_ARE_VERIFIED)).to_be_visible()
    open_page(visitor, f"{base}/leaderboard")
    expect(visitor.locator(entry).get_by_test_id("verified-badge")).to_be_visible()


def test_a_rejected_member_sees_the_notes_and_whom_to_contact(page, new_context, app_server):
    base = app_server.base_url
    member_page = new_context().new_page()
    address = new_member(member_page, base, "rejected")
    ask_for_verification(member_page, base, "Not Yet")
    review(page, app_server, address, messages.VERIFICATION_REJECT, "Link a public profile")
    expect(page.get_by_text(messages.VERIFICATION_REJECTED, exact=True)).to_be_visible()

    open_page(member_page, f"{base}/request-verification")
    expect(member_page.get_by_test_id("verification-status")).to_have_text("Rejected")
    expect(member_page.get_by_text("Link a public profile")).to_be_visible()
    expect(member_page.get_by_text(messages.VERIFICATION_REJECTED_CONTACT)).to_be_visible()
    expect(member_page.get_by_test_id("verification-form")).to_have_count(0)


def test_a_visitor_is_sent_to_sign_in_and_back(page, app_server):
    page.goto(f"{app_server.base_url}/request-verification")
    expect_on_load_notice(page, messages.SIGN_IN_TO_REQUEST_VERIFICATION)
    wait_for_path(page, "/auth", "?next=/request-verification")
