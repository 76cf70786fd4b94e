"""No commission on one's own purchase or around a loop of referrals (document 001 §9:
partners earn on the sales they refer, over two tiers).

A member who brought a partner in (through their link, directly or through other
partners) cannot pay with that partner's promo code: the partner would earn on the
purchase of the one who referred them, a sock puppet's way to a commission on one's own
purchases. Two partners cannot refer each other, so neither becomes the other's second
tier. A loop that formed anyway (a checkout opened before it closed, or left from
before) pays no one around it. Payments go through the real fulfilment. Both databases.
"""

from __future__ import annotations

import uuid

import pytest
from sqlmodel import select

from prettyscore.accounts.models import Profile, User
from prettyscore.billing import checkout
from prettyscore.billing.fulfilment import KIND_CONTACT_REQUEST
from prettyscore.billing.models import CheckoutSession
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed
from prettyscore.partners.models import PartnerAccount
from tests.partners.test_second_tier_and_promo import (
    become_partner,
    conversions,
    count,
    open_checkout,
    pay,
    sign_up,
)

FIRST, SECOND = 1, 2


def owner_of(db, partner: PartnerAccount) -> User:
    return db.get(User, partner.user_id)


def referrer_of(db, user_id: uuid.UUID) -> uuid.UUID | None:
    db.rollback()
    db.expire_all()
    return db.exec(select(Profile.referred_by_partner).where(Profile.id == user_id)).one()


def earners(db) -> list[tuple[uuid.UUID, int]]:
    """(partner, level) of every conversion."""
    return [(partner, level) for partner, level, *_ in conversions(db)]


def test_a_partner_one_brought_in_cannot_earn_on_ones_own_purchases(db, db_factory):
    anna = become_partner(db, sign_up(db), "ANNA")
    puppet = become_partner(db, sign_up(db, "ANNA"), "PUPPET", promo="PUPPET10")
    grandchild = become_partner(db, sign_up(db, "PUPPET"), "GRAND", promo="GRAND10")
    anna_herself = owner_of(db, anna)

    for code in ("puppet10", "GRAND10"):  # referred directly, or through another partner
        with pytest.raises(ValidationFailed) as refused, db_factory() as session:
            checkout.start_checkout(
                session,
                anna_herself,
                KIND_CONTACT_REQUEST,
                amount_cents=10_000,
                reference_id=str(uuid.uuid4()),
                description="fee",
                promo_code=code,
            )
        assert refused.value.message == messages.PROMO_CODE_OF_YOUR_REFERRAL

    assert count(db, CheckoutSession) == 0
    assert conversions(db) == []
    assert referrer_of(db, anna_herself.id) is None
    assert {puppet.id, grandchild.id}.isdisjoint(partner for partner, _ in earners(db))


def test_buying_with_each_others_codes_makes_no_partner_the_others_second_tier(db):
    anna = become_partner(db, sign_up(db), "ANNA", promo="ANNA10")
    bob = become_partner(db, sign_up(db), "BOB", promo="BOB10")
    pay(db, owner_of(db, anna), KIND_CONTACT_REQUEST, 10_000, promo="BOB10")
    pay(db, owner_of(db, bob), KIND_CONTACT_REQUEST, 10_000, promo="ANNA10")
    # Each code earned its own purchase; neither made its buyer the other's referral.
    assert earners(db) == [(bob.id, FIRST), (anna.id, FIRST)]
    assert referrer_of(db, anna.user_id) is None
    assert referrer_of(db, bob.user_id) is None

    pay(db, sign_up(db, "BOB"), KIND_CONTACT_REQUEST, 10_000)  # Bob's own referral buys
    assert earners(db)[-1:] == [(bob.id, FIRST)]  # and Anna is not Bob's upline


def test_a_checkout_opened_before_another_code_was_used_pays_its_own_code(db):
    anna = become_partner(db, sign_up(db), "ANNA", promo="ANNA10")
    bob = become_partner(db, sign_up(db), "BOB", promo="BOB10")
    anna_herself, bob_himself = owner_of(db, anna), owner_of(db, bob)
    waiting = open_checkout(db, anna_herself, KIND_CONTACT_REQUEST, 10_000, promo="BOB10")
    pay(db, bob_himself, KIND_CONTACT_REQUEST, 10_000, promo="ANNA10")

    checkout.pay_test_checkout(db, anna_herself.id, waiting)
    db.commit()

    assert earners(db) == [(anna.id, FIRST), (bob.id, FIRST)]
    assert referrer_of(db, anna_herself.id) is None


def test_partners_left_referring_each_other_earn_no_second_tier_on_each_other(db):
    anna = become_partner(db, sign_up(db), "ANNA")
    bob = become_partner(db, sign_up(db, "ANNA"), "BOB")
    profile = db.get(Profile, anna.user_id)  # a loop credited before loops were refused
    profile.referred_by_partner = bob.id
    db.add(profile)
    db.commit()

    pay(db, sign_up(db, "ANNA"), KIND_CONTACT_REQUEST, 10_000)
    pay(db, sign_up(db, "BOB"), KIND_CONTACT_REQUEST, 10_000)

    assert earners(db) == [(anna.id, FIRST), (bob.id, FIRST)]
