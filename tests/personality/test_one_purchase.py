"""The detailed analysis is bought once: what is bought is "the detailed analysis of these
answers for this member", so two tabs, two REST calls or two basic results with the same
answers name one unpaid row and one open checkout, and a second payment that lands
anyway is refunded as a duplicate and earns no partner anything. Both databases."""

from __future__ import annotations

import threading

from sqlmodel import select

from prettyscore.accounts.models import User
from prettyscore.billing import checkout, webhooks
from prettyscore.billing.fulfilment import KIND_PERSONALITY_ANALYSIS
from prettyscore.billing.models import CheckoutSession
from prettyscore.personality import service
from prettyscore.personality.models import PersonalityResult
from prettyscore.personality.quiz import DETAILED
from tests.helpers import stripe_events
from tests.personality.test_service import ALL_FIRST, basic_result, premium, session_id


def detailed_rows(db, member) -> list[PersonalityResult]:
    db.expire_all()
    return list(
        db.exec(
            select(PersonalityResult).where(
                PersonalityResult.user_id == member.id, PersonalityResult.quiz_type == DETAILED
            )
        ).all()
    )


def checkouts_of(db, member) -> list[CheckoutSession]:
    db.expire_all()
    rows = db.exec(
        select(CheckoutSession).where(
            CheckoutSession.user_id == member.id,
            CheckoutSession.kind == KIND_PERSONALITY_ANALYSIS,
        )
    ).all()
    return sorted(rows, key=lambda row: row.created_at)


def buy_twice(db, member, basic) -> tuple[str, str]:
    """Two dashboard tabs click "Get Detailed Analysis" one after the other."""
    first = service.start_detailed_purchase(db, member, basic.id)
    db.commit()
    second = service.start_detailed_purchase(db, member, basic.id)
    db.commit()
    return first, second


def test_two_tabs_buying_share_one_analysis_and_one_checkout(db, make_member):
    member = make_member()
    basic = basic_result(db, member)
    first, second = buy_twice(db, member, basic)

    assert second == first
    (row,) = detailed_rows(db, member)
    (payment,) = checkouts_of(db, member)
    assert (payment.status, payment.reference_id) == ("open", str(row.id))

    checkout.pay_test_checkout(db, member.id, session_id(first))
    db.commit()
    assert service.start_detailed_purchase(db, member, basic.id) == service.report_path(row.id)
    assert [payment.status for payment in checkouts_of(db, member)] == ["paid"]


def test_a_second_basic_result_with_the_same_answers_buys_the_same_analysis(db, make_member):
    member = make_member()
    basic = basic_result(db, member)
    again = service.finish_test(db, member.id, ALL_FIRST)  # the test taken twice alike
    db.commit()
    first = service.start_detailed_purchase(db, member, basic.id)
    second = service.start_detailed_purchase(db, member, again.id)
    db.commit()
    assert second == first
    assert len(detailed_rows(db, member)) == 1


def test_with_stripe_both_checkouts_paid_anyway_give_one_analysis_and_one_refund(
    db, make_member, fake_stripe
):
    member = make_member()
    basic = basic_result(db, member)
    buy_twice(db, member, basic)
    replaced, newest = checkouts_of(db, member)
    assert (replaced.status, newest.status, replaced.reference_id) == (
        "cancelled",
        "open",
        newest.reference_id,
    )

    for number, payment in enumerate((newest, replaced), start=1):
        event = stripe_events.checkout_completed(
            payment.provider_session_id, member.id, payment_intent=f"pi_standin_{number}"
        )
        webhooks.process_event(db, event)
        db.commit()

    replaced, newest = checkouts_of(db, member)
    assert (newest.status, newest.duplicate) == ("paid", False)
    assert (replaced.status, replaced.duplicate) == ("paid", True)
    (refund,) = fake_stripe.calls("/v1/refunds")
    assert refund.form["payment_intent"] == "pi_standin_2"
    (row,) = detailed_rows(db, member)
    assert row.paid


def test_an_older_unkeyed_analysis_paid_makes_a_second_payment_a_duplicate(db, make_member):
    """Analyses bought before they were named by their answers: each had its own row and
    checkout; paying the second once the first is paid gives it back."""
    member = make_member()
    basic_result(db, member)
    rows = []
    for _ in range(2):
        row = service._new_result(member.id, ALL_FIRST, DETAILED)
        row.answers_key = None
        db.add(row)
        db.flush()
        rows.append(row)
    urls = [
        checkout.start_checkout(
            db,
            member,
            KIND_PERSONALITY_ANALYSIS,
            reference_id=str(row.id),
            description="Detailed analysis",
        )
        for row in rows
    ]
    db.commit()

    for url in urls:
        checkout.pay_test_checkout(db, member.id, session_id(url))
        db.commit()

    first, second = checkouts_of(db, member)
    assert (first.status, first.duplicate) == ("paid", False)
    assert (second.status, second.duplicate) == ("refunded", True)
    assert [row.paid for row in sorted(detailed_rows(db, member), key=lambda r: r.created_at)] == [
        True,
        False,
    ]


def test_purchases_at_the_same_moment_make_one_analysis_and_one_checkout(
    db, db_factory, make_member
):
    member = make_member()
    premium(db, member)
    basic = service.finish_test(db, member.id, ALL_FIRST)
    db.commit()
    start = threading.Barrier(4)
    outcomes: list[str] = []

    def attempt():
        start.wait()
        try:
            with db_factory() as session:
                buyer = session.get(User, member.id)
                outcomes.append(service.start_detailed_purchase(session, buyer, basic.id))
        except checkout.CheckoutFailed as error:
            outcomes.append(error.message)

    threads = [threading.Thread(target=attempt) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    (row,) = detailed_rows(db, member)
    (payment,) = checkouts_of(db, member)
    assert payment.reference_id == str(row.id)
    assert set(outcomes) == {checkout.test_checkout_url(payment)}
