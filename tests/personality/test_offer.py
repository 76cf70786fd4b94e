"""The detailed analysis offered for the latest result from the dashboard, not only
right after finishing the quiz."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from prettyscore.billing import checkout
from prettyscore.billing.models import CheckoutSession, Subscription
from prettyscore.core import routes
from prettyscore.core.db import session_scope
from prettyscore.core.model_types import utcnow
from prettyscore.personality import service
from prettyscore.personality.components import detailed_analysis_offer
from prettyscore.personality.models import PersonalityResult
from prettyscore.personality.offer_state import DetailedOfferState
from prettyscore.personality.quiz import DETAILED
from tests.fixtures.handlers import as_user, call
from tests.fixtures.people import member_session
from tests.personality.test_service import ALL_FIRST, ALL_THIRD, basic_result, buy, session_id


def test_the_latest_basic_result_is_on_offer_until_its_analysis_is_paid(db, make_member):
    member = make_member()
    assert service.latest_detailed_offer(db, member.id) is None

    first = basic_result(db, member, ALL_FIRST)
    assert service.latest_detailed_offer(db, member.id) == first
    latest = service.finish_test(db, member.id, ALL_THIRD)
    db.commit()
    assert service.latest_detailed_offer(db, member.id) == latest

    detailed, url = buy(db, member, latest)
    assert service.latest_detailed_offer(db, member.id) == latest  # unpaid: still on offer
    checkout.pay_test_checkout(db, member.id, session_id(url))
    db.commit()
    assert service.latest_detailed_offer(db, member.id) is None
    assert service.buy_latest_detailed(db, member) == service.report_path(detailed.id)


def test_buying_from_the_offer_buys_the_latest_result(db, make_member):
    member, other = make_member(), make_member()
    basic_result(db, member, ALL_FIRST)
    latest = service.finish_test(db, member.id, ALL_THIRD)
    basic_result(db, other, ALL_FIRST)

    url = service.buy_latest_detailed(db, member)
    db.commit()
    assert url.startswith(routes.TEST_CHECKOUT)
    [detailed] = db.exec(select(PersonalityResult).where(PersonalityResult.quiz_type == DETAILED))
    assert (detailed.user_id, detailed.answers, detailed.paid) == (member.id, ALL_THIRD, False)
    assert detailed.personality_type == latest.personality_type


def premium_member_with_result(answers=ALL_FIRST):
    with session_scope() as db:
        someone = member_session(db)
        db.add(
            Subscription(
                user_id=someone.user_id, status="active", expires_at=utcnow() + timedelta(days=30)
            )
        )
        db.flush()
        result = service.finish_test(db, someone.user_id, answers)
    return someone, result


def test_the_offer_shows_the_latest_type_and_goes_to_the_checkout(
    app_database, clean_billing_settings
):
    someone, result = premium_member_with_result()
    offer = as_user(DetailedOfferState, someone)
    call(offer, "load_offer")
    assert offer.offer_type == result.personality_type
    assert offer.offer_price == service.detailed_price()

    reply = call(offer, "buy_offer")
    assert reply.toasts == []
    [url] = reply.redirects
    assert url.startswith(routes.TEST_CHECKOUT + "?session=")
    with session_scope() as db:
        [payment] = db.exec(select(CheckoutSession)).all()
        assert payment.user_id == someone.user_id


def test_no_offer_without_a_result_or_signed_out(app_database):
    with session_scope() as db:
        someone = member_session(db)
    offer = as_user(DetailedOfferState, someone)
    call(offer, "load_offer")
    assert offer.offer_type == ""
    signed_out = as_user(DetailedOfferState, None)
    call(signed_out, "load_offer")
    assert signed_out.offer_type == ""
    assert call(signed_out, "buy_offer").redirects


def test_the_offer_component_builds():
    assert "detailed-offer" in str(detailed_analysis_offer().render())
