"""check-feature-access, record-feature-usage and personality-analysis over HTTP: one
free trial per feature (activated, then used once), Premium unlimited, the basic result
behind the gate and the detailed analysis only once paid for. Both databases."""

from __future__ import annotations

import uuid

from sqlmodel import func, select

from prettyscore.billing.models import CheckoutSession
from prettyscore.core import messages
from prettyscore.core.settings import get_settings
from prettyscore.gates.models import FeatureUsage
from prettyscore.personality import service as personality
from prettyscore.personality.models import PersonalityResult
from tests.api.functions_support import call, make_premium, new_member, pay

FEET = "feet_scoring"
QUIZ = "personality_test"
ANSWERS = {str(index): "abc"[index % 3] for index in range(20)}


def uses(db, member, feature: str) -> int:
    db.rollback()
    query = select(func.count()).select_from(FeatureUsage)
    return db.exec(
        query.where(FeatureUsage.user_id == member.id, FeatureUsage.feature_name == feature)
    ).one()


def access(api, member, feature: str = FEET) -> dict:
    answer = call(api, "check-feature-access", member, featureName=feature)
    assert answer.status_code == 200, answer.text
    return answer.json()


def record(api, member, feature: str = FEET):
    return call(api, "record-feature-usage", member, featureName=feature)


# ---------------------------------------------------------------------------
# Feature gates
# ---------------------------------------------------------------------------
def test_a_free_trial_is_activated_then_used_once(api, db):
    member = new_member(db)

    locked = access(api, member)
    activated = record(api, member)
    granted = access(api, member)
    used = record(api, member)
    spent = access(api, member)
    refused = record(api, member)

    assert locked == {"hasAccess": False, "reason": "premium_required", "trialRemaining": 1}
    assert activated.status_code == 200
    assert activated.json() == {
        "hasAccess": True,
        "reason": None,
        "trialRemaining": 0,
        "success": True,
        "trialActivated": True,
    }
    assert granted == {"hasAccess": True, "reason": None, "trialRemaining": 0}
    assert used.status_code == 200
    assert used.json()["trialActivated"] is False
    assert used.json()["hasAccess"] is False
    assert spent == {"hasAccess": False, "reason": "trial_exceeded", "trialRemaining": 0}
    assert refused.status_code == 403
    assert refused.json()["error_code"] == "trial_exceeded"
    assert refused.json()["msg"] == messages.FEATURE_NEEDS_PREMIUM
    assert uses(db, member, FEET) == 1


def test_trials_are_kept_per_feature(api, db):
    member = new_member(db)
    record(api, member, FEET)

    assert access(api, member, FEET)["hasAccess"] is True
    assert access(api, member, "hands_scoring") == {
        "hasAccess": False,
        "reason": "premium_required",
        "trialRemaining": 1,
    }


def test_premium_uses_gated_features_freely_and_keeps_the_trial(api, db):
    member = new_member(db)
    make_premium(api, db, member)

    answers = [record(api, member) for _ in range(3)]

    assert [a.status_code for a in answers] == [200] * 3
    assert {a.json()["trialActivated"] for a in answers} == {False}
    assert access(api, member) == {"hasAccess": True, "reason": None, "trialRemaining": 1}
    assert uses(db, member, FEET) == 3


def test_an_unknown_feature_is_refused(api, db):
    member = new_member(db)

    checked = call(api, "check-feature-access", member, featureName="time_travel")
    recorded = record(api, member, "time_travel")
    missing = call(api, "check-feature-access", member)

    assert checked.status_code == recorded.status_code == missing.status_code == 400
    assert checked.json()["msg"] == recorded.json()["msg"] == messages.UNKNOWN_FEATURE
    assert missing.json()["error_code"] == "validation_failed"


# ---------------------------------------------------------------------------
# personality-analysis
# ---------------------------------------------------------------------------
def analyse(api, member, quiz_type: str = "basic", answers=None):
    return call(
        api,
        "personality-analysis",
        member,
        answers=ANSWERS if answers is None else answers,
        quizType=quiz_type,
    )


def test_the_basic_analysis_is_behind_the_gate_like_the_page(api, db):
    member = new_member(db)

    locked = analyse(api, member)
    record(api, member, QUIZ)  # the documents' client activates the trial this way
    first = analyse(api, member)
    second = analyse(api, member)

    assert locked.status_code == 403
    assert locked.json()["error_code"] == "premium_required"
    assert first.status_code == 200, first.text
    expected = personality.personality_analysis(ANSWERS).response()
    assert {key: first.json()[key] for key in expected} == expected
    db.rollback()
    saved = db.get(PersonalityResult, uuid.UUID(first.json()["resultId"]))
    assert (saved.user_id, saved.quiz_type, saved.paid) == (member.id, "basic", False)
    assert second.status_code == 403
    assert second.json()["error_code"] == "trial_exceeded"


def test_premium_members_take_the_test_as_often_as_they_like(api, db):
    member = new_member(db)
    make_premium(api, db, member)

    answers = [analyse(api, member) for _ in range(2)]

    assert [a.status_code for a in answers] == [200, 200]
    assert uses(db, member, QUIZ) == 2


def test_the_answers_are_checked(api, db):
    member = new_member(db)
    make_premium(api, db, member)

    missing = analyse(api, member, answers={**{str(i): "a" for i in range(19)}})
    invalid = analyse(api, member, answers={**ANSWERS, "3": "z"})
    wrong_type = analyse(api, member, quiz_type="premium")

    assert missing.status_code == invalid.status_code == wrong_type.status_code == 400
    assert missing.json()["msg"] == messages.PLEASE_SELECT_ANSWER
    assert invalid.json()["msg"] == messages.PERSONALITY_INVALID_ANSWERS
    assert uses(db, member, QUIZ) == 0


def test_the_detailed_analysis_is_given_only_once_paid_for(api, db):
    member, other = new_member(db, "buyer"), new_member(db, "other")
    make_premium(api, db, member)
    basic = analyse(api, member).json()

    unpaid = analyse(api, member, "detailed")
    bought = call(
        api,
        "create-checkout",
        member,
        type="personality_analysis",
        priceId="price_free",
        metadata={"result_id": basic["resultId"]},
    )
    still_unpaid = analyse(api, member, "detailed")
    pay(db, member, bought.json()["url"])
    paid = analyse(api, member, "detailed")
    someone_else = analyse(api, other, "detailed")

    assert unpaid.status_code == still_unpaid.status_code == 402
    assert unpaid.json()["msg"] == messages.FAILED_TO_GET_DETAILED_ANALYSIS
    assert unpaid.json()["error_code"] == "payment_required"
    db.rollback()
    payment = db.exec(
        select(CheckoutSession).where(CheckoutSession.kind == "personality_analysis")
    ).one()
    assert payment.amount_cents == get_settings().detailed_personality_cents
    assert paid.status_code == 200, paid.text
    expected = personality.personality_analysis(ANSWERS, "detailed").response()
    assert {key: paid.json()[key] for key in expected} == expected
    assert len(paid.json()["analysis"]) > len(basic["analysis"])
    assert someone_else.status_code == 402


def test_a_detailed_analysis_is_bought_of_ones_own_result_only(api, db):
    member, other = new_member(db, "owner"), new_member(db, "other")
    make_premium(api, db, member)
    basic = analyse(api, member).json()

    stranger = call(
        api,
        "create-checkout",
        other,
        type="personality_analysis",
        metadata={"result_id": basic["resultId"]},
    )
    unnamed = call(api, "create-checkout", other, type="personality_analysis")

    assert stranger.status_code == 404
    assert stranger.json()["msg"] == messages.PERSONALITY_RESULT_NOT_FOUND
    assert unnamed.status_code == 400
    assert unnamed.json()["msg"] == messages.CHECKOUT_NAME_PERSONALITY_RESULT
