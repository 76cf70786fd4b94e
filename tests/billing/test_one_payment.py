"""One payment per thing bought: one open checkout at a time, and a second payment that
Stripe delivers anyway is refunded and recorded. Both databases; Stripe is the stand-in."""

from __future__ import annotations

import threading

import pytest
from sqlmodel import select

from prettyscore.billing import checkout, fulfilment, service, webhooks
from prettyscore.billing.models import CheckoutSession, Subscription
from prettyscore.contact import service as contact
from prettyscore.contact.models import ContactRequest
from prettyscore.core.errors import NotFound
from tests.contact.test_service import GOOD_MESSAGE, listed_photo
from tests.helpers import stripe_events


def new_request(db, make_member) -> tuple:
    requester, contestant = make_member(), make_member()
    photo = listed_photo(db, contestant, 9.0)
    request = contact.create_request(db, requester, photo.id, GOOD_MESSAGE)
    db.commit()
    return requester, contestant, request


def checkouts_of(db, reference: str) -> list[CheckoutSession]:
    db.expire_all()
    rows = db.exec(select(CheckoutSession).where(CheckoutSession.reference_id == reference))
    return sorted(rows.all(), key=lambda row: row.created_at)


def paid_event(payment: CheckoutSession, number: int) -> dict:
    return stripe_events.checkout_completed(
        payment.provider_session_id, payment.user_id, payment_intent=f"pi_standin_{number}"
    )


def two_stripe_checkouts(db, requester, request) -> list[CheckoutSession]:
    """The member opens the request's checkout twice (two tabs): the first is replaced."""
    contact.start_payment(db, requester, request)
    db.commit()
    contact.start_payment(db, requester, request)
    db.commit()
    return checkouts_of(db, str(request.id))


# ---------------------------------------------------------------------------
# One open checkout
# ---------------------------------------------------------------------------
def test_the_test_checkout_of_a_thing_is_opened_once_and_paid_once(db, make_member):
    requester, _, request = new_request(db, make_member)
    first = contact.start_payment(db, requester, request)
    again = contact.start_payment(db, requester, request)
    db.commit()
    assert again == first
    assert [row.status for row in checkouts_of(db, str(request.id))] == ["open"]

    session_id = first.split("=", 1)[1]
    checkout.pay_test_checkout(db, requester.id, session_id)
    db.commit()
    with pytest.raises(NotFound):
        checkout.pay_test_checkout(db, requester.id, session_id)


def test_with_stripe_a_new_checkout_expires_the_open_one(db, make_member, fake_stripe):
    requester, _, request = new_request(db, make_member)
    first, second = two_stripe_checkouts(db, requester, request)
    (expired,) = fake_stripe.calls("/v1/checkout/sessions/")
    assert expired.path == f"/v1/checkout/sessions/{first.provider_session_id}/expire"
    assert (first.status, second.status) == ("cancelled", "open")


def test_when_stripe_will_not_expire_the_open_one_no_second_one_opens(db, make_member, fake_stripe):
    requester, _, request = new_request(db, make_member)
    contact.start_payment(db, requester, request)
    db.commit()
    fake_stripe.fail_next(400)  # Stripe refuses: the session was paid a moment ago
    with pytest.raises(checkout.CheckoutFailed):
        contact.start_payment(db, requester, request)
    db.rollback()
    assert [row.status for row in checkouts_of(db, str(request.id))] == ["open"]


def test_a_member_with_premium_cannot_open_another_subscription_checkout(db, make_member):
    member = make_member()
    url = checkout.start_checkout(db, member, fulfilment.KIND_SUBSCRIPTION, description="P")
    checkout.pay_test_checkout(db, member.id, url.split("=", 1)[1])
    db.commit()
    with pytest.raises(checkout.DomainError):
        checkout.start_checkout(db, member, fulfilment.KIND_SUBSCRIPTION, description="P")


# ---------------------------------------------------------------------------
# A second payment delivered anyway
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("first_paid", [0, 1], ids=["older-first", "newer-first"])
def test_a_payment_of_the_replaced_checkout_is_refunded_whenever_it_lands(
    db, make_member, fake_stripe, first_paid
):
    requester, _, request = new_request(db, make_member)
    payments = two_stripe_checkouts(db, requester, request)
    order = [payments[first_paid], payments[1 - first_paid]]
    for number, payment in enumerate(order, start=1):
        webhooks.process_event(db, paid_event(payment, number))
        db.commit()

    replaced, newest = checkouts_of(db, str(request.id))
    assert (replaced.status, replaced.duplicate) == ("paid", True)
    assert (newest.status, newest.duplicate) == ("paid", False)
    (refund,) = fake_stripe.calls("/v1/refunds")
    assert refund.form["payment_intent"] == replaced.payment_intent_id

    refunded = stripe_events.charge_refunded(replaced.payment_intent_id, request.fee_amount)
    webhooks.process_event(db, refunded)
    db.commit()
    db.refresh(request)
    assert checkouts_of(db, str(request.id))[0].status == "refunded"
    assert (request.paid, request.payment_status) == (True, "paid")  # the newest still stands


def deliver_like_stripe(event: dict, db_factory) -> None:
    """A delivery that fails (a busy database) is delivered again, as Stripe does."""
    for attempt in range(3):
        try:
            webhooks.receive_event(event, db_scope=db_factory)
            return
        except Exception:
            if attempt == 2:
                raise


def test_two_payments_of_a_request_at_the_same_moment_are_one_payment_and_one_refund(
    db, db_factory, make_member, fake_stripe
):
    requester, _, request = new_request(db, make_member)
    payments = two_stripe_checkouts(db, requester, request)
    events = [paid_event(payment, number) for number, payment in enumerate(payments, start=1)]
    start = threading.Barrier(len(events))

    def deliver(event):
        start.wait()
        deliver_like_stripe(event, db_factory)

    threads = [threading.Thread(target=deliver, args=(event,)) for event in events]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    rows = checkouts_of(db, str(request.id))
    assert sorted((row.status, row.duplicate) for row in rows) == [
        ("paid", False),
        ("paid", True),
    ]
    assert len(fake_stripe.calls("/v1/refunds")) == 1
    assert db.get(ContactRequest, request.id).paid


@pytest.mark.parametrize("first_paid", [0, 1], ids=["older-first", "newer-first"])
def test_the_replaced_premium_checkout_paid_anyway_is_cancelled_and_refunded(
    db, make_member, fake_stripe, first_paid
):
    member = make_member()
    for _ in range(2):  # two tabs: the first checkout is replaced, and both get paid
        checkout.start_checkout(db, member, fulfilment.KIND_SUBSCRIPTION, description="P")
        db.commit()
    payments = checkouts_of(db, fulfilment.KIND_SUBSCRIPTION)
    order = [payments[first_paid], payments[1 - first_paid]]
    for number, payment in enumerate(order, start=1):
        event = stripe_events.checkout_completed(
            payment.provider_session_id,
            member.id,
            subscription=f"sub_standin_{number}",
            invoice=f"in_standin_{number}",
        )
        webhooks.process_event(db, event)
        db.commit()

    kept_number, extra_number = (2, 1) if first_paid == 0 else (1, 2)
    assert [row.provider_subscription_id for row in service.live_subscriptions(db, member.id)] == [
        f"sub_standin_{kept_number}"
    ]
    assert db.exec(select(Subscription)).all() == service.live_subscriptions(db, member.id)
    replaced, newest = checkouts_of(db, fulfilment.KIND_SUBSCRIPTION)
    assert (replaced.duplicate, newest.duplicate) == (True, False)
    (refund,) = fake_stripe.calls("/v1/refunds")
    assert refund.form["payment_intent"] == f"pi_in_standin_{extra_number}"
    cancels = [call for call in fake_stripe.requests if call.method == "DELETE"]
    assert [call.path for call in cancels] == [f"/v1/subscriptions/sub_standin_{extra_number}"]


def test_denying_a_request_refunds_every_payment_of_it(db, make_member, fake_stripe):
    requester, contestant, request = new_request(db, make_member)
    payments = two_stripe_checkouts(db, requester, request)
    for number, payment in enumerate(payments, start=1):
        webhooks.process_event(db, paid_event(payment, number))
        db.commit()

    contact.deny(db, contestant.id, request.id)
    db.commit()
    refunded = {call.form["payment_intent"] for call in fake_stripe.calls("/v1/refunds")}
    assert refunded == {"pi_standin_1", "pi_standin_2"}


def test_opening_one_checkout_too_many_ends_the_oldest(db, make_member, fake_stripe):
    member = make_member()
    for number in range(checkout.MAX_OPEN_CHECKOUTS + 1):
        checkout.start_checkout(
            db,
            member,
            fulfilment.KIND_CONTACT_REQUEST,
            amount_cents=10_000,
            reference_id=f"request-{number}",
            description="Contact",
        )
        db.commit()
    rows = db.exec(select(CheckoutSession).order_by(CheckoutSession.reference_id)).all()
    assert [row.status for row in rows] == ["cancelled"] + ["open"] * checkout.MAX_OPEN_CHECKOUTS
    (expired,) = [call for call in fake_stripe.requests if call.path.endswith("/expire")]
    assert rows[0].provider_session_id in expired.path
