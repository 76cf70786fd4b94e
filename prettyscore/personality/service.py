"""The personality test on the server: checking answers, the analysis, saving results and
selling the detailed analysis.

``personality_analysis`` is the documents' personality-analysis server function: a
deterministic model in which every choice adds points to four trait axes (confidence,
social energy, adventure, style). Each axis is scored 0-100 against the most it could
collect; the two strongest axes name the type (or, when all four are close, the balanced
type), and the score says how clearly that type shows. The same answers always give the
same result.

What a member may keep is decided here too: Finish records the gate's use and the basic
result in the caller's one transaction, and a detailed analysis is bought through the
payments area and readable only once its payment event has marked it paid.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from prettyscore.billing import checkout
from prettyscore.billing.fulfilment import KIND_PERSONALITY_ANALYSIS
from prettyscore.core import messages, routes
from prettyscore.core.errors import NotFound, ValidationFailed
from prettyscore.core.settings import get_settings
from prettyscore.gates import service as gates
from prettyscore.personality import profiles
from prettyscore.personality.models import PersonalityResult, answers_key
from prettyscore.personality.quiz import (
    AXES,
    BASIC,
    DETAILED,
    QUESTION_COUNT,
    QUESTIONS,
    QUIZ_TYPES,
    max_points,
)

#: All four traits within this many points of one another read as the balanced type.
BALANCED_SPREAD = 12
PARAGRAPH_BREAK = "\n\n"


@dataclass(frozen=True)
class TraitReading:
    """One trait axis in a report: its score out of 100 and what that level says."""

    key: str
    label: str
    score: int
    text: str


@dataclass(frozen=True)
class Analysis:
    """What personality-analysis answers: score, personalityType and the analysis text
    (paragraphs separated by a blank line), with the trait readings it was built from."""

    score: int
    personality_type: str
    analysis: str
    traits: tuple[TraitReading, ...]

    def response(self) -> dict[str, Any]:
        """The documents' response shape."""
        return {
            "score": self.score,
            "personalityType": self.personality_type,
            "analysis": self.analysis,
        }


@dataclass(frozen=True)
class ResultView:
    """A saved result as the page shows it; ``traits`` only for a detailed analysis."""

    id: str
    quiz_type: str
    personality_type: str
    score: int
    paragraphs: tuple[str, ...]
    traits: tuple[TraitReading, ...] = ()


# ---------------------------------------------------------------------------
# Answers
# ---------------------------------------------------------------------------
def _invalid() -> ValidationFailed:
    return ValidationFailed(messages.PERSONALITY_INVALID_ANSWERS, code="invalid_answers")


def _question_index(key: Any) -> int:
    """A question's index from an answers key (an int, or its digits as JSON keys are)."""
    if isinstance(key, bool):
        raise _invalid()
    if isinstance(key, int):
        index = key
    elif isinstance(key, str) and key.isdigit():
        index = int(key)
    else:
        raise _invalid()
    if not 0 <= index < QUESTION_COUNT:
        raise _invalid()
    return index


def check_answers(answers: Any) -> dict[str, str]:
    """The answers as stored (``{"0": "a", ..., "19": "c"}``), or ValidationFailed.

    Keys must name the 20 questions once each and values must be one of that question's
    choices ('Some answers are not valid...'); a question without an answer gets the
    documents' 'Please select an answer'.
    """
    if not isinstance(answers, Mapping):
        raise _invalid()
    chosen: dict[int, str] = {}
    for key, value in answers.items():
        index = _question_index(key)
        if index in chosen or not isinstance(value, str):
            raise _invalid()
        if QUESTIONS[index].choice(value) is None:
            raise _invalid()
        chosen[index] = value
    if len(chosen) != QUESTION_COUNT:
        raise ValidationFailed(messages.PLEASE_SELECT_ANSWER, code="missing_answer")
    return {str(index): chosen[index] for index in range(QUESTION_COUNT)}


# ---------------------------------------------------------------------------
# The analysis (personality-analysis)
# ---------------------------------------------------------------------------
def trait_scores(answers: Mapping[str, str]) -> dict[str, int]:
    """Each axis's points as a share of the most it could collect, 0-100."""
    points = dict.fromkeys(AXES, 0)
    for key, value in answers.items():
        choice = QUESTIONS[int(key)].choice(value)
        for axis, weight in choice.weights.items():
            points[axis] += weight
    most = max_points()
    return {axis: round(100 * points[axis] / most[axis]) for axis in AXES}


def _reading(axis: str, score: int) -> TraitReading:
    high, medium, low = profiles.TRAIT_READINGS[axis]
    if score >= profiles.HIGH_FROM:
        text = high
    elif score >= profiles.MEDIUM_FROM:
        text = medium
    else:
        text = low
    return TraitReading(axis, profiles.TRAIT_LABELS[axis], score, text)


def _ranked(scores: dict[str, int]) -> list[str]:
    """Axes strongest first; ties keep the fixed axis order, so results never wobble."""
    return sorted(AXES, key=lambda axis: (-scores[axis], AXES.index(axis)))


def _type_of(scores: dict[str, int], ranked: list[str]) -> profiles.PersonalityType:
    if scores[ranked[0]] - scores[ranked[-1]] <= BALANCED_SPREAD:
        return profiles.BALANCED_TYPE
    return profiles.PAIR_TYPES[frozenset(ranked[:2])]


def _summary(kind: profiles.PersonalityType, strongest: TraitReading) -> str:
    """The basic analysis: the type, and what the strongest trait says."""
    return (
        f"{kind.summary} Your strongest trait is {strongest.label} ({strongest.score}/100): "
        f"{strongest.text}"
    )


def _detailed_paragraphs(
    kind: profiles.PersonalityType, readings: dict[str, TraitReading], ranked: list[str]
) -> list[str]:
    """The detailed analysis: the type with its strongest and quietest traits, then
    every trait in turn, then a tip for the type."""
    strongest, quietest = readings[ranked[0]], readings[ranked[-1]]
    overview = (
        f"{kind.summary} Your strongest trait is {strongest.label} ({strongest.score}/100) "
        f"and your quietest is {quietest.label} ({quietest.score}/100)."
    )
    traits = [f"{r.label} ({r.score}/100): {r.text}" for r in readings.values()]
    return [overview, *traits, f"A tip for {kind.name}: {kind.tip}"]


def personality_analysis(answers: Any, quiz_type: str = BASIC) -> Analysis:
    """The analysis of a complete set of answers; ``quiz_type`` "detailed" adds the
    trait-by-trait report. Raises ValidationFailed for invalid answers or quiz type."""
    if quiz_type not in QUIZ_TYPES:
        raise _invalid()
    checked = check_answers(answers)
    scores = trait_scores(checked)
    ranked = _ranked(scores)
    kind = _type_of(scores, ranked)
    readings = {axis: _reading(axis, scores[axis]) for axis in AXES}
    if quiz_type == DETAILED:
        paragraphs = _detailed_paragraphs(kind, readings, ranked)
    else:
        paragraphs = [_summary(kind, readings[ranked[0]])]
    return Analysis(
        score=round((scores[ranked[0]] + scores[ranked[1]]) / 2),
        personality_type=kind.name,
        analysis=PARAGRAPH_BREAK.join(paragraphs),
        traits=tuple(readings.values()),
    )


# ---------------------------------------------------------------------------
# Saved results
# ---------------------------------------------------------------------------
def _view(row: PersonalityResult) -> ResultView:
    traits: tuple[TraitReading, ...] = ()
    if row.quiz_type == DETAILED:
        traits = personality_analysis(row.answers, DETAILED).traits
    return ResultView(
        id=str(row.id),
        quiz_type=row.quiz_type,
        personality_type=row.personality_type,
        score=row.score,
        paragraphs=tuple(row.analysis.split(PARAGRAPH_BREAK)),
        traits=traits,
    )


def _new_result(user_id: uuid.UUID, answers: dict[str, str], quiz_type: str) -> PersonalityResult:
    analysis = personality_analysis(answers, quiz_type)
    return PersonalityResult(
        user_id=user_id,
        quiz_type=quiz_type,
        answers=answers,
        score=analysis.score,
        personality_type=analysis.personality_type,
        analysis=analysis.analysis,
        paid=False,
        answers_key=answers_key(answers) if quiz_type == DETAILED else None,
    )


def finish_test(db: Session, user_id: uuid.UUID, answers: Any) -> ResultView:
    """Finish: check the 20 answers, record the gate's use and save the basic result.

    Everything happens in the caller's transaction: a member without access gets the
    gate's PermissionDenied and nothing is recorded or saved.
    """
    checked = check_answers(answers)
    gates.record_feature_usage(db, user_id, gates.PERSONALITY_TEST)
    row = _new_result(user_id, checked, BASIC)
    db.add(row)
    db.flush()
    return _view(row)


def _own_result(db: Session, user_id: uuid.UUID, result_id: uuid.UUID | str) -> PersonalityResult:
    """One of the member's results; NotFound for anyone else's, or a malformed id."""
    try:
        key = result_id if isinstance(result_id, uuid.UUID) else uuid.UUID(str(result_id))
    except ValueError as error:
        raise NotFound(messages.PERSONALITY_RESULT_NOT_FOUND) from error
    row = db.get(PersonalityResult, key)
    if row is None or row.user_id != user_id:
        raise NotFound(messages.PERSONALITY_RESULT_NOT_FOUND)
    return row


def read_result(db: Session, user_id: uuid.UUID, result_id: uuid.UUID | str) -> ResultView:
    """One of the member's basic results or paid detailed analyses (never an unpaid one)."""
    row = _own_result(db, user_id, result_id)
    if row.quiz_type == DETAILED and not row.paid:
        raise NotFound(messages.PERSONALITY_RESULT_NOT_FOUND)
    return _view(row)


def detailed_report(
    db: Session, user_id: uuid.UUID, result_id: uuid.UUID | str
) -> ResultView | None:
    """The member's detailed analysis once paid; None while its payment is not in yet."""
    row = _own_result(db, user_id, result_id)
    if row.quiz_type != DETAILED:
        raise NotFound(messages.PERSONALITY_RESULT_NOT_FOUND)
    return _view(row) if row.paid else None


def _paid_detailed_with(
    db: Session, user_id: uuid.UUID, answers: dict[str, str]
) -> PersonalityResult | None:
    """A detailed analysis of these very answers the member has already paid for (rows
    from before analyses were keyed by their answers included)."""
    rows = db.exec(
        select(PersonalityResult).where(
            PersonalityResult.user_id == user_id,
            PersonalityResult.quiz_type == DETAILED,
            PersonalityResult.paid,
        )
    ).all()
    return next((row for row in rows if row.answers == answers), None)


def _detailed_of(db: Session, user_id: uuid.UUID, key: str) -> PersonalityResult | None:
    return db.exec(
        select(PersonalityResult).where(
            PersonalityResult.user_id == user_id, PersonalityResult.answers_key == key
        )
    ).first()


def _detailed_to_buy(db: Session, user_id: uuid.UUID, answers: dict[str, str]) -> PersonalityResult:
    """The member's one unpaid detailed analysis of these answers, made on first use.

    What is bought is "the detailed analysis of these answers for this member", so every
    purchase of it (two tabs, a REST call) names this one row, and so one open checkout
    and the duplicate-payment check. Two purchases at the same moment: the second insert
    fails on the unique key and takes the first one's row.
    """
    key = answers_key(answers)
    existing = _detailed_of(db, user_id, key)
    if existing is not None:
        return existing
    detailed = _new_result(user_id, answers, DETAILED)
    try:
        with db.begin_nested():
            db.add(detailed)
            db.flush()
        return detailed
    except IntegrityError:
        if detailed in db:
            db.expunge(detailed)
        winner = _detailed_of(db, user_id, key)
        if winner is None:
            raise
        return winner


def paid_detailed_analysis(db: Session, user_id: uuid.UUID, answers: Any) -> ResultView | None:
    """The detailed analysis of these answers, if the member has paid for it; else None.

    For callers that name the answers rather than a saved result (the
    personality-analysis server function): only a paid detailed row is ever read.
    """
    owned = _paid_detailed_with(db, user_id, check_answers(answers))
    return _view(owned) if owned is not None else None


def _latest_basic(db: Session, user_id: uuid.UUID) -> PersonalityResult | None:
    return db.exec(
        select(PersonalityResult)
        .where(PersonalityResult.user_id == user_id, PersonalityResult.quiz_type == BASIC)
        .order_by(col(PersonalityResult.created_at).desc(), col(PersonalityResult.id).desc())
        .limit(1)
    ).first()


def latest_detailed_offer(db: Session, user_id: uuid.UUID) -> ResultView | None:
    """The member's latest basic result while its detailed analysis is still for sale
    (the dashboard's offer); None without a basic result, or once the detailed analysis
    of those answers is paid for."""
    latest = _latest_basic(db, user_id)
    if latest is None:
        return None
    try:
        answers = check_answers(latest.answers)
    except ValidationFailed:
        return None  # answers no longer valid: nothing to analyse in detail
    if _paid_detailed_with(db, user_id, answers) is not None:
        return None
    return _view(latest)


def report_path(result_id: uuid.UUID | str) -> str:
    """Where a saved result is read."""
    return f"{routes.PERSONALITY_TEST}?result={result_id}"


def start_detailed_purchase(
    db: Session,
    user: checkout.Payer,
    basic_result_id: uuid.UUID | str,
    promo_code: str | None = None,
) -> str:
    """Buy the detailed analysis of one of the member's basic results; returns the URL
    to send them to.

    The detailed result (unpaid, computed here) is the member's one row for these
    answers, and its checkout the one open checkout for it, both in the caller's
    transaction; the price is the setting's. If the member already paid for the detailed
    analysis of the same answers, nothing is charged and the URL is that report's.
    """
    basic = _own_result(db, user.id, basic_result_id)
    if basic.quiz_type != BASIC:
        raise NotFound(messages.PERSONALITY_RESULT_NOT_FOUND)
    answers = check_answers(basic.answers)
    owned = _paid_detailed_with(db, user.id, answers)
    if owned is not None:
        return report_path(owned.id)
    checkout.checked_promo_code(db, user.id, promo_code)  # a refused code: nothing made
    detailed = _detailed_to_buy(db, user.id, answers)
    return checkout.start_checkout(
        db,
        user,
        KIND_PERSONALITY_ANALYSIS,
        reference_id=str(detailed.id),
        description=messages.PERSONALITY_DETAILED_TITLE,
        success_path=f"{routes.PERSONALITY_TEST}?payment=success&result={detailed.id}",
        cancel_path=routes.PERSONALITY_TEST,
        promo_code=promo_code,
    )


def buy_latest_detailed(db: Session, user: checkout.Payer, promo_code: str | None = None) -> str:
    """``start_detailed_purchase`` for the member's latest basic result (the dashboard's
    offer): the checkout URL, or the report's if it is paid for already."""
    latest = _latest_basic(db, user.id)
    if latest is None:
        raise NotFound(messages.PERSONALITY_RESULT_NOT_FOUND)
    return start_detailed_purchase(db, user, latest.id, promo_code)


def detailed_price() -> str:
    """The detailed analysis's price as shown, from the settings (what checkout charges)."""
    return checkout.format_amount(get_settings().detailed_personality_cents)
