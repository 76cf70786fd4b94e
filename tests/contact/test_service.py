"""Paid contact requests: the fee by rank, who may ask whom, payment, and the contestant's
answer (approve; deny with a refund). Both databases, payments through the test checkout
(and the Stripe stand-in for a Stripe refund)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import select

from prettyscore.billing import checkout, webhooks
from prettyscore.billing.models import CheckoutSession
from prettyscore.contact import service
from prettyscore.contact.models import ContactRequest
from prettyscore.core import messages
from prettyscore.core.errors import DomainError, NotFound, PermissionDenied, ValidationFailed
from prettyscore.core.model_types import utcnow
from prettyscore.photos.models import Photo
from tests.helpers import stripe_events

GOOD_MESSAGE = "Hello, I loved your photo!"
NOT_ALLOWED = (NotFound, PermissionDenied)


def listed_photo(db, owner, score: float, *, name: str = "Contestant", listed=True, age=0):
    """A saved photo of ``owner``, listed on the leaderboard (``age`` days old)."""
    photo = Photo(
        user_id=owner.id,
        original_image_url="/media/member/x.jpg",
        score=score,
        rating_label="Stunning",
        breakdown={},
        public_listing=listed,
        display_name=name,
        created_at=utcnow() - timedelta(days=age),
    )
    db.add(photo)
    db.commit()
    return photo


def pay(db, requester, request: ContactRequest) -> CheckoutSession:
    """Pay the request's fee through the test checkout (a payment event, as from Stripe)."""
    url = service.start_payment(db, requester, request)
    checkout.pay_test_checkout(db, requester.id, url.split("=", 1)[1])
    db.commit()
    return db.exec(
        select(CheckoutSession).where(CheckoutSession.reference_id == str(request.id))
    ).one()


def paid_request(db, requester, photo, message: str = GOOD_MESSAGE) -> ContactRequest:
    request = service.create_request(db, requester, photo.id, message)
    pay(db, requester, request)
    db.refresh(request)
    return request


# ---------------------------------------------------------------------------
# Fees and messages
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rank", "dollars"), [(1, 1000), (2, 950), (18, 150), (19, 100), (20, 100), (500, 100)]
)
def test_the_fee_falls_50_dollars_a_rank_down_to_100(rank, dollars):
    assert service.fee_for_rank(rank) == dollars * 100


def test_platform_and_contestant_shares_add_up_to_the_fee_at_every_rank():
    for rank in range(1, 31):
        fee = service.fee_for_rank(rank)
        platform, contestant = service.shares(fee)
        assert platform + contestant == fee
        assert platform == fee // 4
    assert service.shares(100_000) == (25_000, 75_000)


@pytest.mark.parametrize(
    ("length", "error"),
    [
        (9, messages.CONTACT_MESSAGE_TOO_SHORT),
        (10, None),
        (1000, None),
        (1001, messages.CONTACT_MESSAGE_TOO_LONG),
    ],
)
def test_a_message_has_10_to_1000_characters_after_trimming(length, error):
    text = "   " + "m" * length + "  \n"
    if error is None:
        assert service.check_message(text) == "m" * length
    else:
        with pytest.raises(ValidationFailed) as raised:
            service.check_message(text)
        assert raised.value.message == error


# ---------------------------------------------------------------------------
# Rank and creating a request
# ---------------------------------------------------------------------------
def test_the_rank_is_counted_on_the_server_score_first_then_oldest(db, make_member):
    owner = make_member()
    older_tie = listed_photo(db, owner, 9.0, age=2)
    newer_tie = listed_photo(db, owner, 9.0, age=1)
    top = listed_photo(db, owner, 9.5)
    low = listed_photo(db, owner, 7.0)
    listed_photo(db, owner, 9.9, listed=False)  # not on the leaderboard: does not count
    ranks = [service.rank_of_photo(db, p.id) for p in (top, older_tie, newer_tie, low)]
    assert ranks == [1, 2, 3, 4]


def test_a_request_is_priced_by_rank_and_waits_for_payment(db, make_member):
    requester, contestant, other = make_member(), make_member(), make_member()
    listed_photo(db, other, 9.8)
    photo = listed_photo(db, contestant, 9.1, name="Ana")

    offer = service.contact_offer(db, requester.id, str(photo.id))
    assert (offer.contestant_name, offer.rank, offer.fee) == ("Ana", 2, "$950.00")

    request = service.create_request(db, requester, photo.id, f"  {GOOD_MESSAGE}  ")
    db.commit()
    assert (request.contestant_id, request.photo_id) == (contestant.id, photo.id)
    assert (request.rank_at_request, request.fee_amount) == (2, 95_000)
    assert (request.platform_share, request.contestant_share) == (23_750, 71_250)
    assert request.message_preview == GOOD_MESSAGE
    assert (request.status, request.payment_status, request.paid) == (
        "pending",
        "pending_payment",
        False,
    )


def test_nobody_can_contact_themselves(db, make_member):
    member = make_member()
    photo = listed_photo(db, member, 9.0)
    with pytest.raises(PermissionDenied) as raised:
        service.create_request(db, member, photo.id, GOOD_MESSAGE)
    assert raised.value.message == messages.CANNOT_CONTACT_YOURSELF
    assert db.exec(select(ContactRequest)).all() == []


def test_only_photos_on_the_leaderboard_can_be_contacted(db, make_member):
    requester, contestant = make_member(), make_member()
    unlisted = listed_photo(db, contestant, 9.0, listed=False)
    for photo_id in (unlisted.id, "not-a-photo"):
        with pytest.raises(NotFound) as raised:
            service.create_request(db, requester, photo_id, GOOD_MESSAGE)
        assert raised.value.message == messages.CONTESTANT_NOT_FOUND


def test_a_too_short_message_creates_nothing(db, make_member):
    requester, contestant = make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0)
    with pytest.raises(ValidationFailed):
        service.request_contact(db, requester, str(photo.id), "too short")
    assert db.exec(select(ContactRequest)).all() == []


# ---------------------------------------------------------------------------
# Payment and the inbox
# ---------------------------------------------------------------------------
def test_unpaid_requests_never_reach_the_contestant(db, make_member):
    requester, contestant = make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0)
    url = service.request_contact(db, requester, str(photo.id), GOOD_MESSAGE)
    db.commit()
    assert url.startswith("/checkout/test?session=")
    assert service.inbox(db, contestant.id) == []
    assert service.pending_count(db, contestant.id) == 0


def test_paying_delivers_the_request_to_the_contestant(db, make_member):
    requester, contestant = make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0)
    request = service.create_request(db, requester, photo.id, GOOD_MESSAGE)
    payment = pay(db, requester, request)
    assert (payment.kind, payment.amount_cents, payment.status) == (
        "contact_request",
        100_000,
        "paid",
    )
    assert payment.success_path == "/leaderboard?contact=sent"
    db.refresh(request)
    assert (request.paid, request.payment_status) == (True, "paid")

    (entry,) = service.inbox(db, contestant.id)
    shown = (messages.MEMBER_WITHOUT_NAME, GOOD_MESSAGE, 1)  # never the requester's email
    assert (entry.requester, entry.message, entry.rank) == shown
    assert (entry.fee, entry.share, entry.status) == ("$1,000.00", "$750.00", "pending")
    assert service.pending_count(db, contestant.id) == 1
    assert service.inbox(db, requester.id) == []


def test_a_paid_request_cannot_be_paid_again(db, make_member):
    requester, contestant = make_member(), make_member()
    request = paid_request(db, requester, listed_photo(db, contestant, 9.0))
    with pytest.raises(NotFound):
        service.start_payment(db, requester, request)


# ---------------------------------------------------------------------------
# Approve and deny
# ---------------------------------------------------------------------------
def test_the_contestant_approves_and_the_request_stays_in_the_inbox(db, make_member):
    requester, contestant = make_member(), make_member()
    request = paid_request(db, requester, listed_photo(db, contestant, 9.0))
    service.approve(db, contestant.id, request.id)
    db.commit()
    (entry,) = service.inbox(db, contestant.id)
    assert entry.status == "approved"
    assert service.pending_count(db, contestant.id) == 0
    with pytest.raises(NotFound):  # answered once, for good
        service.deny(db, contestant.id, request.id)


def test_only_the_contestant_of_a_paid_pending_request_may_answer_it(db, make_member):
    requester, contestant, stranger, other_requester, unpaying = (make_member() for _ in range(5))
    photo = listed_photo(db, contestant, 9.0)
    request = paid_request(db, requester, photo)
    paid_request(db, other_requester, photo, "Another hello to you!")
    unpaid = service.create_request(db, unpaying, photo.id, GOOD_MESSAGE)
    db.commit()

    for someone in (stranger, requester, other_requester):
        for answer in (service.approve, service.deny):
            with pytest.raises(NOT_ALLOWED):
                answer(db, someone.id, request.id)
    for answer in (service.approve, service.deny):
        with pytest.raises(NotFound):
            answer(db, contestant.id, unpaid.id)
        with pytest.raises(NotFound):
            answer(db, contestant.id, "not-a-request")
    db.refresh(request)
    assert request.status == "pending"


def test_denying_refunds_the_fee_and_removes_the_request(db, make_member):
    requester, contestant = make_member(), make_member()
    request = paid_request(db, requester, listed_photo(db, contestant, 9.0))
    service.deny(db, contestant.id, request.id)
    db.commit()

    payment = db.exec(select(CheckoutSession)).one()
    assert payment.status == "refunded"
    db.refresh(request)
    assert (request.status, request.payment_status, request.paid) == ("denied", "refunded", False)
    assert service.inbox(db, contestant.id) == []


def test_a_fee_refunded_in_stripes_dashboard_takes_the_request_out_of_the_inbox(db, make_member):
    requester, contestant = make_member(), make_member()
    request = paid_request(db, requester, listed_photo(db, contestant, 9.0))
    payment = db.exec(select(CheckoutSession)).one()
    webhooks.process_event(
        db, stripe_events.charge_refunded(payment.payment_intent_id, payment.amount_cents)
    )
    db.commit()
    assert service.inbox(db, contestant.id) == []
    assert service.pending_count(db, contestant.id) == 0
    with pytest.raises(NotFound):
        service.approve(db, contestant.id, request.id)


def test_denying_a_stripe_payment_asks_stripe_for_the_refund(db, make_member, fake_stripe):
    requester, contestant = make_member(), make_member()
    request = service.create_request(
        db, requester, listed_photo(db, contestant, 9.0).id, GOOD_MESSAGE
    )
    service.start_payment(db, requester, request)
    payment = db.exec(select(CheckoutSession)).one()
    event = stripe_events.checkout_completed(
        payment.provider_session_id, requester.id, payment_intent="pi_standin_1"
    )
    webhooks.process_event(db, event)
    db.commit()

    service.deny(db, contestant.id, request.id)
    db.commit()
    (call,) = fake_stripe.calls("/v1/refunds")
    assert call.form["payment_intent"] == "pi_standin_1"
    db.refresh(request)
    # Stripe confirms with charge.refunded later; until then the payment is still paid.
    assert (request.status, request.payment_status) == ("denied", "paid")

    webhooks.process_event(db, stripe_events.charge_refunded("pi_standin_1", 100_000))
    db.commit()
    db.refresh(request)
    assert request.payment_status == "refunded"
    assert db.exec(select(CheckoutSession)).one().status == "refunded"


def test_when_stripe_cannot_refund_the_request_is_not_denied(db, make_member, fake_stripe):
    requester, contestant = make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0)
    request = service.create_request(db, requester, photo.id, GOOD_MESSAGE)
    service.start_payment(db, requester, request)
    payment = db.exec(select(CheckoutSession)).one()
    webhooks.process_event(
        db,
        stripe_events.checkout_completed(
            payment.provider_session_id, requester.id, payment_intent="pi_standin_2"
        ),
    )
    db.commit()

    fake_stripe.fail_next(500)
    fake_stripe.fail_next(500)  # the library retries once
    with pytest.raises(DomainError) as raised:
        service.deny(db, contestant.id, request.id)
    assert raised.value.message == messages.FAILED_TO_DENY_REQUEST
    db.rollback()
    db.refresh(request)
    assert (request.status, request.payment_status) == ("pending", "paid")
