"""The personality test on a real database (SQLite and PostgreSQL): Finish records the
gate's use and the basic result together or not at all, and a detailed analysis is paid
for through the payments area before anyone can read it."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from sqlmodel import select

from prettyscore.billing import checkout, fulfilment, webhooks
from prettyscore.billing.models import CheckoutSession, Subscription
from prettyscore.core import messages, routes
from prettyscore.core.errors import NotFound, PermissionDenied, ValidationFailed
from prettyscore.core.model_types import utcnow
from prettyscore.dashboard import service as dashboard
from prettyscore.gates import service as gates
from prettyscore.gates.models import FeatureTrial, FeatureUsage
from prettyscore.personality import service
from prettyscore.personality.models import PersonalityResult
from tests.helpers import stripe_events
from tests.personality.test_analysis import SHAPES, answers

ALL_FIRST = answers(SHAPES["all first"][0])
ALL_THIRD = answers(SHAPES["all third"][0])


def premium(db, member) -> None:
    db.add(Subscription(user_id=member.id, expires_at=utcnow() + timedelta(days=30)))
    db.commit()


def results(db, member=None) -> list[PersonalityResult]:
    query = select(PersonalityResult)
    if member is not None:
        query = query.where(PersonalityResult.user_id == member.id)
    return list(db.exec(query).all())


def uses(db, member) -> int:
    return len(db.exec(select(FeatureUsage).where(FeatureUsage.user_id == member.id)).all())


def session_id(url: str) -> str:
    assert url.startswith(routes.TEST_CHECKOUT + "?session=")
    return url.split("=", 1)[1]


def basic_result(db, member, given=ALL_FIRST) -> service.ResultView:
    premium(db, member)
    view = service.finish_test(db, member.id, given)
    db.commit()
    return view


def buy(db, member, basic: service.ResultView) -> tuple[PersonalityResult, str]:
    """Buy the detailed analysis of ``basic``: the unpaid result and the checkout URL."""
    url = service.start_detailed_purchase(db, member, basic.id)
    db.commit()
    detailed = db.exec(
        select(PersonalityResult).where(
            PersonalityResult.user_id == member.id, PersonalityResult.quiz_type == "detailed"
        )
    ).all()[-1]
    return detailed, url


# ---------------------------------------------------------------------------
# Finish
# ---------------------------------------------------------------------------
def test_finish_saves_one_basic_result_and_records_the_use(db, make_member):
    member = make_member()
    view = basic_result(db, member)
    expected = service.personality_analysis(ALL_FIRST, "basic")

    (row,) = results(db, member)
    assert (row.quiz_type, row.paid, row.answers) == ("basic", False, ALL_FIRST)
    assert (row.score, row.personality_type, row.analysis) == (
        expected.score,
        expected.personality_type,
        expected.analysis,
    )
    assert (view.id, view.quiz_type, view.personality_type, view.score) == (
        str(row.id),
        "basic",
        "The Iconic Trendsetter",
        51,
    )
    assert view.paragraphs == (expected.analysis,) and view.traits == ()
    assert uses(db, member) == 1


def test_without_access_finish_saves_nothing(db, make_member):
    member = make_member()
    with pytest.raises(PermissionDenied) as raised:
        service.finish_test(db, member.id, ALL_FIRST)
    assert raised.value.code == gates.PREMIUM_REQUIRED
    db.rollback()
    assert results(db) == [] and uses(db, member) == 0


def test_a_free_trial_gives_one_go_and_then_the_gate_closes(db, make_member):
    member = make_member()
    gates.activate_trial(db, member.id, gates.PERSONALITY_TEST)
    db.commit()
    service.finish_test(db, member.id, ALL_FIRST)
    db.commit()

    with pytest.raises(PermissionDenied) as raised:
        service.finish_test(db, member.id, ALL_THIRD)
    assert raised.value.code == gates.TRIAL_EXCEEDED
    db.rollback()
    assert [row.answers for row in results(db, member)] == [ALL_FIRST]
    assert uses(db, member) == 1


def test_invalid_answers_spend_no_trial_and_save_nothing(db, make_member):
    member = make_member()
    gates.activate_trial(db, member.id, gates.PERSONALITY_TEST)
    db.commit()
    incomplete = {key: value for key, value in ALL_FIRST.items() if key != "19"}
    for given, text in (
        (incomplete, messages.PLEASE_SELECT_ANSWER),
        ({**ALL_FIRST, "3": "z"}, messages.PERSONALITY_INVALID_ANSWERS),
    ):
        with pytest.raises(ValidationFailed) as raised:
            service.finish_test(db, member.id, given)
        assert raised.value.message == text
        db.rollback()
    assert results(db) == [] and uses(db, member) == 0
    assert gates.check_feature_access(db, member.id, gates.PERSONALITY_TEST).has_access


def test_the_use_and_the_result_are_one_transaction(db, db_factory, make_member):
    """Whatever fails after Finish's work in the same unit of work undoes all of it:
    the trial is not spent, and no use or result is left behind."""
    member = make_member()
    gates.activate_trial(db, member.id, gates.PERSONALITY_TEST)
    db.commit()
    with pytest.raises(RuntimeError), db_factory() as unit:
        service.finish_test(unit, member.id, ALL_FIRST)
        raise RuntimeError("the connection dropped")
    assert results(db) == [] and uses(db, member) == 0
    trial = db.exec(select(FeatureTrial).where(FeatureTrial.user_id == member.id)).one()
    db.refresh(trial)
    assert (trial.trials_used, trial.trials_consumed) == (1, 0)

    with db_factory() as unit:  # the member can still take the test once
        service.finish_test(unit, member.id, ALL_FIRST)
    assert len(results(db, member)) == 1 and uses(db, member) == 1


def test_basic_results_are_listed_on_the_dashboard(db, make_member):
    member = make_member()
    basic = basic_result(db, member)
    (listed,) = dashboard.personality_results(db, member.id)
    assert (str(listed.id), listed.personality_type, listed.score, listed.detailed) == (
        basic.id,
        "The Iconic Trendsetter",
        51,
        False,
    )


def test_a_member_reads_only_their_own_results(db, make_member):
    member, other = make_member(), make_member()
    basic = basic_result(db, member)
    assert service.read_result(db, member.id, basic.id) == basic
    for result_id in (basic.id, "not-an-id", "00000000-0000-0000-0000-000000000000"):
        with pytest.raises(NotFound):
            service.read_result(db, other.id, result_id)


# ---------------------------------------------------------------------------
# The detailed analysis
# ---------------------------------------------------------------------------
def test_buying_creates_an_unpaid_analysis_and_a_checkout_at_the_set_price(db, make_member):
    member = make_member()
    basic = basic_result(db, member)
    detailed, url = buy(db, member, basic)

    expected = service.personality_analysis(ALL_FIRST, "detailed")
    assert (detailed.quiz_type, detailed.paid, detailed.answers) == ("detailed", False, ALL_FIRST)
    assert (detailed.analysis, detailed.score) == (expected.analysis, expected.score)
    payment = db.exec(select(CheckoutSession)).one()
    assert (payment.kind, payment.amount_cents, payment.reference_id) == (
        fulfilment.KIND_PERSONALITY_ANALYSIS,
        499,
        str(detailed.id),
    )
    assert payment.success_path == f"/personality-test?payment=success&result={detailed.id}"
    preview = checkout.describe_test_checkout(db, member.id, session_id(url))
    assert (preview.amount, preview.description) == ("$4.99", messages.PERSONALITY_DETAILED_TITLE)
    assert service.detailed_price() == "$4.99"


def test_the_price_comes_from_the_settings(db, make_member, app_settings):
    app_settings(DETAILED_PERSONALITY_CENTS="350")
    member = make_member()
    buy(db, member, basic_result(db, member))
    assert db.exec(select(CheckoutSession)).one().amount_cents == 350
    assert service.detailed_price() == "$3.50"


def test_an_unpaid_analysis_is_not_readable_anywhere(db, make_member):
    member = make_member()
    basic = basic_result(db, member)
    detailed, _ = buy(db, member, basic)
    assert service.detailed_report(db, member.id, detailed.id) is None
    with pytest.raises(NotFound):
        service.read_result(db, member.id, detailed.id)
    assert [str(r.id) for r in dashboard.personality_results(db, member.id)] == [basic.id]


def test_paying_through_the_test_checkout_unlocks_the_report(db, make_member):
    member = make_member()
    basic = basic_result(db, member)
    detailed, url = buy(db, member, basic)

    back = checkout.pay_test_checkout(db, member.id, session_id(url))
    db.commit()
    assert back == f"/personality-test?payment=success&result={detailed.id}"
    db.refresh(detailed)
    assert detailed.paid

    report = service.detailed_report(db, member.id, detailed.id)
    assert report == service.read_result(db, member.id, detailed.id)
    assert (report.quiz_type, report.personality_type, report.score) == (
        "detailed",
        "The Iconic Trendsetter",
        51,
    )
    assert len(report.paragraphs) == 6
    assert [(t.label, t.score) for t in report.traits] == [
        ("Confidence", 67),
        ("Social Energy", 29),
        ("Adventure", 24),
        ("Style Flair", 35),
    ]
    listed = dashboard.personality_results(db, member.id)
    assert [(str(r.id), r.detailed) for r in listed] == [
        (str(detailed.id), True),
        (basic.id, False),
    ]
    assert service.report_path(detailed.id) == f"/personality-test?result={detailed.id}"


def test_a_paid_analysis_is_not_sold_twice(db, make_member):
    member = make_member()
    basic = basic_result(db, member)
    detailed, url = buy(db, member, basic)
    checkout.pay_test_checkout(db, member.id, session_id(url))
    db.commit()

    assert service.start_detailed_purchase(db, member, basic.id) == service.report_path(detailed.id)
    assert len(db.exec(select(CheckoutSession)).all()) == 1
    # Other answers are another analysis, bought again.
    other = service.finish_test(db, member.id, ALL_THIRD)
    db.commit()
    assert service.start_detailed_purchase(db, member, other.id).startswith("/checkout/test")


def test_nobody_buys_or_reads_another_members_analysis(db, make_member):
    member, other = make_member(), make_member()
    basic = basic_result(db, member)
    detailed, url = buy(db, member, basic)
    with pytest.raises(NotFound):
        service.start_detailed_purchase(db, other, basic.id)
    with pytest.raises(NotFound):
        service.start_detailed_purchase(db, member, detailed.id)  # only basic results
    with pytest.raises(NotFound):
        service.detailed_report(db, other.id, detailed.id)
    with pytest.raises(NotFound):
        service.detailed_report(db, member.id, basic.id)  # not a detailed analysis
    with pytest.raises(NotFound):
        checkout.pay_test_checkout(db, other.id, session_id(url))
    db.rollback()
    assert len(db.exec(select(CheckoutSession)).all()) == 1


def test_when_stripe_fails_nothing_is_kept(db, db_factory, make_member, fake_stripe):
    member = make_member()
    basic = basic_result(db, member)
    fake_stripe.fail_next(500)
    fake_stripe.fail_next(500)  # the library retries once
    with pytest.raises(checkout.CheckoutFailed), db_factory() as unit:
        service.start_detailed_purchase(unit, member, basic.id)
    assert [row.quiz_type for row in results(db)] == ["basic"]
    assert db.exec(select(CheckoutSession)).all() == []


def test_a_stripe_payment_event_marks_it_paid_exactly_once(
    db, db_factory, make_member, fake_stripe
):
    member = make_member()
    basic = basic_result(db, member)
    url = service.start_detailed_purchase(db, member, basic.id)
    db.commit()
    assert url.startswith("https://checkout.stripe.test/")
    payment = db.exec(select(CheckoutSession)).one()
    detailed = db.get(PersonalityResult, uuid.UUID(payment.reference_id))
    completed = stripe_events.checkout_completed(
        payment.provider_session_id, member.id, payment_intent="pi_personality_1"
    )
    assert service.detailed_report(db, member.id, detailed.id) is None

    assert webhooks.receive_event(completed, db_scope=db_factory) is True
    db.refresh(detailed)
    assert detailed.paid
    assert service.detailed_report(db, member.id, detailed.id) is not None

    # A refund takes it back; the completed event delivered again changes nothing.
    refund = stripe_events.charge_refunded("pi_personality_1", payment.amount_cents)
    assert webhooks.receive_event(refund, db_scope=db_factory) is True
    assert webhooks.receive_event(completed, db_scope=db_factory) is False
    db.refresh(detailed)
    assert not detailed.paid
    assert service.detailed_report(db, member.id, detailed.id) is None
    assert [str(r.id) for r in dashboard.personality_results(db, member.id)] == [basic.id]


def test_a_payment_naming_someone_elses_result_unlocks_nothing(db, make_member):
    member, other = make_member(), make_member()
    detailed, _ = buy(db, member, basic_result(db, member))
    url = checkout.start_checkout(
        db,
        other,
        fulfilment.KIND_PERSONALITY_ANALYSIS,
        reference_id=str(detailed.id),
        description="Detailed analysis",
    )
    checkout.pay_test_checkout(db, other.id, session_id(url))
    db.commit()
    db.refresh(detailed)
    assert not detailed.paid
