"""Second-tier (sub-affiliate) commission and partner promo codes at checkout (document
001 §1, §2: "partners earn commission on referred sales through a referral link and
promo code"; "Sub-affiliate referrals over 2 tiers are advertised").

A partner whose referred member becomes a partner earns PARTNER_SECOND_TIER_PERCENT of
that partner's conversions, once per payment; a promo code typed at checkout credits its
partner through the same path as the referral link; an unknown code, or the member's
own, starts nothing. Payments go through the real fulfilment (test checkout, and
Stripe-shaped webhook events each in its own transaction). Both databases.
"""

from __future__ import annotations

import uuid

import pytest
from sqlmodel import func, select

from prettyscore.accounts.models import Profile, User
from prettyscore.billing import checkout, refunds, webhooks
from prettyscore.billing.fulfilment import (
    KIND_CONTACT_REQUEST,
    KIND_PERSONALITY_ANALYSIS,
    KIND_SUBSCRIPTION,
)
from prettyscore.billing.models import CheckoutSession
from prettyscore.contact import service as contact
from prettyscore.contact.models import ContactRequest
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed
from prettyscore.partners import referrals, service
from prettyscore.partners.models import (
    ConversionStatus,
    PartnerAccount,
    PartnerConversion,
    PartnerStatus,
)
from tests.contact.test_service import GOOD_MESSAGE, listed_photo
from tests.helpers import stripe_events

SECOND = 2


def sign_up(db, code: str | None = None) -> User:
    """A member who signed up in a browser carrying ``code``'s referral cookie (or none)."""
    tokens = referrals.sign_up_with_referral(
        db, f"m-{uuid.uuid4().hex[:8]}@example.com", "secret12", referral_code=code
    )
    db.commit()
    return db.get(User, tokens.user_id)


def become_partner(
    db, member: User, code: str, promo: str = "", status: str = PartnerStatus.APPROVED
) -> PartnerAccount:
    """``member`` applies with ``code`` (and ``promo``) and the admin sets ``status``."""
    account = service.apply(db, member.id, f"Partner {code}", code, promo)
    account.status = status
    db.add(account)
    db.commit()
    return account


def chain(db) -> tuple[PartnerAccount, PartnerAccount, User]:
    """ANNA (a Starter partner) referred a member who became the partner BOB; BOB
    referred a buyer."""
    anna = become_partner(db, sign_up(db), "ANNA")
    bob = become_partner(db, sign_up(db, "ANNA"), "BOB")
    return anna, bob, sign_up(db, "BOB")


def open_checkout(db, member: User, kind: str, amount: int | None = None, promo=None) -> str:
    url = checkout.start_checkout(
        db,
        member,
        kind,
        amount_cents=amount,
        reference_id=str(uuid.uuid4()),
        description=kind,
        promo_code=promo,
    )
    db.commit()
    return url.split("=", 1)[1]


def pay(db, member: User, kind: str, amount: int | None = None, promo=None) -> CheckoutSession:
    provider_id = open_checkout(db, member, kind, amount, promo)
    checkout.pay_test_checkout(db, member.id, provider_id)
    db.commit()
    return webhooks.find_checkout(db, provider_id)


def conversions(db) -> list[tuple[uuid.UUID, int, int, int, str]]:
    """(partner, level, amount, commission, status) of every conversion, first tier first."""
    db.rollback()
    db.expire_all()
    rows = db.exec(
        select(PartnerConversion).order_by(PartnerConversion.created_at, PartnerConversion.level)
    ).all()
    return [(row.partner_id, row.level, row.amount, row.commission, row.status) for row in rows]


def totals(db, partner: PartnerAccount) -> tuple[int, int]:
    db.expire_all()
    row = db.get(PartnerAccount, partner.id)
    return row.total_conversions, row.total_earned


def count(db, model) -> int:
    db.rollback()
    return db.exec(select(func.count()).select_from(model)).one()


# ---------------------------------------------------------------------------
# The second tier
# ---------------------------------------------------------------------------
def test_the_partner_who_referred_a_partner_earns_the_second_tier_once(db, db_factory):
    anna, bob, buyer = chain(db)
    provider_id = open_checkout(db, buyer, KIND_CONTACT_REQUEST, 20_000)
    completed = stripe_events.checkout_completed(provider_id, buyer.id, payment_intent="pi_2t")

    results = [webhooks.receive_event(completed, db_scope=db_factory) for _ in range(3)]

    assert results == [True, False, False]
    assert conversions(db) == [
        (bob.id, 1, 20_000, 3_000, ConversionStatus.UNPAID),  # BOB's own 15%
        (anna.id, SECOND, 20_000, 1_000, ConversionStatus.UNPAID),  # ANNA's 5% of BOB's sale
    ]
    assert totals(db, bob) == (1, 3_000)
    assert totals(db, anna) == (0, 1_000)  # not her own conversion, but her earnings


def test_the_second_tier_rate_is_the_setting(db, app_settings):
    app_settings(PARTNER_SECOND_TIER_PERCENT="8")
    anna, bob, buyer = chain(db)
    pay(db, buyer, KIND_SUBSCRIPTION)  # $9.99
    assert conversions(db) == [
        (bob.id, 1, 999, 150, ConversionStatus.UNPAID),
        (anna.id, SECOND, 999, 80, ConversionStatus.UNPAID),  # $0.7992 rounds half up to $0.80
    ]


def test_the_default_second_tier_rate_is_five_percent(db):
    anna, _, buyer = chain(db)
    pay(db, buyer, KIND_PERSONALITY_ANALYSIS)  # $4.99
    assert [row for row in conversions(db) if row[1] == SECOND] == [
        (anna.id, SECOND, 499, 25, ConversionStatus.UNPAID)  # $0.2495
    ]


def test_a_second_tier_rate_of_zero_pays_no_second_tier(db, app_settings):
    app_settings(PARTNER_SECOND_TIER_PERCENT="0")
    anna, bob, buyer = chain(db)
    pay(db, buyer, KIND_CONTACT_REQUEST, 10_000)
    assert [row[0] for row in conversions(db)] == [bob.id]
    assert totals(db, anna) == (0, 0)


def test_a_chain_of_one_level_pays_only_the_first_tier(db):
    anna = become_partner(db, sign_up(db), "ANNA")  # nobody referred ANNA
    buyer = sign_up(db, "ANNA")
    pay(db, buyer, KIND_CONTACT_REQUEST, 10_000)
    assert conversions(db) == [(anna.id, 1, 10_000, 1_500, ConversionStatus.UNPAID)]


def test_two_tiers_and_never_a_third(db):
    top = become_partner(db, sign_up(db), "TOP")
    anna = become_partner(db, sign_up(db, "TOP"), "ANNA")
    bob = become_partner(db, sign_up(db, "ANNA"), "BOB")
    pay(db, sign_up(db, "BOB"), KIND_CONTACT_REQUEST, 10_000)
    assert [(row[0], row[1]) for row in conversions(db)] == [(bob.id, 1), (anna.id, SECOND)]
    assert totals(db, top) == (0, 0)


def test_a_suspended_referrer_earns_no_second_tier(db):
    anna, bob, buyer = chain(db)
    anna.status = PartnerStatus.SUSPENDED
    db.add(anna)
    db.commit()
    pay(db, buyer, KIND_CONTACT_REQUEST, 10_000)
    assert [row[0] for row in conversions(db)] == [bob.id]


def test_a_refund_reverses_both_tiers(db):
    anna, bob, buyer = chain(db)
    payment = pay(db, buyer, KIND_CONTACT_REQUEST, 10_000)
    refunds.refund_payment(db, payment)
    db.commit()
    assert [(row[0], row[4]) for row in conversions(db)] == [
        (bob.id, ConversionStatus.REVERSED),
        (anna.id, ConversionStatus.REVERSED),
    ]
    assert totals(db, bob) == (0, 0)
    assert totals(db, anna) == (0, 0)


def test_the_portal_shows_second_tier_earnings(db):
    anna, _, buyer = chain(db)
    pay(db, buyer, KIND_CONTACT_REQUEST, 10_000)
    pay(db, buyer, KIND_CONTACT_REQUEST, 30_000)
    view = service.portal(db, anna.user_id)
    assert view.second_tier_earned == 2_000
    assert [row.level for row in view.conversions] == [SECOND, SECOND]


# ---------------------------------------------------------------------------
# Promo codes at checkout
# ---------------------------------------------------------------------------
def test_a_promo_code_credits_its_partner_with_the_purchase_it_is_used_on_only(db):
    promoter = become_partner(db, sign_up(db), "PAULA", promo="SUMMER26")
    buyer = sign_up(db)  # nobody referred them

    payment = pay(db, buyer, KIND_CONTACT_REQUEST, 10_000, promo="  summer26 ")

    assert payment.promo_code == "SUMMER26"
    assert conversions(db) == [(promoter.id, 1, 10_000, 1_500, ConversionStatus.UNPAID)]
    assert totals(db, promoter) == (1, 1_500)
    # Unlike the referral link, the code does not make the member the partner's: their
    # later payments without a code earn the partner nothing.
    assert db.get(Profile, buyer.id).referred_by_partner is None
    pay(db, buyer, KIND_PERSONALITY_ANALYSIS)
    pay(db, buyer, KIND_CONTACT_REQUEST, 100_000)
    assert totals(db, promoter) == (1, 1_500)
    assert len(conversions(db)) == 1


def test_a_promo_code_pays_the_second_tier_too(db):
    anna = become_partner(db, sign_up(db), "ANNA")
    paula = become_partner(db, sign_up(db, "ANNA"), "PAULA", promo="PAULA10")
    pay(db, sign_up(db), KIND_CONTACT_REQUEST, 10_000, promo="PAULA10")
    assert [(row[0], row[1], row[3]) for row in conversions(db)] == [
        (paula.id, 1, 1_500),
        (anna.id, SECOND, 500),
    ]


def test_the_code_typed_wins_over_the_referral_for_that_payment(db):
    anna = become_partner(db, sign_up(db), "ANNA")
    paula = become_partner(db, sign_up(db), "PAULA", promo="PAULA10")
    buyer = sign_up(db, "ANNA")
    pay(db, buyer, KIND_CONTACT_REQUEST, 10_000, promo="PAULA10")
    assert [row[0] for row in conversions(db)] == [paula.id]
    assert db.get(Profile, buyer.id).referred_by_partner == anna.id  # still ANNA's member
    pay(db, buyer, KIND_PERSONALITY_ANALYSIS)  # no code: the referral decides
    assert [row[0] for row in conversions(db)] == [paula.id, anna.id]


@pytest.mark.parametrize("typed", ["NOSUCHCODE", "PENDING1", "SUSPENDED1"])
def test_an_unknown_code_starts_no_checkout_and_saves_nothing(db, db_factory, typed):
    become_partner(db, sign_up(db), "PEND", promo="PENDING1", status=PartnerStatus.PENDING)
    become_partner(db, sign_up(db), "SUSP", promo="SUSPENDED1", status=PartnerStatus.SUSPENDED)
    buyer = sign_up(db)
    photo = listed_photo(db, sign_up(db), 9.1)

    with pytest.raises(ValidationFailed) as refused, db_factory() as session:
        contact.request_contact(session, buyer, str(photo.id), GOOD_MESSAGE, typed)
    assert refused.value.message == messages.PROMO_CODE_UNKNOWN
    with pytest.raises(ValidationFailed) as refused_premium, db_factory() as session:
        checkout.start_checkout(
            session, buyer, KIND_SUBSCRIPTION, description="Premium", promo_code=typed
        )
    assert refused_premium.value.message == messages.PROMO_CODE_UNKNOWN

    assert count(db, ContactRequest) == 0
    assert count(db, CheckoutSession) == 0


def test_a_member_cannot_credit_themselves_with_their_own_code(db, db_factory):
    paula = become_partner(db, sign_up(db), "PAULA", promo="PAULA10")
    owner = db.get(User, paula.user_id)
    with pytest.raises(ValidationFailed) as refused, db_factory() as session:
        checkout.start_checkout(
            session,
            owner,
            KIND_CONTACT_REQUEST,
            amount_cents=10_000,
            reference_id=str(uuid.uuid4()),
            description="fee",
            promo_code="paula10",
        )
    assert refused.value.message == messages.PROMO_CODE_OWN
    assert count(db, CheckoutSession) == 0
    assert conversions(db) == []


def test_an_empty_code_is_no_code(db):
    anna = become_partner(db, sign_up(db), "ANNA", promo="ANNA1")
    payment = pay(db, sign_up(db, "ANNA"), KIND_CONTACT_REQUEST, 10_000, promo="   ")
    assert payment.promo_code == ""
    assert [row[0] for row in conversions(db)] == [anna.id]


def test_a_replayed_webhook_of_a_promo_payment_pays_once(db, db_factory):
    anna = become_partner(db, sign_up(db), "ANNA")
    paula = become_partner(db, sign_up(db, "ANNA"), "PAULA", promo="PAULA10")
    buyer = sign_up(db)
    provider_id = open_checkout(db, buyer, KIND_CONTACT_REQUEST, 50_000, promo="PAULA10")
    completed = stripe_events.checkout_completed(provider_id, buyer.id, payment_intent="pi_p")
    again = dict(completed, id="evt_async_same", type="checkout.session.async_payment_succeeded")

    deliveries = [webhooks.receive_event(e, db_scope=db_factory) for e in (completed, again)]
    deliveries.append(webhooks.receive_event(completed, db_scope=db_factory))

    assert deliveries == [True, True, False]
    assert [(row[0], row[1], row[3]) for row in conversions(db)] == [
        (paula.id, 1, 7_500),
        (anna.id, SECOND, 2_500),
    ]
    assert totals(db, paula) == (1, 7_500)
    assert totals(db, anna) == (0, 2_500)


def test_a_code_typed_again_replaces_the_open_test_checkouts_code(db):
    become_partner(db, sign_up(db), "PAULA", promo="PAULA10")
    buyer = sign_up(db)
    url = checkout.start_checkout(db, buyer, KIND_SUBSCRIPTION, description="Premium")
    again = checkout.start_checkout(
        db, buyer, KIND_SUBSCRIPTION, description="Premium", promo_code="paula10"
    )
    assert again == url  # the same open checkout, now with the code
    preview = checkout.describe_test_checkout(db, buyer.id, url.split("=", 1)[1])
    assert preview.promo_code == "PAULA10"


def test_with_stripe_the_code_travels_in_the_checkouts_metadata(db, db_factory, fake_stripe):
    paula = become_partner(db, sign_up(db), "PAULA", promo="PAULA10")
    buyer = sign_up(db)
    url = checkout.start_checkout(
        db, buyer, KIND_SUBSCRIPTION, description="Premium", promo_code="Paula10"
    )
    db.commit()
    created = fake_stripe.calls("/v1/checkout/sessions")[-1].form
    assert created["metadata[promo_code]"] == "PAULA10"
    assert created["subscription_data[metadata][promo_code]"] == "PAULA10"

    session_id = url.rsplit("/", 1)[1]
    completed = stripe_events.checkout_completed(
        session_id, buyer.id, subscription="sub_promo", invoice="in_promo"
    )
    assert webhooks.receive_event(completed, db_scope=db_factory) is True
    assert conversions(db) == [(paula.id, 1, 999, 150, ConversionStatus.UNPAID)]
