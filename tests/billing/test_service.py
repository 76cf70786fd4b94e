"""Payments on a machine without Stripe keys: the test checkout, fulfilment by events
(exactly once, in any order), Premium's status and cancelling it. Both databases."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from sqlmodel import select

from prettyscore.billing import checkout, fulfilment, service, webhooks
from prettyscore.billing.models import CheckoutSession, PaymentEvent, Subscription
from prettyscore.core import messages
from prettyscore.core.errors import DomainError, NotFound
from prettyscore.core.model_types import utcnow
from tests.helpers import stripe_events

PREMIUM = fulfilment.KIND_SUBSCRIPTION


def _session_id(url: str) -> str:
    assert url.startswith("/checkout/test?session=")
    return url.split("=", 1)[1]


def _subscribe_and_pay(db, member) -> str:
    url = checkout.start_checkout(db, member, PREMIUM, description="Premium Editing")
    checkout.pay_test_checkout(db, member.id, _session_id(url))
    db.commit()
    return _session_id(url)


# ---------------------------------------------------------------------------
# The test checkout
# ---------------------------------------------------------------------------
def test_premium_test_checkout_shows_the_price_and_paying_gives_premium(db, make_member):
    member = make_member()
    url = checkout.start_checkout(db, member, PREMIUM, description="Premium Editing")
    session_id = _session_id(url)

    preview = checkout.describe_test_checkout(db, member.id, session_id)
    assert (preview.amount, preview.description, preview.recurring) == (
        "$9.99",
        "Premium Editing",
        True,
    )
    assert not service.is_subscriber(db, member.id)

    assert checkout.pay_test_checkout(db, member.id, session_id) == "/premium?success=true"
    db.commit()

    assert service.is_subscriber(db, member.id)
    summary = service.subscription_summary(db, member.id)
    assert summary.is_premium and summary.status == "active"
    assert summary.plan_type == "premium_editing" and not summary.cancel_at_period_end
    assert timedelta(days=27) < summary.renews_at - utcnow() < timedelta(days=32)
    payment = db.exec(select(CheckoutSession)).one()
    assert (payment.status, payment.amount_cents, payment.test_mode) == ("paid", 999, True)
    # the same fulfilment as a webhook: one recorded checkout.session.completed event
    events = db.exec(select(PaymentEvent)).all()
    assert [e.event_type for e in events] == ["checkout.session.completed"]
    assert events[0].event_id.startswith("evt_test_")


def test_a_paid_test_checkout_cannot_be_paid_again(db, make_member):
    member = make_member()
    session_id = _subscribe_and_pay(db, member)
    with pytest.raises(NotFound):
        checkout.pay_test_checkout(db, member.id, session_id)
    assert len(db.exec(select(Subscription)).all()) == 1


def test_cancelling_the_test_checkout_goes_back_and_gives_nothing(db, make_member):
    member = make_member()
    session_id = _session_id(checkout.start_checkout(db, member, PREMIUM, description="P"))
    assert checkout.cancel_test_checkout(db, member.id, session_id) == "/premium"
    db.commit()
    assert db.exec(select(CheckoutSession)).one().status == "cancelled"
    assert not service.is_subscriber(db, member.id)
    with pytest.raises(NotFound):
        checkout.pay_test_checkout(db, member.id, session_id)


def test_nobody_else_sees_or_pays_a_members_checkout(db, make_member):
    member, other = make_member(), make_member()
    session_id = _session_id(checkout.start_checkout(db, member, PREMIUM, description="P"))
    with pytest.raises(NotFound):
        checkout.describe_test_checkout(db, other.id, session_id)
    with pytest.raises(NotFound):
        checkout.pay_test_checkout(db, other.id, session_id)
    assert not service.is_subscriber(db, other.id)
    assert not service.is_subscriber(db, member.id)


def test_a_member_with_premium_cannot_subscribe_again(db, make_member):
    member = make_member()
    _subscribe_and_pay(db, member)
    with pytest.raises(DomainError) as raised:
        checkout.start_checkout(db, member, PREMIUM, description="P")
    assert raised.value.message == messages.ALREADY_PREMIUM


def test_prices_come_from_settings_never_from_the_caller(db, make_member, app_settings):
    member = make_member()
    app_settings(PREMIUM_MONTHLY_CENTS="1299", DETAILED_PERSONALITY_CENTS="350")
    checkout.start_checkout(db, member, PREMIUM, description="P")
    checkout.start_checkout(
        db, member, fulfilment.KIND_PERSONALITY_ANALYSIS, description="Detailed analysis"
    )
    amounts = {row.kind: row.amount_cents for row in db.exec(select(CheckoutSession))}
    assert amounts == {PREMIUM: 1299, fulfilment.KIND_PERSONALITY_ANALYSIS: 350}
    with pytest.raises(ValueError):
        checkout.start_checkout(db, member, PREMIUM, amount_cents=1, description="P")
    with pytest.raises(ValueError):
        checkout.start_checkout(db, member, fulfilment.KIND_CONTACT_REQUEST, description="C")


@pytest.fixture
def contact_fulfilment():
    """A contact-request handler and payment/refund listeners, as later areas add them."""
    calls: list[tuple] = []

    def handler(db, payment, session):
        calls.append(("fulfil", payment.reference_id, payment.amount_cents, session["id"]))

    def paid(db, payment):
        calls.append(("paid", payment.kind))

    def refunded(db, payment):
        calls.append(("refunded", payment.kind))

    previous = fulfilment._handlers.get(fulfilment.KIND_CONTACT_REQUEST)
    fulfilment.register_fulfilment(fulfilment.KIND_CONTACT_REQUEST, handler)
    fulfilment.on_payment(paid)
    fulfilment.on_refund(refunded)
    yield calls
    if previous is None:
        fulfilment._handlers.pop(fulfilment.KIND_CONTACT_REQUEST, None)
    else:  # the contact area's own handler, registered when the app loads
        fulfilment.register_fulfilment(fulfilment.KIND_CONTACT_REQUEST, previous)
    fulfilment._payment_listeners.remove(paid)
    fulfilment._refund_listeners.remove(refunded)


def test_a_contact_fee_is_fulfilled_once_by_its_areas_handler(db, make_member, contact_fulfilment):
    member = make_member()
    url = checkout.start_checkout(
        db,
        member,
        fulfilment.KIND_CONTACT_REQUEST,
        amount_cents=95_000,
        reference_id="contact-42",
        description="Contact request to rank 2",
    )
    session_id = _session_id(url)
    assert checkout.describe_test_checkout(db, member.id, session_id).amount == "$950.00"
    assert checkout.pay_test_checkout(db, member.id, session_id) == "/leaderboard?payment=success"
    db.commit()
    assert contact_fulfilment == [
        ("fulfil", "contact-42", 95_000, session_id),
        ("paid", fulfilment.KIND_CONTACT_REQUEST),
    ]
    assert not service.is_subscriber(db, member.id)  # a contact fee is not Premium


def test_a_refund_marks_the_payment_refunded_once(db, db_factory, make_member, contact_fulfilment):
    member = make_member()
    url = checkout.start_checkout(
        db,
        member,
        fulfilment.KIND_CONTACT_REQUEST,
        amount_cents=1000,
        reference_id="c1",
        description="Contact",
    )
    checkout.pay_test_checkout(db, member.id, _session_id(url))
    db.commit()
    payment = db.exec(select(CheckoutSession)).one()
    assert payment.payment_intent_id

    partial = stripe_events.charge_refunded(payment.payment_intent_id, 1000, refunded=False)
    webhooks.receive_event(partial, db_scope=db_factory)
    db.refresh(payment)
    assert payment.status == "paid"

    refund = stripe_events.charge_refunded(payment.payment_intent_id, 1000)
    assert webhooks.receive_event(refund, db_scope=db_factory) is True
    assert webhooks.receive_event(refund, db_scope=db_factory) is False
    db.refresh(payment)
    assert payment.status == "refunded"
    assert contact_fulfilment.count(("refunded", fulfilment.KIND_CONTACT_REQUEST)) == 1


# ---------------------------------------------------------------------------
# Exactly once, in any order
# ---------------------------------------------------------------------------
def test_the_same_completed_event_delivered_again_fulfils_once(db, db_factory, make_member):
    member = make_member()
    session_id = _session_id(checkout.start_checkout(db, member, PREMIUM, description="P"))
    db.commit()
    completed = stripe_events.checkout_completed(session_id, member.id, subscription="sub_once")

    assert [webhooks.receive_event(completed, db_scope=db_factory) for _ in range(3)] == [
        True,
        False,
        False,
    ]
    assert len(db.exec(select(Subscription)).all()) == 1
    assert len(db.exec(select(PaymentEvent)).all()) == 1
    assert service.is_subscriber(db, member.id)


def test_a_failing_effect_records_nothing_so_a_retry_can_apply_it(db, db_factory, make_member):
    member = make_member()
    session_id = _session_id(checkout.start_checkout(db, member, PREMIUM, description="P"))
    db.commit()
    completed = stripe_events.checkout_completed(session_id, member.id, subscription="sub_x")

    def broken(db, payment, session):
        raise RuntimeError("delivery failed")

    fulfilment.register_fulfilment(PREMIUM, broken)
    try:
        with pytest.raises(RuntimeError):
            webhooks.receive_event(completed, db_scope=db_factory)
    finally:
        from prettyscore.billing.subscriptions import fulfil_premium

        fulfilment.register_fulfilment(PREMIUM, fulfil_premium)
    assert db.exec(select(PaymentEvent)).all() == []
    assert webhooks.receive_event(completed, db_scope=db_factory) is True
    assert service.is_subscriber(db, member.id)


def _apply(db_factory, *events):
    """Deliver events, each in its own transaction, as the webhook route does."""
    for item in events:
        webhooks.receive_event(item, db_scope=db_factory)


def test_subscription_events_activate_and_deleted_ends_premium(db, db_factory, make_member):
    member = make_member()
    now = int(time.time())
    _apply(
        db_factory,
        stripe_events.subscription_event("created", "sub_a", member.id, created=now - 60),
    )
    db.rollback()  # read what the deliveries committed
    assert service.is_subscriber(db, member.id)
    _apply(
        db_factory,
        stripe_events.subscription_event(
            "deleted", "sub_a", member.id, created=now, status="canceled"
        ),
    )
    db.rollback()  # read what the deliveries committed
    assert not service.is_subscriber(db, member.id)
    assert service.subscription_summary(db, member.id).status == "canceled"


def test_an_older_update_arriving_late_is_ignored(db, db_factory, make_member):
    member = make_member()
    now = int(time.time())
    newer = stripe_events.subscription_event(
        "updated", "sub_b", member.id, created=now, period_end=now + 40 * 86400
    )
    older = stripe_events.subscription_event(
        "updated", "sub_b", member.id, created=now - 600, status="past_due"
    )
    _apply(db_factory, newer, older)
    row = db.exec(select(Subscription)).one()
    assert row.status == "active"
    assert int(row.expires_at.timestamp()) == now + 40 * 86400
    assert service.is_subscriber(db, member.id)


def test_a_deleted_subscription_stays_ended(db, db_factory, make_member):
    member = make_member()
    now = int(time.time())
    deleted = stripe_events.subscription_event(
        "deleted", "sub_c", member.id, created=now, status="canceled"
    )
    older_update = stripe_events.subscription_event("updated", "sub_c", member.id, created=now - 5)
    later_invoice = stripe_events.invoice_event(
        "paid", "sub_c", created=now + 5, period_end=now + 30 * 86400
    )
    _apply(db_factory, deleted, older_update, later_invoice)
    assert db.exec(select(Subscription)).one().status == "canceled"
    assert not service.is_subscriber(db, member.id)


def test_checkout_completed_after_subscription_events_keeps_their_state(
    db, db_factory, make_member
):
    member = make_member()
    session_id = _session_id(checkout.start_checkout(db, member, PREMIUM, description="P"))
    db.commit()
    now = int(time.time())
    period_end = now + 31 * 86400
    _apply(
        db_factory,
        stripe_events.subscription_event(
            "created", "sub_d", member.id, created=now, period_end=period_end
        ),
        stripe_events.checkout_completed(session_id, member.id, subscription="sub_d"),
    )
    db.rollback()  # read what the deliveries committed
    row = db.exec(select(Subscription)).one()
    assert int(row.expires_at.timestamp()) == period_end
    assert db.exec(select(CheckoutSession)).one().status == "paid"


def test_invoices_renew_and_a_failed_payment_suspends_premium(db, db_factory, make_member):
    member = make_member()
    now = int(time.time())
    _apply(
        db_factory,
        stripe_events.subscription_event(
            "created", "sub_e", member.id, created=now - 100, period_end=now + 86400
        ),
        stripe_events.invoice_event("paid", "sub_e", created=now - 50, period_end=now + 60 * 86400),
    )
    db.rollback()  # read what the deliveries committed
    row = db.exec(select(Subscription)).one()
    assert int(row.expires_at.timestamp()) == now + 60 * 86400
    _apply(
        db_factory,
        stripe_events.invoice_event(
            "payment_failed", "sub_e", created=now, period_end=now + 90 * 86400
        ),
    )
    db.rollback()  # read what the deliveries committed
    assert not service.is_subscriber(db, member.id)
    _apply(
        db_factory,
        stripe_events.invoice_event("paid", "sub_e", created=now + 10, period_end=now + 90 * 86400),
    )
    db.rollback()  # read what the deliveries committed
    assert service.is_subscriber(db, member.id)


def test_events_for_unknown_members_change_nothing(db, db_factory):
    stranger = "00000000-0000-0000-0000-000000000000"
    _apply(
        db_factory,
        stripe_events.subscription_event("created", "sub_z", stranger, created=int(time.time())),
        stripe_events.checkout_completed("cs_not_ours", stranger, subscription="sub_z"),
    )
    db.rollback()  # read what the deliveries committed
    assert db.exec(select(Subscription)).all() == []
    assert len(db.exec(select(PaymentEvent)).all()) == 2  # recorded, so retries stop


# ---------------------------------------------------------------------------
# Status and cancelling
# ---------------------------------------------------------------------------
def test_a_member_without_premium(db, make_member):
    member = make_member()
    assert service.subscription_summary(db, member.id) == service.SubscriptionSummary(
        is_premium=False
    )
    with pytest.raises(NotFound) as raised:
        service.cancel_subscription(db, member.id)
    assert raised.value.message == messages.NO_PREMIUM_TO_CANCEL


def test_cancelling_keeps_premium_until_the_period_ends(db, make_member):
    member = make_member()
    _subscribe_and_pay(db, member)
    renews_at = service.subscription_summary(db, member.id).renews_at

    summary = service.cancel_subscription(db, member.id)
    db.commit()
    assert summary.is_premium and summary.cancel_at_period_end
    assert summary.renews_at == renews_at
    assert service.is_subscriber(db, member.id)
    assert service.cancel_subscription(db, member.id) == summary  # twice: no change


def test_an_expired_plan_is_not_premium(db, make_member):
    member = make_member()
    db.add(
        Subscription(user_id=member.id, status="active", expires_at=utcnow() - timedelta(minutes=1))
    )
    db.commit()
    assert not service.is_subscriber(db, member.id)
    assert not service.subscription_summary(db, member.id).is_premium
