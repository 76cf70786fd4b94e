"""One rule for how a score reads: one decimal, no trailing ".0", wherever it is shown."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from prettyscore.analysis import tiers
from prettyscore.analysis.kinds import FEET
from prettyscore.analysis.service import ScoreResult
from prettyscore.photos import card
from prettyscore.photos.models import Photo
from prettyscore.photos.state import photo_card
from prettyscore.scoring import body_service


@pytest.mark.parametrize(
    ("score", "text"),
    [(8.7, "8.7"), (9.0, "9"), (9, "9"), (10.0, "10"), (9.96, "10"), (6.04, "6"), (85.0, "85")],
)
def test_a_score_reads_with_one_decimal_and_no_trailing_zero(score, text):
    assert tiers.score_text(score) == text


def test_a_feet_score_of_9_reads_the_same_on_its_results_page_and_in_my_photos():
    tier = tiers.tier_for(9.0)
    result = ScoreResult(
        result_id="r1",
        image_key="k1",
        score=9.0,
        label=tier.label,
        tier_key=tier.key,
        emoji=tier.emoji,
        color=tier.color,
        breakdown={},
        special_panel="",
        kind=FEET,
    )
    saved = Photo(
        user_id=uuid.uuid4(),
        original_image_url="/media/k1",
        score=9.0,
        rating_label=tier.label,
        breakdown={},
        photo_type=FEET,
        created_at=datetime(2026, 11, 26, tzinfo=UTC),
    )

    on_results = body_service.score_text(result)
    in_my_photos = photo_card(saved).score_text

    assert on_results == in_my_photos == result.score_text == "9"
    assert body_service.card_filename(result) == "feet-score-9.png"
    assert card.format_score(saved.score) == "9/10"
