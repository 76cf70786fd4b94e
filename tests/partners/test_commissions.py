"""Commission on referred members' payments (document 001 §3 partner_conversions, §9
tiers): every fulfilled payment of a referred member, Premium's first payment and its
renewals, contact fees and the detailed analysis, makes one conversion at the partner's
commission, however often its events are delivered; a refund reverses it while unpaid.
Payments go through the real fulfilment (test checkout and Stripe-shaped events, each
delivered in its own transaction as the webhook route does). Both databases."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
from sqlmodel import select

from prettyscore.accounts.models import User
from prettyscore.billing import checkout, fulfilment, refunds, webhooks
from prettyscore.billing.models import CheckoutSession
from prettyscore.partners import commissions, referrals
from prettyscore.partners.models import (
    ConversionStatus,
    PartnerAccount,
    PartnerConversion,
    PartnerStatus,
)
from prettyscore.partners.programme import (
    ELITE,
    PRO,
    STARTER,
    commission_cents,
)
from tests.helpers import stripe_events

CONTACT = fulfilment.KIND_CONTACT_REQUEST
PREMIUM = fulfilment.KIND_SUBSCRIPTION
ANALYSIS = fulfilment.KIND_PERSONALITY_ANALYSIS


def referred_member(db, partner: PartnerAccount | None) -> User:
    """A member who signed up in a browser carrying ``partner``'s referral cookie."""
    code = partner.code if partner is not None else None
    tokens = referrals.sign_up_with_referral(
        db, f"buyer-{uuid.uuid4().hex[:8]}@example.com", "secret12", referral_code=code
    )
    db.commit()
    return db.get(User, tokens.user_id)


def session_id(url: str) -> str:
    return url.split("=", 1)[1]


def open_checkout(db, member: User, kind: str, amount_cents: int | None = None) -> str:
    url = checkout.start_checkout(
        db,
        member,
        kind,
        amount_cents=amount_cents,
        reference_id=str(uuid.uuid4()),
        description=kind,
    )
    db.commit()
    return session_id(url)


def pay(db, member: User, kind: str, amount_cents: int | None = None) -> CheckoutSession:
    """Pay a test checkout (the same fulfilment as a webhook event)."""
    provider_id = open_checkout(db, member, kind, amount_cents)
    checkout.pay_test_checkout(db, member.id, provider_id)
    db.commit()
    return webhooks.find_checkout(db, provider_id)


def deliver(db_factory, *events) -> list[bool]:
    """Deliver events, each in its own transaction, as the webhook route does."""
    return [webhooks.receive_event(item, db_scope=db_factory) for item in events]


def conversions(db) -> list[PartnerConversion]:
    db.rollback()
    db.expire_all()  # read what the deliveries committed
    return list(db.exec(select(PartnerConversion).order_by(PartnerConversion.created_at)).all())


def totals(db, partner: PartnerAccount) -> tuple[int, int]:
    db.expire_all()
    row = db.get(PartnerAccount, partner.id)
    return row.total_conversions, row.total_earned


# ---------------------------------------------------------------------------
# What earns, and how much
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tier", "premium", "contact_fee"),
    [("starter", 150, 14_250), ("pro", 200, 19_000), ("elite", 300, 28_500)],
)
def test_commission_at_each_tier(db, make_partner, tier, premium, contact_fee):
    partner = make_partner("ANNA", tier=tier)
    buyer = referred_member(db, partner)
    pay(db, buyer, PREMIUM)  # $9.99
    pay(db, buyer, CONTACT, 95_000)  # rank 2's fee, $950
    rows = conversions(db)
    assert [(row.amount, row.commission, row.status) for row in rows] == [
        (999, premium, ConversionStatus.UNPAID),
        (95_000, contact_fee, ConversionStatus.UNPAID),
    ]
    assert {row.partner_id for row in rows} == {partner.id}
    assert totals(db, partner) == (2, premium + contact_fee)


@pytest.mark.parametrize(
    ("amount", "tier", "expected"),
    [
        (999, PRO, 200),  # $1.998 rounds up to $2.00, not down to $1.99
        (999, STARTER, 150),  # $1.4985
        (999, ELITE, 300),  # $2.997
        (10, STARTER, 2),  # $0.015: exactly half a cent rounds up
        (30, STARTER, 5),  # $0.045
        (1, PRO, 0),  # $0.002
        (95_000, PRO, 19_000),
    ],
)
def test_commission_rounds_half_up_to_the_cent(amount, tier, expected):
    assert commission_cents(amount, tier) == expected


def test_the_detailed_analysis_earns_too(db, make_partner):
    partner = make_partner("ANNA", tier="pro")
    pay(db, referred_member(db, partner), ANALYSIS)  # $4.99
    assert [(row.amount, row.commission) for row in conversions(db)] == [(499, 100)]


def test_members_nobody_referred_earn_nobody_anything(db, make_partner):
    partner = make_partner("ANNA")
    pay(db, referred_member(db, None), CONTACT, 10_000)
    assert conversions(db) == []
    assert totals(db, partner) == (0, 0)


def test_a_suspended_partner_earns_nothing_on_new_payments(db, make_partner):
    partner = make_partner("ANNA")
    buyer = referred_member(db, partner)
    partner.status = PartnerStatus.SUSPENDED
    db.add(partner)
    db.commit()
    pay(db, buyer, CONTACT, 10_000)
    assert conversions(db) == []


# ---------------------------------------------------------------------------
# One conversion per payment
# ---------------------------------------------------------------------------
def test_a_replayed_webhook_makes_one_conversion(db, db_factory, make_partner):
    partner = make_partner("ANNA")
    buyer = referred_member(db, partner)
    provider_id = open_checkout(db, buyer, CONTACT, 20_000)
    completed = stripe_events.checkout_completed(provider_id, buyer.id, payment_intent="pi_once")
    succeeded = dict(
        completed, id="evt_async_same_payment", type="checkout.session.async_payment_succeeded"
    )

    assert deliver(db_factory, completed, completed, succeeded, completed) == [
        True,
        False,
        True,
        False,
    ]
    assert [(row.payment_ref, row.commission) for row in conversions(db)] == [("pi_once", 3000)]
    assert totals(db, partner) == (1, 3000)


def test_premium_counts_its_first_payment_once_and_each_renewal(db, db_factory, make_partner):
    partner = make_partner("ANNA", tier="elite")
    buyer = referred_member(db, partner)
    provider_id = open_checkout(db, buyer, PREMIUM)
    now = int(time.time())
    completed = stripe_events.checkout_completed(
        provider_id, buyer.id, subscription="sub_ref", invoice="in_first"
    )
    first_invoice = stripe_events.invoice_event(
        "paid", "sub_ref", created=now, period_end=now + 30 * 86400
    )
    first_invoice["data"]["object"].update(
        id="in_first", amount_paid=999, billing_reason="subscription_create"
    )
    renewal = stripe_events.invoice_event(
        "paid", "sub_ref", created=now + 30 * 86400, period_end=now + 60 * 86400
    )
    renewal["data"]["object"].update(amount_paid=999, billing_reason="subscription_cycle")
    failed = stripe_events.invoice_event(
        "payment_failed", "sub_ref", created=now + 60 * 86400, period_end=now + 90 * 86400
    )
    failed["data"]["object"].update(amount_paid=0, billing_reason="subscription_cycle")

    deliver(db_factory, completed, first_invoice, renewal, renewal, failed)
    rows = conversions(db)
    assert [(row.payment_ref, row.amount, row.commission) for row in rows] == [
        ("in_first", 999, 300),
        (renewal["data"]["object"]["id"], 999, 300),
    ]
    assert totals(db, partner) == (2, 600)


def test_the_first_invoice_is_the_checkouts_payment_in_either_order(db, db_factory, make_partner):
    """Stripe may send invoice.paid for the first invoice before or after the checkout;
    without a billing reason, the shared invoice id still keeps it to one conversion."""
    partner = make_partner("ANNA")
    buyer = referred_member(db, partner)
    provider_id = open_checkout(db, buyer, PREMIUM)
    now = int(time.time())
    created = stripe_events.subscription_event("created", "sub_two", buyer.id, created=now)
    invoice = stripe_events.invoice_event("paid", "sub_two", created=now, period_end=now + 86400)
    invoice["data"]["object"].update(id="in_shared", amount_paid=999)
    completed = stripe_events.checkout_completed(
        provider_id, buyer.id, subscription="sub_two", invoice="in_shared"
    )
    deliver(db_factory, created, invoice, completed)
    assert [row.payment_ref for row in conversions(db)] == ["in_shared"]
    assert totals(db, partner) == (1, 150)


def test_the_same_payment_recorded_at_the_same_moment_counts_once(db, db_factory, make_partner):
    partner = make_partner("ANNA")
    buyer = referred_member(db, partner)
    start = threading.Barrier(4)
    results: list[bool] = []

    def record():
        start.wait()
        with db_factory() as session:
            results.append(
                commissions.record_conversion(session, buyer.id, 5000, "pi_race") is not None
            )

    threads = [threading.Thread(target=record) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(results) == [False, False, False, True]
    assert len(conversions(db)) == 1
    assert totals(db, partner) == (1, 750)


# ---------------------------------------------------------------------------
# Refunds
# ---------------------------------------------------------------------------
def test_a_refund_reverses_an_unpaid_conversion_once(db, db_factory, make_partner):
    partner = make_partner("ANNA", tier="pro")
    buyer = referred_member(db, partner)
    pay(db, buyer, CONTACT, 50_000)
    kept = pay(db, buyer, CONTACT, 10_000)
    refunded = db.exec(select(CheckoutSession).where(CheckoutSession.amount_cents == 50_000)).one()
    assert totals(db, partner) == (2, 12_000)

    refund = stripe_events.charge_refunded(refunded.payment_intent_id, 50_000)
    assert deliver(db_factory, refund, refund) == [True, False]
    rows = {row.payment_ref: row for row in conversions(db)}
    assert rows[refunded.payment_intent_id].status == ConversionStatus.REVERSED
    assert rows[kept.payment_intent_id].status == ConversionStatus.UNPAID
    assert totals(db, partner) == (1, 2_000)


def test_a_refund_after_the_payout_leaves_the_paid_conversion(db, make_partner):
    partner = make_partner("ANNA")
    buyer = referred_member(db, partner)
    payment = pay(db, buyer, CONTACT, 10_000)
    conversion = conversions(db)[0]
    conversion.status = ConversionStatus.PAID  # the admin marked the partner paid
    db.add(conversion)
    db.commit()

    refunds.refund_payment(db, payment)  # the built-in test refund, as a declined request
    db.commit()
    assert [row.status for row in conversions(db)] == [ConversionStatus.PAID]
    assert totals(db, partner) == (1, 1_500)
