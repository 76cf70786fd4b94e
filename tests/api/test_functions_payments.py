"""check-subscription and create-checkout over HTTP: Premium paid through the real test
checkout, checkouts only for oneself, and amounts always the server's. Both databases."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from sqlmodel import select

from prettyscore.accounts.models import User
from prettyscore.billing.models import CheckoutSession
from prettyscore.contact import service as contact
from prettyscore.contact.models import ContactRequest
from prettyscore.core import messages
from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import get_settings
from prettyscore.partners import service as partners
from prettyscore.partners.models import PartnerConversion
from prettyscore.personality import service as personality
from prettyscore.photos.models import Photo
from tests.api.functions_support import call, make_premium, new_member, pay, stored_photo
from tests.personality.test_service import ALL_FIRST

CONTACT_MESSAGE = "Hello! I would love to talk about your photo."


def checkouts(db) -> list[CheckoutSession]:
    db.rollback()
    return list(db.exec(select(CheckoutSession)).all())


def listed_photo(api_server, db, contestant, score: float = 9.5) -> Photo:
    """A contestant's photo on the leaderboard (score 9.5: rank 1 of one)."""
    photo = Photo(
        user_id=contestant.id,
        original_image_url=stored_photo(api_server, contestant),
        score=score,
        rating_label="Elite Beauty",
        breakdown={"symmetry": 9.5, "skinQuality": 9.4, "facialHarmony": 9.6},
        public_listing=True,
        display_name="Star",
    )
    db.add(photo)
    db.commit()
    return photo


def test_check_subscription_follows_a_paid_premium_checkout(api, db):
    member = new_member(db)

    before = call(api, "check-subscription", member)
    make_premium(api, db, member)
    after = call(api, "check-subscription", member)

    assert before.status_code == after.status_code == 200
    assert before.json() == {"subscribed": False, "subscription_end": None}
    assert after.json()["subscribed"] is True
    end = datetime.fromisoformat(after.json()["subscription_end"])
    assert timedelta(days=27) < end - utcnow() < timedelta(days=32)


def test_check_subscription_needs_no_body(api, db):
    member = new_member(db)

    answer = api.post("/functions/v1/check-subscription", headers=member.headers)

    assert answer.status_code == 200
    assert answer.json()["subscribed"] is False


def test_a_premium_checkout_costs_the_servers_price_whatever_the_body_says(api, db):
    member = new_member(db)

    answer = call(
        api,
        "create-checkout",
        member,
        type="subscription",
        priceId="price_one_cent",
        userId=str(member.id),
        email=member.email.upper(),
        metadata={"plan_name": "Free forever", "fee_amount": 1},
    )

    assert answer.status_code == 200, answer.text
    assert answer.json()["url"].startswith(f"{get_settings().public_url}/checkout/test?session=")
    [payment] = checkouts(db)
    assert (payment.user_id, payment.kind, payment.amount_cents) == (
        member.id,
        "subscription",
        get_settings().premium_monthly_cents,
    )
    assert payment.description == messages.PREMIUM_PLAN_NAME


def test_a_checkout_for_someone_else_is_refused(api, db):
    member, other = new_member(db, "payer"), new_member(db, "other")

    for_other_id = call(api, "create-checkout", member, type="subscription", userId=str(other.id))
    for_other_email = call(api, "create-checkout", member, type="subscription", email=other.email)

    assert for_other_id.status_code == for_other_email.status_code == 403
    assert for_other_id.json()["msg"] == messages.CHECKOUT_ONLY_FOR_YOURSELF
    assert for_other_email.json()["error"] == messages.CHECKOUT_ONLY_FOR_YOURSELF
    assert checkouts(db) == []


def test_premium_members_cannot_subscribe_twice(api, db):
    member = new_member(db)
    make_premium(api, db, member)

    again = call(api, "create-checkout", member, type="subscription")

    assert again.status_code == 400
    assert again.json()["msg"] == messages.ALREADY_PREMIUM


def test_a_contact_request_is_priced_by_its_rank_not_by_the_body(api, api_server, db):
    requester, contestant = new_member(db, "fan"), new_member(db, "star")
    photo = listed_photo(api_server, db, contestant)

    answer = call(
        api,
        "create-checkout",
        requester,
        type="contact_request",
        priceId="price_cheap",
        metadata={"photo_id": str(photo.id), "message": CONTACT_MESSAGE, "fee_amount": 1},
    )

    assert answer.status_code == 200, answer.text
    [payment] = checkouts(db)
    request = db.exec(select(ContactRequest)).one()
    assert payment.amount_cents == request.fee_amount == contact.fee_for_rank(1) == 100_000
    assert (payment.kind, payment.reference_id) == ("contact_request", str(request.id))
    assert (request.requester_id, request.contestant_id) == (requester.id, contestant.id)


def test_a_member_pays_their_own_unpaid_contact_request_only(api, api_server, db):
    requester, contestant = new_member(db, "fan"), new_member(db, "star")
    other = new_member(db, "other")
    photo = listed_photo(api_server, db, contestant)
    request = contact.create_request(db, db.get(User, requester.id), photo.id, CONTACT_MESSAGE)
    db.commit()
    metadata = {"contact_request_id": str(request.id), "fee_amount": 5, "rank": 20}

    stranger = call(api, "create-checkout", other, type="contact_request", metadata=metadata)
    own = call(api, "create-checkout", requester, type="contact_request", metadata=metadata)

    assert stranger.status_code == 404
    assert stranger.json()["msg"] == messages.CONTACT_REQUEST_NOT_FOUND
    assert own.status_code == 200, own.text
    [payment] = checkouts(db)
    assert (payment.user_id, payment.amount_cents) == (requester.id, 100_000)


def test_a_contact_checkout_must_name_what_it_pays_for(api, db):
    member = new_member(db)

    nothing = call(api, "create-checkout", member, type="contact_request")
    unknown = call(
        api,
        "create-checkout",
        member,
        type="contact_request",
        metadata={"contact_request_id": str(uuid.uuid4())},
    )
    wrong_type = call(api, "create-checkout", member, type="gift_card")

    assert nothing.status_code == 400
    assert nothing.json()["msg"] == messages.CHECKOUT_NAME_CONTACT_REQUEST
    assert unknown.status_code == 404
    assert wrong_type.status_code == 400
    assert wrong_type.json()["error_code"] == "validation_failed"
    assert checkouts(db) == []


def test_a_checkout_takes_a_partners_promo_code_and_refuses_an_unknown_one(api, db):
    partner = new_member(db, "partner")
    account = partners.apply(db, partner.id, "Paula", "PAULA", "PAULA10")
    account.status = "approved"
    db.add(account)
    db.commit()
    member = new_member(db)

    unknown = call(
        api, "create-checkout", member, type="subscription", metadata={"promo_code": "NOPE"}
    )
    own = call(
        api, "create-checkout", partner, type="subscription", metadata={"promo_code": "PAULA10"}
    )
    assert unknown.status_code == own.status_code == 400
    assert unknown.json()["msg"] == messages.PROMO_CODE_UNKNOWN
    assert own.json()["msg"] == messages.PROMO_CODE_OWN
    assert checkouts(db) == []

    taken = call(
        api, "create-checkout", member, type="subscription", metadata={"promo_code": "paula10"}
    )
    assert taken.status_code == 200, taken.text
    [payment] = checkouts(db)
    assert (payment.user_id, payment.promo_code) == (member.id, "PAULA10")


def test_two_detailed_analysis_checkouts_for_one_result_are_one_payment(api, db):
    partner = new_member(db, "partner")
    account = partners.apply(db, partner.id, "Paula", "PAULA", "PAULA10")
    account.status = "approved"
    db.add(account)
    db.commit()
    member = new_member(db)
    make_premium(api, db, member)
    basic = personality.finish_test(db, member.id, ALL_FIRST)
    db.commit()
    body = {"type": "personality_analysis", "metadata": {"result_id": basic.id}}
    body["metadata"]["promo_code"] = "PAULA10"

    first, second = (call(api, "create-checkout", member, **body) for _ in range(2))

    assert first.status_code == second.status_code == 200, second.text
    assert first.json()["url"] == second.json()["url"]
    opened = [row for row in checkouts(db) if row.kind == "personality_analysis"]
    assert [row.status for row in opened] == ["open"]
    pay(db, member, first.json()["url"])
    again = call(api, "create-checkout", member, **body)
    assert again.json()["url"].endswith(f"/personality-test?result={opened[0].reference_id}")
    db.rollback()
    earned = db.exec(
        select(PartnerConversion).where(PartnerConversion.partner_id == account.id)
    ).all()
    assert [row.amount for row in earned] == [get_settings().detailed_personality_cents]
