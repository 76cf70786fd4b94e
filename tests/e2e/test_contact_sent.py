"""The requester's side of paid contact requests in a real browser: a second request for
the same contestant is refused with its message; Sent requests shows pending, approved
(with the chat) and denied (refunded) ones; the notice after paying shows only to a member
whose request is paid. And /premium?success=true confirms only what the server knows."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import expect

from prettyscore.accounts.models import User
from prettyscore.billing import checkout
from prettyscore.contact import service
from prettyscore.core import messages
from prettyscore.photos.models import Photo
from tests.e2e.flows import member_id, new_member, open_page, wait_for_path, with_app_database

pytestmark = pytest.mark.e2e

RUN = uuid.uuid4().hex[:6]  # other tests list photos on the same server
HELLO = "Hello there, I loved your photo!"


def listed_contestant(app_server, name: str, score: float = 9.99) -> uuid.UUID:
    """A contestant (a member) with a photo on the leaderboard, as entering leaves it."""
    with with_app_database(app_server) as db:
        owner = User(email=f"contestant-{uuid.uuid4().hex[:8]}@example.com", password_hash="x")
        db.add(owner)
        db.flush()
        photo = Photo(
            user_id=owner.id,
            original_image_url="/media/member/x.jpg",
            score=score,
            rating_label="Stunning",
            breakdown={},
            public_listing=True,
            display_name=name,
        )
        db.add(photo)
        db.flush()
        return photo.id


def paid_request(app_server, requester: str, photo_id: uuid.UUID, answer: str = "") -> str:
    """A request of ``requester`` paid through the test checkout, then approved or denied
    by the contestant when ``answer`` says so."""
    with with_app_database(app_server) as db:
        member = db.get(User, member_id(db, requester))
        request = service.create_request(db, member, photo_id, HELLO)
        url = service.start_payment(db, member, request)
        checkout.pay_test_checkout(db, member.id, url.split("=", 1)[1])
        if answer == "approved":
            service.approve(db, request.contestant_id, request.id)
        elif answer == "denied":
            service.deny(db, request.contestant_id, request.id)
        return str(request.id)


def contact_button(page, photo_id):
    entry = page.locator(f'[data-testid="leaderboard-entry"][data-photo-id="{photo_id}"]')
    return entry.get_by_role("button", name=getattr(messages, "LEADERBOARD_CONTACT", "Contact"))


def test_a_second_request_for_the_same_contestant_is_refused_with_its_message(page, app_server):
    base = app_server.base_url
    name = f"Refusal {RUN}"
    photo_id = listed_contestant(app_server, name)
    requester = new_member(page, base, "requester")

    open_page(page, f"{base}/leaderboard")
    contact_button(page, photo_id).click()
    dialog = page.get_by_test_id("contact-dialog")
    expect(dialog.get_by_test_id("contact-title")).to_have_text(
        messages.CONTACT_DIALOG_TITLE.format(name=name)
    )
    # Meanwhile, in another tab, the member pays a request to the same contestant.
    paid_request(app_server, requester, photo_id)

    dialog.get_by_test_id("contact-message").fill("A second hello, just in case")
    dialog.get_by_role("button", name=messages.CONTACT_SEND).click()
    expect(page.get_by_text(messages.CONTACT_REQUEST_ALREADY_OPEN)).to_be_visible()
    expect(page).to_have_url(re.compile(r"/leaderboard/?$"))  # no checkout
    dialog.get_by_role("button", name=messages.CONTACT_CANCEL).click()

    open_page(page, f"{base}/leaderboard")
    contact_button(page, photo_id).click()
    expect(page.get_by_text(messages.CONTACT_REQUEST_ALREADY_OPEN)).to_be_visible()
    expect(page.get_by_test_id("contact-dialog")).to_have_count(0)
    with with_app_database(app_server) as db:
        assert len(service.sent(db, member_id(db, requester))) == 1


def test_sent_requests_show_pending_approved_with_the_chat_and_denied_refunded(page, app_server):
    base = app_server.base_url
    requester = new_member(page, base, "requester")
    open_page(page, f"{base}/contestant-requests")
    expect(page.get_by_test_id("no-sent-requests")).to_have_text(messages.NO_SENT_CONTACT_REQUESTS)

    requests = {
        answer: paid_request(
            app_server, requester, listed_contestant(app_server, f"{answer} {RUN}"), answer
        )
        for answer in ("pending", "approved", "denied")
    }
    open_page(page, f"{base}/contestant-requests")
    expect(page.get_by_test_id("sent-requests-title")).to_have_text(messages.CONTACT_SENT_TITLE)
    cards = page.get_by_test_id("sent-request")
    expect(cards).to_have_count(3)

    def card_to(answer: str):
        return cards.filter(has_text=messages.CONTACT_TO.format(contestant=f"{answer} {RUN}"))

    pending = card_to("pending")
    expect(pending.get_by_test_id("sent-request-status")).to_have_text(
        messages.CONTACT_STATUS_PENDING
    )
    expect(pending.get_by_test_id("sent-request-message")).to_have_text(HELLO)
    expect(pending.get_by_role("link", name=messages.CONTACT_OPEN_CHAT)).to_have_count(0)

    approved = card_to("approved")
    expect(approved.get_by_test_id("sent-request-status")).to_have_text(
        messages.CONTACT_STATUS_APPROVED
    )
    chat = approved.get_by_role("link", name=messages.CONTACT_OPEN_CHAT)
    expect(chat).to_have_attribute("href", f"/messages/{requests['approved']}")

    denied = card_to("denied")
    status = denied.get_by_test_id("sent-request-status")
    expect(status).to_contain_text(messages.CONTACT_STATUS_DENIED)
    expect(status).to_contain_text(messages.CONTACT_STATUS_REFUNDED)
    expect(denied.get_by_role("link", name=messages.CONTACT_OPEN_CHAT)).to_have_count(0)

    chat.click()
    wait_for_path(page, f"/messages/{requests['approved']}")


def test_after_paying_the_leaderboard_says_the_request_was_sent_and_to_no_one_else(
    new_context, app_server
):
    base = app_server.base_url
    name = f"Notice {RUN}"
    photo_id = listed_contestant(app_server, name)
    page = new_context().new_page()
    new_member(page, base, "requester")

    open_page(page, f"{base}/leaderboard")
    contact_button(page, photo_id).click()
    dialog = page.get_by_test_id("contact-dialog")
    dialog.get_by_test_id("contact-message").fill(HELLO)
    dialog.get_by_role("button", name=messages.CONTACT_SEND).click()
    page.wait_for_url(re.compile(r"/checkout/test/?\?session=cs_test_local_\w+$"))
    amount = page.get_by_test_id("checkout-amount")
    expect(amount).to_have_text(re.compile(r"^\$"))
    pay = messages.TEST_CHECKOUT_PAY.format(amount=amount.inner_text())
    page.get_by_role("button", name=pay).click()
    wait_for_path(page, "/leaderboard", "?contact=sent")
    notice = page.get_by_test_id("contact-sent-notice")
    expect(notice).to_contain_text(messages.CONTACT_SENT_NOTICE.format(name=name))
    notice.get_by_role("link", name=messages.CONTACT_SEE_SENT).click()
    wait_for_path(page, "/contestant-requests", "#sent")
    expect(page.get_by_test_id("sent-request")).to_have_count(1)

    # Anyone else opening the same address: a member who paid nothing, a visitor.
    other = new_context().new_page()
    new_member(other, base, "stranger")
    visitor = new_context().new_page()
    for someone in (other, visitor):
        open_page(someone, f"{base}/leaderboard?contact=sent")
        someone.wait_for_timeout(2500)
        expect(someone.get_by_test_id("contact-sent-notice")).to_have_count(0)
        expect(someone.get_by_text(messages.CONTACT_SENT_NOTICE.format(name=name))).to_have_count(0)


def test_premium_success_says_processing_only_to_a_member_with_a_checkout_on_its_way(
    new_context, app_server
):
    base = app_server.base_url
    visitor = new_context().new_page()
    open_page(visitor, f"{base}/premium?success=true")
    expect(visitor.get_by_test_id("premium-plan")).to_be_visible()
    visitor.wait_for_timeout(1500)
    expect(visitor.get_by_test_id("premium-success")).to_have_count(0)
    expect(visitor.get_by_text(messages.PREMIUM_WELCOME_TITLE)).to_have_count(0)
    expect(visitor.get_by_text(messages.PREMIUM_WELCOME_BODY)).to_have_count(0)
    expect(visitor).to_have_url(re.compile(r"/premium/?\?success=true$"))  # stays put

    # A member who never opened a checkout: nothing is "still being processed".
    member = new_context().new_page()
    new_member(member, base, "unpaid")
    open_page(member, f"{base}/premium?success=true")
    expect(member.get_by_test_id("premium-plan")).to_be_visible()
    member.wait_for_timeout(1500)
    expect(member.get_by_test_id("premium-processing")).to_have_count(0)
    expect(member.get_by_test_id("premium-success")).to_have_count(0)
    expect(member).to_have_url(re.compile(r"/premium/?\?success=true$"))  # stays put

    # One who opened a checkout whose payment has not arrived: still being processed.
    member.get_by_role("button", name=messages.PREMIUM_SUBSCRIBE).click()
    member.wait_for_url(re.compile(r"/checkout/test/?\?session=\w+$"))
    open_page(member, f"{base}/premium?success=true")
    expect(member.get_by_test_id("premium-processing")).to_contain_text(
        messages.PREMIUM_PAYMENT_PROCESSING
    )
    expect(member.get_by_test_id("premium-success")).to_have_count(0)
    expect(member.get_by_text(messages.PREMIUM_WELCOME_BODY)).to_have_count(0)
    wait_for_path(member, "/dashboard")
