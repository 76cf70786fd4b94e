"""personality-analysis: the same answers always give the same result, every type can be
reached, and answers that are not a complete set of real choices are refused."""

from __future__ import annotations

import pytest

from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed
from prettyscore.personality import profiles, quiz, service


def answers(pattern: str) -> dict[str, str]:
    """``"abca..."``: the choice picked for each of the 20 questions, in order."""
    assert len(pattern) == quiz.QUESTION_COUNT
    return {str(index): value for index, value in enumerate(pattern)}


# (pattern, personality type, score): the shapes a member might answer in.
SHAPES = {
    "all first": ("a" * 20, "The Iconic Trendsetter", 51),
    "all second": ("b" * 20, "The Free-Spirited Explorer", 45),
    "all third": ("c" * 20, "The Glamorous Connector", 40),
    "alternating": ("ab" * 10, "The Free-Spirited Explorer", 48),
    "mixed": ("abcbacbcaabccbaabcab", "The Magnetic Star", 48),
}

# One answer pattern per type, with its score and trait scores.
EVERY_TYPE = {
    "The Magnetic Star": ("aaccbccacaccbacabcaa", 64, (67, 60, 3, 6)),
    "The Bold Trailblazer": ("baaaaaacacabbcabbbca", 62, (57, 6, 68, 16)),
    "The Iconic Trendsetter": ("ccaaabaaaababaaababa", 70, (73, 11, 9, 68)),
    "The Free-Spirited Explorer": ("bbcbbabbcbababbbcbcb", 61, (0, 60, 62, 0)),
    "The Glamorous Connector": ("accabbcbcbbaabaccbac", 59, (13, 66, 6, 52)),
    "The Creative Wanderer": ("bbabcbbabcbaccbcaacc", 60, (10, 6, 62, 58)),
    "The Radiant All-Rounder": ("bbaabcaaacaabbaabbbb", 44, (47, 40, 35, 35)),
}


def test_the_quiz_has_20_questions_of_3_choices():
    assert len(quiz.QUESTIONS) == 20
    for question in quiz.QUESTIONS:
        assert [choice.value for choice in question.choices] == ["a", "b", "c"]
        assert len({choice.label for choice in question.choices}) == 3
        assert all(choice.weights for choice in question.choices)


@pytest.mark.parametrize("shape", SHAPES)
def test_each_answer_shape_gives_its_type_and_score(shape):
    pattern, personality_type, score = SHAPES[shape]
    result = service.personality_analysis(answers(pattern), "basic")
    assert (result.personality_type, result.score) == (personality_type, score)
    assert result.analysis.startswith(
        next(
            t.summary
            for t in (*profiles.PAIR_TYPES.values(), profiles.BALANCED_TYPE)
            if t.name == personality_type
        )
    )


def test_every_type_is_reachable():
    assert set(EVERY_TYPE) == set(profiles.PERSONALITY_TYPES)
    for personality_type, (pattern, score, traits) in EVERY_TYPE.items():
        result = service.personality_analysis(answers(pattern))
        assert (result.personality_type, result.score) == (personality_type, score)
        assert tuple(trait.score for trait in result.traits) == traits


def test_the_same_answers_give_the_same_result_however_they_are_keyed():
    pattern = SHAPES["mixed"][0]
    by_text = service.personality_analysis(answers(pattern))
    by_number = service.personality_analysis(dict(enumerate(pattern)))
    reversed_order = service.personality_analysis(dict(reversed(list(answers(pattern).items()))))
    assert by_text == by_number == reversed_order


def test_one_choice_on_one_axis_everywhere_scores_that_axis_100():
    """The best social choice in every question: Social Energy reaches 100."""
    social_only = {
        str(index): max(q.choices, key=lambda c: c.weights.get(quiz.SOCIAL, 0)).value
        for index, q in enumerate(quiz.QUESTIONS)
    }
    result = service.personality_analysis(social_only)
    social = next(trait for trait in result.traits if trait.key == quiz.SOCIAL)
    assert social.score == 100
    assert 0 <= result.score <= 100


def test_the_basic_analysis_is_one_paragraph_and_the_detailed_one_goes_trait_by_trait():
    pattern, personality_type, score = SHAPES["all first"]
    basic = service.personality_analysis(answers(pattern), "basic")
    detailed = service.personality_analysis(answers(pattern), "detailed")
    assert (detailed.personality_type, detailed.score) == (personality_type, score)
    assert "\n\n" not in basic.analysis
    assert "Your strongest trait is Confidence (67/100)" in basic.analysis
    paragraphs = detailed.analysis.split("\n\n")
    assert len(paragraphs) == 6
    assert paragraphs[0].endswith(
        "Your strongest trait is Confidence (67/100) and your quietest is Adventure (24/100)."
    )
    assert paragraphs[1:5] == [
        "Confidence (67/100): " + profiles.TRAIT_READINGS[quiz.CONFIDENCE][0],
        "Social Energy (29/100): " + profiles.TRAIT_READINGS[quiz.SOCIAL][2],
        "Adventure (24/100): " + profiles.TRAIT_READINGS[quiz.ADVENTURE][2],
        "Style Flair (35/100): " + profiles.TRAIT_READINGS[quiz.STYLE][1],
    ]
    assert paragraphs[5].startswith("A tip for The Iconic Trendsetter: ")


def test_the_response_has_the_documents_fields():
    result = service.personality_analysis(answers("c" * 20))
    assert result.response() == {
        "score": 40,
        "personalityType": "The Glamorous Connector",
        "analysis": result.analysis,
    }


def _without(index: int) -> dict:
    complete = answers("a" * 20)
    del complete[str(index)]
    return complete


@pytest.mark.parametrize(
    ("given", "text"),
    [
        pytest.param({}, messages.PLEASE_SELECT_ANSWER, id="none"),
        pytest.param(_without(0), messages.PLEASE_SELECT_ANSWER, id="first-missing"),
        pytest.param(_without(19), messages.PLEASE_SELECT_ANSWER, id="last-missing"),
        pytest.param(
            {**answers("a" * 20), "7": "d"}, messages.PERSONALITY_INVALID_ANSWERS, id="unknown"
        ),
        pytest.param(
            {**answers("a" * 20), "7": ""}, messages.PERSONALITY_INVALID_ANSWERS, id="blank"
        ),
        pytest.param(
            {**answers("a" * 20), "3": 1}, messages.PERSONALITY_INVALID_ANSWERS, id="number"
        ),
        pytest.param(
            {**answers("a" * 20), "20": "a"}, messages.PERSONALITY_INVALID_ANSWERS, id="21"
        ),
        pytest.param(
            {**_without(4), "-1": "a"}, messages.PERSONALITY_INVALID_ANSWERS, id="negative"
        ),
        pytest.param(
            {**answers("a" * 20), 5: "b"}, messages.PERSONALITY_INVALID_ANSWERS, id="twice"
        ),
        pytest.param(
            {**_without(2), "two": "a"}, messages.PERSONALITY_INVALID_ANSWERS, id="not-an-index"
        ),
        pytest.param(["a"] * 20, messages.PERSONALITY_INVALID_ANSWERS, id="a-list"),
        pytest.param(None, messages.PERSONALITY_INVALID_ANSWERS, id="nothing"),
    ],
)
def test_invalid_answers_are_refused(given, text):
    with pytest.raises(ValidationFailed) as raised:
        service.personality_analysis(given)
    assert raised.value.message == text


def test_an_unknown_quiz_type_is_refused():
    with pytest.raises(ValidationFailed):
        service.personality_analysis(answers("a" * 20), "premium")
