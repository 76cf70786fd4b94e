"""The personality test in a real browser: a member answers the 20 questions, gets a
result, retakes it, buys the detailed analysis through the test checkout and finds it on
the dashboard; a trial member gets one go; visitors sign in first."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from prettyscore.billing.models import CheckoutSession, Subscription
from prettyscore.core import messages
from prettyscore.core.model_types import utcnow
from prettyscore.gates.models import FeatureUsage
from prettyscore.personality import service
from prettyscore.personality.models import PersonalityResult
from prettyscore.personality.quiz import QUESTIONS
from tests.e2e.flows import member_id, new_member, open_page, wait_for_path, with_app_database
from tests.helpers import stripe_events
from tests.helpers.app_server import STRIPE_WEBHOOK_SECRET
from tests.personality.test_analysis import SHAPES, answers

pytestmark = pytest.mark.e2e

PAID_RETURN = re.compile(r"/personality-test/?\?payment=success&result=([0-9a-f-]{36})$")


def make_premium(app_server, address: str) -> uuid.UUID:
    with with_app_database(app_server) as db:
        user_id = member_id(db, address)
        db.add(Subscription(user_id=user_id, expires_at=utcnow() + timedelta(days=30)))
    return user_id


def saved_results(app_server, user_id) -> list[PersonalityResult]:
    with with_app_database(app_server) as db:
        return list(
            db.exec(
                select(PersonalityResult)
                .where(PersonalityResult.user_id == user_id)
                .order_by(PersonalityResult.created_at)
            ).all()
        )


def quiz(page):
    return page.get_by_test_id("personality-quiz")


def choice(page, question: int, value: str):
    label = QUESTIONS[question].choice(value).label
    return quiz(page).get_by_role("radio", name=label, exact=True)


def on_question(page, question: int) -> None:
    expect(quiz(page).get_by_test_id("quiz-progress")).to_have_text(
        messages.PERSONALITY_QUESTION_OF.format(n=question + 1, total=20)
    )
    expect(quiz(page).get_by_test_id("quiz-question")).to_have_text(QUESTIONS[question].text)


def answer_all(page, pattern: str, start: int = 0) -> None:
    """Pick the pattern's choice for each question from ``start``, then Finish."""
    for question in range(start, 20):
        on_question(page, question)
        choice(page, question, pattern[question]).click()
        expect(choice(page, question, pattern[question])).to_be_checked()
        name = messages.PERSONALITY_FINISH if question == 19 else messages.PERSONALITY_NEXT
        quiz(page).get_by_role("button", name=name).click()


def shows_result(page, pattern: str) -> None:
    _, personality_type, score = next(shape for shape in SHAPES.values() if shape[0] == pattern)
    result = page.get_by_test_id("personality-result")
    expect(result.get_by_test_id("personality-type")).to_have_text(personality_type)
    expect(result.get_by_test_id("personality-score")).to_have_text(str(score))
    expect(result.get_by_text(messages.PERSONALITY_SCORE_MEANS)).to_be_visible()  # what it is
    expected = service.personality_analysis(answers(pattern)).analysis
    expect(result.get_by_test_id("personality-analysis")).to_have_text(expected)


def test_a_visitor_is_sent_to_sign_in_and_back(page, app_server):
    page.goto(app_server.url("/personality-test"))
    wait_for_path(page, "/auth", "?next=/personality-test")
    expect(page.get_by_text(messages.LOG_IN_FOR_PERSONALITY)).to_be_visible()


def test_a_member_takes_the_test_retakes_it_and_buys_the_detailed_analysis(page, app_server):
    base = app_server.base_url
    user_id = make_premium(app_server, new_member(page, base, "quiz"))
    open_page(page, f"{base}/personality-test")

    # One question at a time: an answer is needed, and going back keeps it.
    on_question(page, 0)
    expect(quiz(page).get_by_role("button", name=messages.PERSONALITY_PREVIOUS)).to_be_disabled()
    quiz(page).get_by_role("button", name=messages.PERSONALITY_NEXT).click()
    expect(page.get_by_text(messages.PLEASE_SELECT_ANSWER)).to_be_visible()
    on_question(page, 0)
    mixed = SHAPES["mixed"][0]
    choice(page, 0, mixed[0]).click()
    quiz(page).get_by_role("button", name=messages.PERSONALITY_NEXT).click()
    on_question(page, 1)
    choice(page, 1, mixed[1]).click()
    quiz(page).get_by_role("button", name=messages.PERSONALITY_PREVIOUS).click()
    on_question(page, 0)
    expect(choice(page, 0, mixed[0])).to_be_checked()
    quiz(page).get_by_role("button", name=messages.PERSONALITY_NEXT).click()
    on_question(page, 1)
    expect(choice(page, 1, mixed[1])).to_be_checked()
    expect(quiz(page).get_by_role("button", name=messages.PERSONALITY_FINISH)).to_have_count(0)
    answer_all(page, mixed, start=1)
    shows_result(page, mixed)

    (basic,) = saved_results(app_server, user_id)
    assert (basic.quiz_type, basic.answers) == ("basic", answers(mixed))
    with with_app_database(app_server) as db:
        used = db.exec(select(FeatureUsage).where(FeatureUsage.user_id == user_id)).all()
    assert [use.feature_name for use in used] == ["personality_test"]

    # The purchase view, and back.
    page.get_by_role("button", name=messages.PERSONALITY_GET_DETAILED).click()
    purchase = page.get_by_test_id("detailed-purchase")
    expect(purchase.get_by_test_id("detailed-price")).to_have_text("$4.99")
    for line in messages.PERSONALITY_DETAILED_INCLUDES:
        expect(purchase.get_by_text(line)).to_be_visible()
    purchase.get_by_role("button", name=messages.PERSONALITY_BACK_TO_RESULT).click()
    shows_result(page, mixed)

    # Retake: back to question 1 with nothing chosen.
    page.get_by_role("button", name=messages.PERSONALITY_RETAKE).click()
    on_question(page, 0)
    for value in "abc":
        expect(choice(page, 0, value)).not_to_be_checked()
    all_first = SHAPES["all first"][0]
    answer_all(page, all_first)
    shows_result(page, all_first)

    # Buy: the test checkout, then the detailed report back on the page.
    page.get_by_role("button", name=messages.PERSONALITY_GET_DETAILED).click()
    purchase = page.get_by_test_id("detailed-purchase")
    # On a small phone the offer, its promo code field and its button fit the screen.
    desktop = page.viewport_size
    page.set_viewport_size({"width": 360, "height": 800})
    expect(purchase.get_by_role("textbox", name=messages.PROMO_CODE_FIELD)).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.set_viewport_size(desktop)
    purchase.get_by_role("button", name=messages.PERSONALITY_BUY).click()
    page.wait_for_url(re.compile(r"/checkout/test/?\?session=cs_test_local_\w+$"))
    checkout = page.get_by_test_id("test-checkout")
    expect(checkout.get_by_test_id("checkout-item")).to_have_text(
        messages.PERSONALITY_DETAILED_TITLE
    )
    expect(checkout.get_by_test_id("checkout-amount")).to_have_text("$4.99")
    pay = checkout.get_by_role("button", name=messages.TEST_CHECKOUT_PAY.format(amount="$4.99"))
    expect(pay).to_be_enabled()
    pay.click()
    page.wait_for_url(PAID_RETURN)
    detailed_id = PAID_RETURN.search(page.url).group(1)

    report = page.get_by_test_id("detailed-report")
    expect(report.get_by_test_id("personality-type")).to_have_text("The Iconic Trendsetter")
    expect(report.get_by_test_id("detailed-trait")).to_have_count(4)
    expect(report.get_by_test_id("detailed-trait").first).to_contain_text("Confidence")
    expected = service.personality_analysis(answers(all_first), "detailed").analysis
    paragraphs = report.get_by_test_id("detailed-analysis").get_by_test_id("analysis-paragraph")
    expect(paragraphs).to_have_text(expected.split("\n\n"))

    rows = saved_results(app_server, user_id)
    assert [(row.quiz_type, row.paid) for row in rows] == [
        ("basic", False),
        ("basic", False),
        ("detailed", True),
    ]
    assert str(rows[-1].id) == detailed_id

    # The dashboard's Personality tab lists all three, and the report can be read there.
    report.get_by_role("link", name=messages.PERSONALITY_GO_TO_DASHBOARD).click()
    wait_for_path(page, "/dashboard", "?tab=personality")
    listed = page.get_by_test_id("personality-result")
    expect(listed).to_have_count(3)
    newest = listed.first
    expect(newest).to_contain_text("The Iconic Trendsetter")
    expect(newest).to_contain_text("Detailed analysis")
    newest.get_by_role("link", name=messages.PERSONALITY_READ_REPORT).click()
    wait_for_path(page, "/personality-test", f"?result={detailed_id}")
    expect(page.get_by_test_id("detailed-report")).to_contain_text("A tip for The Iconic")


def test_a_trial_member_gets_one_go_and_the_report_waits_for_the_payment(page, app_server):
    """One free go; then a payment confirmed only later, by Stripe's signed event,
    shows on the page that was left waiting for it."""
    base = app_server.base_url
    address = new_member(page, base, "trial")
    open_page(page, f"{base}/personality-test")
    locked = page.get_by_test_id("gate-locked")
    expect(locked.get_by_text(messages.GATE_PREMIUM_REQUIRED_TITLE)).to_be_visible()
    locked.get_by_role("button", name=messages.GATE_ACTIVATE_FREE_TRIAL).click()
    expect(page.get_by_text(messages.TRIAL_ACTIVATED)).to_be_visible()
    all_third = SHAPES["all third"][0]
    answer_all(page, all_third)
    shows_result(page, all_third)

    # Buy, but leave the checkout without paying: the page waits on the paid address.
    page.get_by_role("button", name=messages.PERSONALITY_GET_DETAILED).click()
    page.get_by_role("button", name=messages.PERSONALITY_BUY).click()
    page.wait_for_url(re.compile(r"/checkout/test/?\?session=cs_test_local_\w+$"))
    with with_app_database(app_server) as db:
        user_id = member_id(db, address)
        payment = db.exec(select(CheckoutSession).where(CheckoutSession.user_id == user_id)).one()
    open_page(page, f"{base}{payment.success_path}")
    expect(page.get_by_test_id("detailed-confirming")).to_contain_text(
        messages.PERSONALITY_CONFIRMING
    )
    expect(page.get_by_test_id("detailed-report")).to_have_count(0)

    completed = stripe_events.checkout_completed(payment.provider_session_id, user_id)
    assert stripe_events.deliver(base, completed, STRIPE_WEBHOOK_SECRET).status_code == 200
    report = page.get_by_test_id("detailed-report")
    expect(report.get_by_test_id("personality-type")).to_have_text("The Glamorous Connector")

    # Retake: the gate asks again, and the free trial is used up.
    report.get_by_role("button", name=messages.PERSONALITY_RETAKE).click()
    expect(locked.get_by_text(messages.GATE_TRIAL_USED_TITLE)).to_be_visible()
    expect(quiz(page)).to_have_count(0)
    assert [r.quiz_type for r in saved_results(app_server, user_id)] == ["basic", "detailed"]
