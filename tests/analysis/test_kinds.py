"""Feet, hands and pet labels and breakdowns, exactly as document 001 gives them (§3, §9)."""

from __future__ import annotations

import pytest

from prettyscore.analysis import kinds
from prettyscore.analysis.kinds import label_for

# Document 001 §9: (minimum score, label), highest first; the last applies below all.
FEET_OR_HANDS = [(9.5, "Perfect {}"), (9.0, "Exceptional"), (8.5, "Beautiful")]
FEET_OR_HANDS += [(8.0, "Very Pretty"), (7.0, "Pretty"), (None, "Lovely")]
DOCUMENT_LABELS = {
    kinds.FEET: [(m, label.format("Feet")) for m, label in FEET_OR_HANDS],
    kinds.HANDS: [(m, label.format("Hands")) for m, label in FEET_OR_HANDS],
    kinds.PET: [
        (9.0, "Absolutely Adorable!"),
        (8.0, "Super Cute!"),
        (7.0, "Very Sweet!"),
        (6.0, "Quite Charming!"),
        (None, "Uniquely Lovable!"),
    ],
}
THRESHOLDS = [
    (kind, minimum, label, DOCUMENT_LABELS[kind][index + 1][1])
    for kind, table in DOCUMENT_LABELS.items()
    for index, (minimum, label) in enumerate(table)
    if minimum is not None
]


@pytest.mark.parametrize("kind", kinds.BODY_KINDS)
def test_each_label_table_is_the_documents_in_order(kind):
    assert [row.label for row in kinds.LABELS[kind]] == [
        label for _, label in DOCUMENT_LABELS[kind]
    ]


@pytest.mark.parametrize(
    ("kind", "minimum", "label", "label_below"),
    THRESHOLDS,
    ids=[f"{kind}-{minimum}" for kind, minimum, _, _ in THRESHOLDS],
)
def test_a_score_at_a_threshold_earns_its_label_and_a_tenth_less_the_next(
    kind, minimum, label, label_below
):
    assert label_for(kind, minimum).label == label
    assert label_for(kind, round(minimum + 0.1, 1)).label == label
    assert label_for(kind, round(minimum - 0.1, 1)).label == label_below


@pytest.mark.parametrize("kind", kinds.BODY_KINDS)
def test_the_ends_of_the_scale_take_the_top_and_bottom_labels(kind):
    assert label_for(kind, 10.0).label == DOCUMENT_LABELS[kind][0][1]
    assert label_for(kind, 1.0).label == DOCUMENT_LABELS[kind][-1][1]
    assert label_for(kind, 0.0).label == DOCUMENT_LABELS[kind][-1][1]


@pytest.mark.parametrize("kind", kinds.BODY_KINDS)
def test_every_label_has_its_own_emoji_and_colour(kind):
    rows = kinds.LABELS[kind]
    assert all(row.emoji and row.color.startswith("#") for row in rows)
    assert len({row.label for row in rows}) == len(rows)


def test_the_breakdowns_are_the_documents_keys_and_each_has_a_name_on_screen():
    assert kinds.BREAKDOWN_KEYS[kinds.FEET] == (
        "toeSymmetry",
        "archQuality",
        "skinAppearance",
        "overallAesthetics",
    )
    assert kinds.BREAKDOWN_KEYS[kinds.HANDS] == (
        "fingerProportions",
        "skinQuality",
        "nailAppearance",
        "overallAesthetics",
    )
    assert kinds.BREAKDOWN_KEYS[kinds.PET] == (
        "faceVisibility",
        "photoClarity",
        "colorCharm",
        "overallCuteness",
    )
    for keys in kinds.BREAKDOWN_KEYS.values():
        assert all(kinds.BREAKDOWN_NAMES[key] for key in keys)
