"""The tier table of document 000 §4 and the special panels, at every boundary."""

from __future__ import annotations

import re

import pytest

from prettyscore.analysis import tiers

# (score, key, label) at and just below every threshold of the documents' table.
BOUNDARIES = [
    (1.0, "lovely", "Lovely"),
    (5.9, "lovely", "Lovely"),
    (6.0, "lovely", "Pretty"),
    (6.9, "lovely", "Pretty"),
    (7.0, "pretty", "Very Pretty"),
    (7.4, "pretty", "Very Pretty"),
    (7.5, "beautiful", "Beautiful"),
    (7.9, "beautiful", "Beautiful"),
    (8.0, "gorgeous", "Gorgeous"),
    (8.4, "gorgeous", "Gorgeous"),
    (8.5, "stunning", "Absolutely Stunning"),
    (8.9, "stunning", "Absolutely Stunning"),
    (9.0, "exceptional", "Exceptional"),
    (9.4, "exceptional", "Exceptional"),
    (9.5, "elite", "Elite Beauty"),
    (9.9, "elite", "Elite Beauty"),
    (10.0, "legendary", "WORLD'S MOST BEAUTIFUL"),
]


@pytest.mark.parametrize(("score", "key", "label"), BOUNDARIES)
def test_each_score_gets_the_documents_tier(score, key, label):
    tier = tiers.tier_for(score)
    assert (tier.key, tier.label) == (key, label)


def test_a_score_built_by_arithmetic_still_lands_in_its_tier():
    # 7.1 + 0.4 is 7.499999999999999 in floating point; one-decimal scores are rounded.
    assert tiers.tier_for(round(7.1 + 0.4, 1)).key == "beautiful"


def test_every_tier_has_an_emoji_and_a_hex_colour_for_the_ui():
    for tier in tiers.TIERS:
        assert tier.emoji.strip()
        assert re.fullmatch(r"#[0-9a-f]{6}", tier.color)


def test_the_tiers_are_ordered_from_the_top_and_end_with_no_minimum():
    minimums = [tier.min_score for tier in tiers.TIERS]
    assert minimums == sorted(minimums, reverse=True)
    assert minimums[-1] == float("-inf")


@pytest.mark.parametrize(
    ("score", "panel"),
    [
        (10.0, tiers.WORLD_RECORD),
        (9.9, tiers.ELITE_STATUS),
        (9.8, tiers.EXCEPTIONAL_SCORE),
        (9.7, tiers.EXCEPTIONAL_SCORE),
        (9.6, tiers.EXCEPTIONAL_SCORE),
        (9.5, tiers.EXCEPTIONAL_SCORE),
        (9.4, ""),
        (9.0, ""),
        (8.5, ""),
        (6.0, ""),
        (1.0, ""),
    ],
)
def test_special_panels_follow_the_score_displayed_in_hundreds(score, panel):
    assert tiers.special_panel_for(score) == panel


def test_the_hundreds_display_is_the_score_times_ten():
    assert tiers.displayed_in_hundreds(9.9) == 99
    assert tiers.displayed_in_hundreds(round(9.8 + 0.1, 1)) == 99
    assert tiers.displayed_in_hundreds(9.5) == 95
    assert tiers.displayed_in_hundreds(10.0) == 100
    assert tiers.displayed_in_hundreds(8.7) == 87


def test_panel_kinds_match_the_result_pages_names():
    assert (tiers.WORLD_RECORD, tiers.ELITE_STATUS, tiers.EXCEPTIONAL_SCORE) == (
        "world_record",
        "elite_status",
        "exceptional_score",
    )
