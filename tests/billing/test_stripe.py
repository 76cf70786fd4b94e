"""With Stripe keys: what the real ``stripe`` library sends for a checkout and a cancel,
against the Stripe stand-in on 127.0.0.1; and how webhook signatures are checked."""

from __future__ import annotations

import time

import pytest
from sqlmodel import select

from prettyscore.billing import checkout, fulfilment, service, stripe_client, webhooks
from prettyscore.billing.models import CheckoutSession, Subscription
from prettyscore.core import messages
from prettyscore.core.errors import DomainError
from prettyscore.core.model_types import utcnow
from tests.fixtures.payments import PUBLIC_URL, WEBHOOK_SECRET
from tests.helpers import stripe_events
from tests.helpers.fake_stripe import CHECKOUT_HOST


def test_premium_checkout_is_a_monthly_subscription_tied_to_the_member(
    db, make_member, fake_stripe
):
    member = make_member()
    url = checkout.start_checkout(
        db, member, fulfilment.KIND_SUBSCRIPTION, description="Premium Editing"
    )
    db.commit()

    (call,) = fake_stripe.calls("/v1/checkout/sessions")
    form = call.form
    assert form["mode"] == "subscription"
    assert form["line_items[0][price_data][unit_amount]"] == "999"
    assert form["line_items[0][price_data][currency]"] == "usd"
    assert form["line_items[0][price_data][recurring][interval]"] == "month"
    assert form["line_items[0][price_data][product_data][name]"] == "Premium Editing"
    assert form["line_items[0][quantity]"] == "1"
    assert form["client_reference_id"] == str(member.id)
    assert form["customer_email"] == member.email
    assert form["metadata[user_id]"] == str(member.id)
    assert form["metadata[kind]"] == "subscription"
    assert form["subscription_data[metadata][user_id]"] == str(member.id)
    assert form["success_url"] == f"{PUBLIC_URL}/premium?success=true"
    assert form["cancel_url"] == f"{PUBLIC_URL}/premium"
    assert call.headers.get("Idempotency-Key", "").startswith("checkout-")

    payment = db.exec(select(CheckoutSession)).one()
    assert url == CHECKOUT_HOST + payment.provider_session_id
    assert form["metadata[checkout_id]"] == str(payment.id)
    assert (payment.status, payment.test_mode, payment.amount_cents) == ("open", False, 999)


def test_a_contact_fee_is_a_one_off_payment_of_the_servers_amount(db, make_member, fake_stripe):
    member = make_member()
    checkout.start_checkout(
        db,
        member,
        fulfilment.KIND_CONTACT_REQUEST,
        amount_cents=90_000,
        reference_id="contact-7",
        description="Contact request",
        success_path="/contestant-requests?paid=1",
        cancel_path="/leaderboard",
    )
    (call,) = fake_stripe.calls("/v1/checkout/sessions")
    form = call.form
    assert form["mode"] == "payment"
    assert form["line_items[0][price_data][unit_amount]"] == "90000"
    assert "line_items[0][price_data][recurring][interval]" not in form
    assert form["metadata[reference_id]"] == "contact-7"
    assert form["payment_intent_data[metadata][reference_id]"] == "contact-7"
    assert form["success_url"] == f"{PUBLIC_URL}/contestant-requests?paid=1"
    assert form["cancel_url"] == f"{PUBLIC_URL}/leaderboard"


def test_the_personality_analysis_costs_its_setting(db, make_member, fake_stripe):
    checkout.start_checkout(
        db, make_member(), fulfilment.KIND_PERSONALITY_ANALYSIS, description="Detailed analysis"
    )
    (call,) = fake_stripe.calls("/v1/checkout/sessions")
    assert call.form["line_items[0][price_data][unit_amount]"] == "499"
    assert call.form["mode"] == "payment"


def test_stripe_failing_gives_the_documents_message_and_records_nothing(
    db, make_member, fake_stripe
):
    member = make_member()
    fake_stripe.fail_next(500)
    fake_stripe.fail_next(500)  # the library retries once
    with pytest.raises(checkout.CheckoutFailed) as raised:
        checkout.start_checkout(db, member, fulfilment.KIND_SUBSCRIPTION, description="P")
    assert raised.value.message == messages.FAILED_TO_START_CHECKOUT
    assert db.exec(select(CheckoutSession)).all() == []


def test_a_checkout_without_url_is_reported(db, make_member, fake_stripe):
    fake_stripe.omit_url = True
    with pytest.raises(checkout.CheckoutFailed) as raised:
        checkout.start_checkout(db, make_member(), fulfilment.KIND_SUBSCRIPTION, description="P")
    assert raised.value.message == messages.NO_CHECKOUT_URL


def test_a_stripe_checkout_is_fulfilled_by_its_webhook_event(
    db, db_factory, make_member, fake_stripe
):
    member = make_member()
    checkout.start_checkout(db, member, fulfilment.KIND_SUBSCRIPTION, description="P")
    db.commit()
    payment = db.exec(select(CheckoutSession)).one()
    assert not service.is_subscriber(db, member.id)  # the success page gives nothing

    completed = stripe_events.checkout_completed(
        payment.provider_session_id, member.id, subscription="sub_live_1"
    )
    webhooks.receive_event(completed, db_scope=db_factory)
    db.rollback()
    assert service.is_subscriber(db, member.id)


def test_cancelling_a_stripe_subscription_asks_stripe_for_period_end(db, make_member, fake_stripe):
    member = make_member()
    db.add(
        Subscription(
            user_id=member.id,
            status="active",
            expires_at=utcnow().replace(microsecond=0).replace(year=utcnow().year + 1),
            provider_subscription_id="sub_live_42",
        )
    )
    db.commit()
    summary = service.cancel_subscription(db, member.id)
    (call,) = fake_stripe.calls("/v1/subscriptions/")
    assert call.path == "/v1/subscriptions/sub_live_42"
    assert call.form == {"cancel_at_period_end": "true"}
    assert summary.cancel_at_period_end and summary.is_premium


def test_cancel_fails_cleanly_when_stripe_does(db, make_member, fake_stripe):
    member = make_member()
    db.add(
        Subscription(
            user_id=member.id,
            status="active",
            expires_at=utcnow().replace(year=utcnow().year + 1),
            provider_subscription_id="sub_live_43",
        )
    )
    db.commit()
    fake_stripe.fail_next(500)
    fake_stripe.fail_next(500)
    with pytest.raises(DomainError) as raised:
        service.cancel_subscription(db, member.id)
    assert raised.value.message == messages.FAILED_TO_CANCEL_PREMIUM
    db.rollback()
    assert not service.subscription_summary(db, member.id).cancel_at_period_end


# ---------------------------------------------------------------------------
# Webhook signatures (the library's scheme)
# ---------------------------------------------------------------------------
def _body_and_header(secret: str, timestamp: int | None = None) -> tuple[bytes, str]:
    body, headers = stripe_events.signed(
        stripe_events.event("invoice.paid", {"id": "in_1"}), secret, timestamp=timestamp
    )
    return body.encode(), headers["Stripe-Signature"]


def test_a_correctly_signed_recent_event_is_accepted():
    stripe_client.verify_webhook(*_body_and_header(WEBHOOK_SECRET))


@pytest.mark.parametrize(
    "body_header",
    [
        pytest.param(lambda: _body_and_header("whsec_someone_else"), id="wrong-secret"),
        pytest.param(lambda: _body_and_header(WEBHOOK_SECRET, int(time.time()) - 3600), id="stale"),
        pytest.param(lambda: (_body_and_header(WEBHOOK_SECRET)[0], ""), id="no-header"),
        pytest.param(
            lambda: (b'{"id": "evt_forged"}', _body_and_header(WEBHOOK_SECRET)[1]),
            id="other-body",
        ),
    ],
)
def test_bad_signatures_are_refused(body_header):
    with pytest.raises(stripe_client.InvalidWebhook):
        stripe_client.verify_webhook(*body_header())


def test_without_a_signing_secret_every_event_is_refused(app_settings):
    body, header = _body_and_header(WEBHOOK_SECRET)
    app_settings(STRIPE_WEBHOOK_SECRET=" ")
    with pytest.raises(stripe_client.InvalidWebhook):
        stripe_client.verify_webhook(body, header)
