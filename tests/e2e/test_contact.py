"""Paid contact requests in a real browser, with two members in two browsers: the
contestant's inbox (approve, deny with a refund, the sidebar's count) and the contact
dialog on the leaderboard."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from prettyscore.accounts.models import User
from prettyscore.billing import checkout
from prettyscore.billing.models import CheckoutSession
from prettyscore.contact import service
from prettyscore.contact.models import ContactRequest
from prettyscore.core import messages
from prettyscore.photos.models import Photo
from tests.e2e.flows import (
    astronaut_jpeg,
    member_id,
    new_member,
    open_page,
    save_scored_photo,
    wait_for_path,
    with_app_database,
)

pytestmark = pytest.mark.e2e

# One name per run of this module: other tests list photos on the same server.
CONTESTANT_NAME = f"Bella {uuid.uuid4().hex[:6]}"


@pytest.fixture(scope="module")
def face_photo(tmp_path_factory):
    return astronaut_jpeg(tmp_path_factory.mktemp("photos"))


def list_members_photo(app_server, address: str) -> uuid.UUID:
    """Put the member's saved photo on the leaderboard (as entering the contest does)."""
    with with_app_database(app_server) as db:
        photo = db.exec(select(Photo).where(Photo.user_id == member_id(db, address))).one()
        photo.public_listing, photo.display_name = True, CONTESTANT_NAME
        db.add(photo)
        return photo.id


def send_request(app_server, requester: str, photo_id, message: str, *, pay: bool) -> str:
    """A contact request made by ``requester``, paid through the test checkout if ``pay``."""
    with with_app_database(app_server) as db:
        member = db.get(User, member_id(db, requester))
        request = service.create_request(db, member, photo_id, message)
        url = service.start_payment(db, member, request)
        if pay:
            checkout.pay_test_checkout(db, member.id, url.split("=", 1)[1])
        return str(request.id)


def contestant_with_listed_photo(new_context, app_server, face_photo):
    page = new_context().new_page()
    address = new_member(page, app_server.base_url, "contestant")
    save_scored_photo(page, app_server.base_url, face_photo)
    return page, address, list_members_photo(app_server, address)


def test_the_contestant_approves_one_paid_request_and_denies_another(
    new_context, app_server, face_photo
):
    base = app_server.base_url
    contestant_page, _, photo_id = contestant_with_listed_photo(new_context, app_server, face_photo)
    requester_page = new_context().new_page()
    requester = new_member(requester_page, base, "requester")
    second_requester = new_member(new_context().new_page(), base, "requester")
    second_name = f"Sam {uuid.uuid4().hex[:6]}"
    with with_app_database(app_server) as db:  # a name given with the account
        db.get(User, member_id(db, second_requester)).user_metadata = {"full_name": second_name}

    marked_up = "<b>Hello</b> Bella, I would love to chat!"
    to_approve = send_request(app_server, requester, photo_id, marked_up, pay=True)
    # One open request per member and contestant: the unpaid one is replaced by the next.
    send_request(app_server, second_requester, photo_id, "Never paid for this one", pay=False)
    to_deny = send_request(
        app_server, second_requester, photo_id, "Second hello, nice photo", pay=True
    )
    with with_app_database(app_server) as db:
        rank = service.rank_of_photo(db, photo_id)
    fee = checkout.format_amount(service.fee_for_rank(rank))
    share = checkout.format_amount(service.shares(service.fee_for_rank(rank))[1])

    open_page(contestant_page, f"{base}/contestant-requests")
    cards = contestant_page.get_by_test_id("contact-request")
    expect(cards).to_have_count(2)  # the unpaid one never arrives
    expect(contestant_page.get_by_test_id("contact-requests-count")).to_have_text("2")
    first = cards.filter(has_text="Bella, I would love")
    # Each sender by the name they show other members, never by their email address.
    expect(first.get_by_test_id("contact-requester")).to_have_text(
        messages.CONTACT_FROM.format(requester=messages.MEMBER_WITHOUT_NAME)
    )
    expect(cards.filter(has_text="Second hello").get_by_test_id("contact-requester")).to_have_text(
        messages.CONTACT_FROM.format(requester=second_name)
    )
    for address in (requester, second_requester):
        for shown in (address, address.split("@")[0]):
            expect(contestant_page.get_by_text(shown)).to_have_count(0)
    expect(first.get_by_test_id("contact-request-message")).to_have_text(marked_up)
    expect(first.locator("b")).to_have_count(0)  # shown as text, never as HTML
    expect(first.get_by_text(messages.CONTACT_RANK.format(rank=rank))).to_be_visible()
    expect(first.get_by_text(messages.CONTACT_FEE.format(fee=fee))).to_be_visible()
    expect(first.get_by_test_id("contact-request-share")).to_have_text(
        messages.CONTACT_YOUR_SHARE.format(share=share)
    )

    first.get_by_role("button", name=messages.CONTACT_APPROVE).click()
    expect(contestant_page.get_by_text(messages.CONTACT_REQUEST_APPROVED)).to_be_visible()
    expect(first.get_by_text(messages.CONTACT_STATUS_APPROVED)).to_be_visible()
    chat = first.get_by_role("link", name=messages.CONTACT_OPEN_CHAT)
    expect(chat).to_have_attribute("href", f"/messages/{to_approve}")
    expect(contestant_page.get_by_test_id("contact-requests-count")).to_have_text("1")

    second = cards.filter(has_text="Second hello")
    second.get_by_role("button", name=messages.CONTACT_DENY).click()
    expect(contestant_page.get_by_text(messages.CONTACT_REQUEST_DENIED)).to_be_visible()
    expect(cards).to_have_count(1)
    expect(contestant_page.get_by_test_id("contact-requests-count")).to_have_count(0)

    with with_app_database(app_server) as db:
        approved = db.get(ContactRequest, uuid.UUID(to_approve))
        denied = db.get(ContactRequest, uuid.UUID(to_deny))
        refund = db.exec(
            select(CheckoutSession).where(CheckoutSession.reference_id == to_deny)
        ).one()
    assert approved.status == "approved"
    assert (denied.status, denied.payment_status, refund.status) == (
        "denied",
        "refunded",
        "refunded",
    )

    # The requester's own inbox holds nothing: the requests are addressed to the contestant.
    open_page(requester_page, f"{base}/contact-requests")
    expect(requester_page.get_by_test_id("no-contact-requests")).to_have_text(
        messages.NO_CONTACT_REQUESTS
    )


def test_the_inbox_is_for_members_only(page, app_server):
    page.goto(app_server.url("/contestant-requests"))
    wait_for_path(page, "/auth", "?next=/contestant-requests")


def test_a_member_contacts_a_contestant_from_the_leaderboard_and_they_chat(
    new_context, app_server, face_photo
):
    base = app_server.base_url
    contestant_page, _, photo_id = contestant_with_listed_photo(new_context, app_server, face_photo)
    page = new_context().new_page()
    requester = new_member(page, base, "requester")
    with with_app_database(app_server) as db:
        rank = service.rank_of_photo(db, photo_id)
    fee = checkout.format_amount(service.fee_for_rank(rank))

    open_page(page, f"{base}/leaderboard")
    entry = page.locator(f'[data-testid="leaderboard-entry"][data-photo-id="{photo_id}"]')
    entry.get_by_role("button", name=getattr(messages, "LEADERBOARD_CONTACT", "Contact")).click()
    dialog = page.get_by_test_id("contact-dialog")
    expect(dialog.get_by_test_id("contact-title")).to_have_text(
        messages.CONTACT_DIALOG_TITLE.format(name=CONTESTANT_NAME)
    )
    expect(dialog.get_by_test_id("contact-rank")).to_have_text(
        messages.CONTACT_RANK.format(rank=rank)
    )
    expect(dialog.get_by_test_id("contact-fee")).to_have_text(messages.CONTACT_FEE.format(fee=fee))
    send = dialog.get_by_role("button", name=messages.CONTACT_SEND)
    expect(send).to_be_disabled()

    box = dialog.get_by_test_id("contact-message")
    for text, error in (
        ("  " + "x" * 9 + "  ", messages.CONTACT_MESSAGE_TOO_SHORT),
        ("y" * 1001, messages.CONTACT_MESSAGE_TOO_LONG),
    ):
        box.fill(text)
        expect(dialog.get_by_test_id("contact-message-count")).to_have_text(
            messages.CONTACT_CHARACTER_COUNT.format(count=len(text.strip()))
        )
        send.click()
        expect(page.get_by_text(error)).to_be_visible()
    box.fill("Hi Bella, may I ask about your photo?")
    send.click()

    page.wait_for_url(re.compile(r"/checkout/test/?\?session=cs_test_local_\w+$"))
    expect(page.get_by_test_id("checkout-amount")).to_have_text(fee)
    page.get_by_role("button", name=messages.TEST_CHECKOUT_PAY.format(amount=fee)).click()
    wait_for_path(page, "/leaderboard", "?contact=sent")

    open_page(contestant_page, f"{base}/contestant-requests")
    expect(
        contestant_page.get_by_test_id("contact-request").filter(has_text="may I ask")
    ).to_have_count(1)

    # The contestant approves; both open the chat; messages arrive live both ways.
    request = contestant_page.get_by_test_id("contact-request").filter(has_text="may I ask")
    request.get_by_role("button", name=messages.CONTACT_APPROVE).click()
    request.get_by_role("link", name=messages.CONTACT_OPEN_CHAT).click()
    wait_for_path(contestant_page, "/messages/" + request_id_of(app_server, photo_id))
    contestant_page.get_by_test_id("chat-input").wait_for()
    chat_with = messages.CHAT_WITH.format(name=messages.MEMBER_WITHOUT_NAME)
    expect(contestant_page.get_by_text(chat_with)).to_be_visible()
    expect(contestant_page.get_by_text(requester.split("@")[0])).to_have_count(0)
    open_page(page, f"{base}/messages/{request_id_of(app_server, photo_id)}")
    for sender, receiver, text in (
        (page, contestant_page, "Lovely to meet you, Bella!"),
        (contestant_page, page, "Thank you, nice to meet you too."),
    ):
        sender.get_by_test_id("chat-input").fill(text)
        expect(sender.get_by_role("button", name=messages.CHAT_SEND)).to_be_enabled()
        sender.get_by_test_id("chat-input").press("Enter")
        expect(
            receiver.get_by_test_id("message-theirs").get_by_test_id("message-text").last
        ).to_have_text(text, timeout=10_000)


def request_id_of(app_server, photo_id) -> str:
    """The id of the (one) contact request made for ``photo_id``."""
    with with_app_database(app_server) as db:
        return str(
            db.exec(select(ContactRequest.id).where(ContactRequest.photo_id == photo_id)).one()
        )
