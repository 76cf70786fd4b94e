"""One open contact request per member and contestant: while a paid one is pending or
approved, a second one is refused before any checkout; an unpaid one still in its
checkout is replaced by the new one, so only one can ever be paid. Both databases,
concurrent attempts included; the requester's Sent list and the notice after paying."""

from __future__ import annotations

import threading
import uuid

import pytest
from sqlmodel import select

from prettyscore.accounts.models import User
from prettyscore.billing import checkout, webhooks
from prettyscore.billing.models import CheckoutSession
from prettyscore.contact import service
from prettyscore.contact.models import ContactRequest
from prettyscore.core import messages
from prettyscore.core.errors import DomainError
from tests.contact.test_service import GOOD_MESSAGE, listed_photo, paid_request
from tests.helpers import stripe_events

OTHER_MESSAGE = "Hello again, one more time!"


def open_requests(db, requester, contestant) -> list[ContactRequest]:
    db.expire_all()
    return db.exec(
        select(ContactRequest).where(
            ContactRequest.requester_id == requester.id,
            ContactRequest.contestant_id == contestant.id,
            ContactRequest.status.in_(service.OPEN_STATUSES),
            ContactRequest.payment_status.in_(service.LIVE_PAYMENTS),
        )
    ).all()


def checkouts_of(db, requester) -> list[CheckoutSession]:
    db.expire_all()
    rows = db.exec(select(CheckoutSession).where(CheckoutSession.user_id == requester.id))
    return sorted(rows.all(), key=lambda row: row.created_at)


def assert_refused(action) -> None:
    with pytest.raises(DomainError) as raised:
        action()
    assert raised.value.message == messages.CONTACT_REQUEST_ALREADY_OPEN


@pytest.mark.parametrize("answer", ["pending", "approved"])
def test_a_second_request_while_one_is_paid_is_refused_before_any_checkout(db, make_member, answer):
    requester, contestant = make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0)
    request = paid_request(db, requester, photo)
    if answer == "approved":
        service.approve(db, contestant.id, request.id)
        db.commit()
    before = len(checkouts_of(db, requester))

    assert_refused(lambda: service.contact_offer(db, requester.id, str(photo.id)))
    assert_refused(lambda: service.request_contact(db, requester, str(photo.id), OTHER_MESSAGE))
    db.rollback()
    assert [row.id for row in open_requests(db, requester, contestant)] == [request.id]
    assert len(checkouts_of(db, requester)) == before

    # another photo of the same contestant is the same contestant
    second_photo = listed_photo(db, contestant, 8.0, name="Also me")
    assert_refused(
        lambda: service.request_contact(db, requester, str(second_photo.id), GOOD_MESSAGE)
    )


def test_other_members_and_other_contestants_are_not_affected(db, make_member):
    requester, other_requester, contestant, other_contestant = (make_member() for _ in range(4))
    photo = listed_photo(db, contestant, 9.0)
    paid_request(db, requester, photo)
    paid_request(db, other_requester, photo)
    paid_request(db, requester, listed_photo(db, other_contestant, 8.0))


def test_after_a_denial_and_its_refund_the_member_may_ask_again(db, make_member):
    requester, contestant = make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0)
    request = paid_request(db, requester, photo)
    service.deny(db, contestant.id, request.id)
    db.commit()
    again = paid_request(db, requester, photo, OTHER_MESSAGE)
    assert again.paid and again.id != request.id


def test_an_unpaid_request_is_replaced_and_its_checkout_can_no_longer_be_paid(db, make_member):
    requester, contestant = make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0)
    first_url = service.request_contact(db, requester, str(photo.id), GOOD_MESSAGE)
    db.commit()
    second_url = service.request_contact(db, requester, str(photo.id), OTHER_MESSAGE)
    db.commit()

    assert first_url != second_url
    first, second = checkouts_of(db, requester)
    assert (first.status, second.status) == ("cancelled", "open")
    (still_open,) = open_requests(db, requester, contestant)
    assert still_open.message_preview == OTHER_MESSAGE
    replaced = db.get(ContactRequest, uuid.UUID(first.reference_id))
    assert replaced.payment_status == "superseded"
    with pytest.raises(DomainError):  # the replaced checkout is gone
        checkout.pay_test_checkout(db, requester.id, first_url.split("=", 1)[1])
    db.rollback()
    checkout.pay_test_checkout(db, requester.id, second_url.split("=", 1)[1])
    db.commit()
    assert_refused(lambda: service.request_contact(db, requester, str(photo.id), GOOD_MESSAGE))


def test_with_stripe_the_unpaid_request_stays_when_its_checkout_was_just_paid(
    db, make_member, fake_stripe
):
    requester, contestant = make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0)
    service.request_contact(db, requester, str(photo.id), GOOD_MESSAGE)
    db.commit()
    fake_stripe.fail_next(400)  # Stripe will not expire it: it was paid a moment ago
    with pytest.raises(checkout.CheckoutFailed):
        service.request_contact(db, requester, str(photo.id), OTHER_MESSAGE)
    db.rollback()
    (request,) = open_requests(db, requester, contestant)
    (payment,) = checkouts_of(db, requester)
    assert (request.message_preview, payment.status) == (GOOD_MESSAGE, "open")

    event = stripe_events.checkout_completed(
        payment.provider_session_id, requester.id, payment_intent="pi_standin_1"
    )
    webhooks.process_event(db, event)
    db.commit()
    assert_refused(lambda: service.request_contact(db, requester, str(photo.id), OTHER_MESSAGE))


def attempt_at_once(db_factory, requester_id, photo_id, count: int) -> list[object]:
    """``count`` requests of one member for one photo at the same moment, each in its own
    transaction: a checkout URL or the refusal's text for each."""
    start = threading.Barrier(count)
    outcomes: list[object] = []

    def attempt():
        start.wait()
        try:
            with db_factory() as session:
                member = session.get(User, requester_id)
                outcomes.append(
                    service.request_contact(session, member, str(photo_id), GOOD_MESSAGE)
                )
        except DomainError as error:
            outcomes.append(error.message)

    threads = [threading.Thread(target=attempt) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def test_requests_at_the_same_moment_leave_one_open_request_and_one_open_checkout(
    db, db_factory, make_member
):
    requester, contestant = make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0)
    outcomes = attempt_at_once(db_factory, requester.id, photo.id, 4)

    assert len(outcomes) == 4
    urls = [outcome for outcome in outcomes if str(outcome).startswith("/checkout/test")]
    assert urls and all(
        outcome in urls or outcome == messages.CONTACT_REQUEST_ALREADY_OPEN for outcome in outcomes
    )
    (request,) = open_requests(db, requester, contestant)
    still_open = [row for row in checkouts_of(db, requester) if row.status == "open"]
    assert [row.reference_id for row in still_open] == [str(request.id)]


def test_requests_at_the_same_moment_after_a_paid_one_are_all_refused(db, db_factory, make_member):
    requester, contestant = make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0)
    request = paid_request(db, requester, photo)
    outcomes = attempt_at_once(db_factory, requester.id, photo.id, 3)
    assert outcomes == [messages.CONTACT_REQUEST_ALREADY_OPEN] * 3
    assert [row.id for row in open_requests(db, requester, contestant)] == [request.id]
    assert len(checkouts_of(db, requester)) == 1


# ---------------------------------------------------------------------------
# A payment that lands after its request was replaced
# ---------------------------------------------------------------------------
def paid_requests(db, requester, contestant) -> list[ContactRequest]:
    return [row for row in open_requests(db, requester, contestant) if row.paid]


def test_a_payment_landing_on_a_replaced_checkout_is_refunded_and_delivers_nothing(db, make_member):
    requester, contestant = make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0)
    service.request_contact(db, requester, str(photo.id), GOOD_MESSAGE)
    db.commit()
    (old,) = checkouts_of(db, requester)
    paid_a_moment_ago = checkout.completed_checkout_event(old)  # Pay, before the new request
    second_url = service.request_contact(db, requester, str(photo.id), OTHER_MESSAGE)
    db.commit()

    webhooks.process_event(db, paid_a_moment_ago)
    db.commit()
    checkout.pay_test_checkout(db, requester.id, second_url.split("=", 1)[1])
    db.commit()

    old, new = checkouts_of(db, requester)
    assert (old.status, old.duplicate) == ("refunded", True)
    assert (new.status, new.duplicate) == ("paid", False)
    (paid,) = paid_requests(db, requester, contestant)
    assert paid.message_preview == OTHER_MESSAGE
    assert db.get(ContactRequest, uuid.UUID(old.reference_id)).paid is False


def test_a_payment_for_a_contestant_already_paid_for_is_a_duplicate(db, make_member):
    """Whatever request a payment names, one contestant has one paid open request from a
    member: a second request's payment is given back (here a request kept from before
    the one-open-request rule, with its own open checkout)."""
    requester, contestant = make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0)
    first = paid_request(db, requester, photo)
    older = ContactRequest(
        requester_id=requester.id,
        contestant_id=contestant.id,
        photo_id=photo.id,
        rank_at_request=1,
        fee_amount=first.fee_amount,
        platform_share=first.platform_share,
        contestant_share=first.contestant_share,
        message_preview=OTHER_MESSAGE,
    )
    db.add(older)
    db.commit()
    url = service.start_payment(db, requester, older)
    db.commit()

    checkout.pay_test_checkout(db, requester.id, url.split("=", 1)[1])
    db.commit()

    assert [row.id for row in paid_requests(db, requester, contestant)] == [first.id]
    payment = checkouts_of(db, requester)[-1]
    assert (payment.reference_id, payment.status, payment.duplicate) == (
        str(older.id),
        "refunded",
        True,
    )


def test_paying_while_a_new_request_replaces_it_never_leaves_two_paid(db, db_factory, make_member):
    """The attacker's race, timed: Pay on the old checkout and a new request at the same
    moment, several times over; one paid request at most each time."""
    requester = make_member()
    for _ in range(4):
        contestant = make_member()
        photo = listed_photo(db, contestant, 9.0)
        service.request_contact(db, requester, str(photo.id), GOOD_MESSAGE)
        db.commit()
        old = checkouts_of(db, requester)[-1]
        start = threading.Barrier(2)

        def pay_old(provider_id=old.provider_session_id, start=start):
            start.wait()
            try:
                with db_factory() as session:
                    checkout.pay_test_checkout(session, requester.id, provider_id)
            except DomainError:
                pass  # the new request ended it first

        def ask_again(photo_id=photo.id, start=start):
            start.wait()
            try:
                with db_factory() as session:
                    member = session.get(User, requester.id)
                    url = service.request_contact(session, member, str(photo_id), OTHER_MESSAGE)
                with db_factory() as session:
                    checkout.pay_test_checkout(session, requester.id, url.split("=", 1)[1])
            except DomainError:
                pass  # the old one was paid first: a second request is refused

        threads = [threading.Thread(target=pay_old), threading.Thread(target=ask_again)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(paid_requests(db, requester, contestant)) == 1


# ---------------------------------------------------------------------------
# The requester's side
# ---------------------------------------------------------------------------
def test_the_sent_list_shows_pending_approved_and_denied_with_refunded(db, make_member):
    requester = make_member()
    contestants = [make_member() for _ in range(4)]
    photos = [
        listed_photo(db, someone, 9.0 - number, name=f"Star {number}")
        for number, someone in enumerate(contestants)
    ]
    pending = paid_request(db, requester, photos[0])
    approved = paid_request(db, requester, photos[1])
    denied = paid_request(db, requester, photos[2])
    service.request_contact(db, requester, str(photos[3].id), GOOD_MESSAGE)  # never paid
    db.commit()
    service.approve(db, contestants[1].id, approved.id)
    service.deny(db, contestants[2].id, denied.id)
    db.commit()

    entries = {entry.id: entry for entry in service.sent(db, requester.id)}
    assert set(entries) == {str(pending.id), str(approved.id), str(denied.id)}
    shown = entries[str(pending.id)]
    assert (shown.contestant, shown.status, shown.refunded, shown.chat_url) == (
        "Star 0",
        "pending",
        False,
        "",
    )
    shown = entries[str(approved.id)]
    assert (shown.status, shown.refunded, shown.chat_url) == (
        "approved",
        False,
        f"/messages/{approved.id}",
    )
    shown = entries[str(denied.id)]
    assert (shown.status, shown.refunded, shown.chat_url) == ("denied", True, "")
    assert service.sent(db, contestants[0].id) == []


def test_the_notice_after_paying_shows_only_for_a_member_whose_newest_request_is_paid(
    db, make_member
):
    requester, contestant, stranger = make_member(), make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0, name="Bella")
    assert service.sent_notice(db, stranger.id) == ""
    request = service.create_request(db, requester, photo.id, GOOD_MESSAGE)
    service.start_payment(db, requester, request)
    db.commit()
    assert service.sent_notice(db, requester.id) == ""  # not paid (yet)

    paid = paid_request(db, make_member(), photo)
    assert paid.paid
    url = service.request_contact(db, requester, str(photo.id), OTHER_MESSAGE)
    checkout.pay_test_checkout(db, requester.id, url.split("=", 1)[1])
    db.commit()
    assert service.sent_notice(db, requester.id) == messages.CONTACT_SENT_NOTICE.format(
        name="Bella"
    )
    assert service.sent_notice(db, stranger.id) == ""
