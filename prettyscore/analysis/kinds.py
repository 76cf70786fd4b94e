"""The other things we score besides faces: feet, hands and pets (document 001 §3, §9).

Each kind has its breakdown (the sub-scores a result shows, in order, with their
names on screen) and its label table. The tables are the documents' exactly (minimum
score, label); the emoji and the colour are ours, for the badge and the score circle.
"""

from __future__ import annotations

from dataclasses import dataclass

FACE = "face"
FEET = "feet"
HANDS = "hands"
PET = "pet"
BODY_KINDS = (FEET, HANDS, PET)

# The sub-scores of each kind, in the order the results page shows them.
BREAKDOWN_KEYS: dict[str, tuple[str, ...]] = {
    FACE: ("symmetry", "skinQuality", "facialHarmony"),
    FEET: ("toeSymmetry", "archQuality", "skinAppearance", "overallAesthetics"),
    HANDS: ("fingerProportions", "skinQuality", "nailAppearance", "overallAesthetics"),
    # The documents do not show a pet breakdown; ours is what the pet analysis measures.
    PET: ("faceVisibility", "photoClarity", "colorCharm", "overallCuteness"),
}

# How each sub-score is named on screen (one name per key, whatever the kind).
BREAKDOWN_NAMES: dict[str, str] = {
    "symmetry": "Symmetry",
    "skinQuality": "Skin Quality",
    "facialHarmony": "Facial Harmony",
    "toeSymmetry": "Toe Symmetry",
    "archQuality": "Arch Quality",
    "skinAppearance": "Skin Appearance",
    "overallAesthetics": "Overall Aesthetics",
    "fingerProportions": "Finger Proportions",
    "nailAppearance": "Nail Appearance",
    "faceVisibility": "Face Visibility",
    "photoClarity": "Photo Clarity",
    "colorCharm": "Color Charm",
    "overallCuteness": "Overall Cuteness",
}


@dataclass(frozen=True)
class KindLabel:
    """One row of a label table: a score of at least ``min_score`` earns it."""

    label: str
    emoji: str
    color: str
    min_score: float


def _feet_or_hands(perfect: str) -> tuple[KindLabel, ...]:
    return (
        KindLabel(perfect, "👑", "#d4a017", 9.5),
        KindLabel("Exceptional", "🌟", "#7c3aed", 9.0),
        KindLabel("Beautiful", "✨", "#db2777", 8.5),
        KindLabel("Very Pretty", "💖", "#ec4899", 8.0),
        KindLabel("Pretty", "😊", "#f472b6", 7.0),
        KindLabel("Lovely", "🌸", "#0ea5e9", float("-inf")),
    )


# Highest first; a score takes the first label whose minimum it reaches.
LABELS: dict[str, tuple[KindLabel, ...]] = {
    FEET: _feet_or_hands("Perfect Feet"),
    HANDS: _feet_or_hands("Perfect Hands"),
    PET: (
        KindLabel("Absolutely Adorable!", "😻", "#d4a017", 9.0),
        KindLabel("Super Cute!", "🥰", "#db2777", 8.0),
        KindLabel("Very Sweet!", "🐾", "#ec4899", 7.0),
        KindLabel("Quite Charming!", "😊", "#f472b6", 6.0),
        KindLabel("Uniquely Lovable!", "💕", "#0ea5e9", float("-inf")),
    ),
}


def label_for(kind: str, score: float) -> KindLabel:
    """The label a ``kind`` score earns (feet, hands or pet)."""
    for row in LABELS[kind]:
        if score >= row.min_score:
            return row
    raise AssertionError("the last label has no minimum")
