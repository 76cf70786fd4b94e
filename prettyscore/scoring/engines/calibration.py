"""From raw face measures to the figures a user sees, calibrated as entertainment.

Each raw measure becomes a quality ``q`` between 0 and 1 through a smooth curve (a
logistic, or a bell with a flat top around the ideal), never a threshold, so that two
nearly identical photos get nearly identical scores.

- Breakdown figure (0–10, shown as bars): ``5 + 5 q``. Even a poor measure reads 5,
  because these are bars on an entertainment card, not a verdict.
- Overall score (1–10): ``6 + 4 Q²`` where ``Q`` is the weighted mean of the three
  qualities. The square keeps the top of the scale rare: ``Q`` = 0.5 gives 7.0, 0.7
  gives 8.0, 0.9 gives 9.2, 9.5 needs ``Q`` ≥ 0.935 and 10.0 needs ``Q`` ≥ 0.994.

The constants were set on real photos: scikit-image's astronaut (a frontal studio
portrait: 8.7) and its brightness, contrast, colour, scale, rotation, noise, JPEG and
crop variants (8.5–8.9), crops of faces at varied poses and expressions from a group
photo (6.7–8.2, development only), and the 100 small LFW faces scikit-image ships (5th
to 95th percentile 7.0–9.1, 3 of 92 at 9.5 or more, none at 10; see the tests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from prettyscore.scoring.engines import face_measures as fm
from prettyscore.scoring.engines.base import one_decimal

# Overall score = SCORE_FLOOR + SCORE_RANGE * Q ** SCORE_EXPONENT.
SCORE_FLOOR = 6.0
SCORE_RANGE = 4.0
SCORE_EXPONENT = 2.0
WEIGHTS = {"symmetry": 0.4, "skinQuality": 0.3, "facialHarmony": 0.3}

# Symmetry: mirror correlation of the features. Frontal portraits measure 0.6–0.75,
# turned or expressive faces 0.3–0.6.
SYMMETRY_MIDPOINT = 0.45
SYMMETRY_WIDTH = 0.1

# Skin: roughness = blotch + FINE_SHARE * fine (both relative to the face's contrast).
# Smooth skin measures 0.03–0.07, ordinary skin on a sharp photo 0.09–0.13, grainy or
# blemished skin above 0.15.
FINE_SHARE = 0.5
ROUGHNESS_MIDPOINT = 0.12
ROUGHNESS_WIDTH = 0.04

# Harmony: (ideal, tolerance with full marks, fall-off beyond it) for each proportion,
# and its weight. ``spacing`` is eye distance / face width (the "ideal" 0.46 of the
# proportion literature, measured on a detection box slightly narrower than the face);
# ``tilt`` the eye line's angle; ``centring`` the eyes' offset from the box's centre
# line; ``eye_height`` the eye line's height in the box.
HARMONY_TARGETS = {
    "spacing": (0.45, 0.03, 0.05, 0.35),
    "tilt": (0.0, 2.0, 6.0, 0.25),
    "centring": (0.0, 0.015, 0.04, 0.2),
    "eye_height": (0.38, 0.02, 0.04, 0.2),
}
# Without two eyes the proportions cannot be measured: a middling quality.
HARMONY_WITHOUT_EYES = 0.55


@dataclass(frozen=True)
class FaceScore:
    """The shown figures and the raw measures behind them."""

    score: float
    breakdown: dict[str, float]
    measures: dict[str, float]


def score_face(crop: fm.FaceCrop, eyes: fm.Eyes | None) -> FaceScore:
    """Measure the face and turn the measures into the breakdown and the overall score."""
    measures = raw_measures(crop, eyes)
    qualities = {
        "symmetry": symmetry_quality(measures),
        "skinQuality": skin_quality(measures),
        "facialHarmony": harmony_quality(measures),
    }
    breakdown = {key: one_decimal(5.0 + 5.0 * q, 0.0, 10.0) for key, q in qualities.items()}
    score = overall_score(sum(WEIGHTS[key] * q for key, q in qualities.items()))
    measures.update({f"q_{key}": q for key, q in qualities.items()})
    return FaceScore(score, breakdown, measures)


def overall_score(quality: float) -> float:
    """The 1–10 score (one decimal) for a combined quality between 0 and 1."""
    return one_decimal(SCORE_FLOOR + SCORE_RANGE * quality**SCORE_EXPONENT, 1.0, 10.0)


def raw_measures(crop: fm.FaceCrop, eyes: fm.Eyes | None) -> dict[str, float]:
    """Every raw figure, by name (kept in ``FaceAnalysis.measures`` for calibration)."""
    face = fm.level_face(crop, eyes)
    measures = {
        "symmetry": fm.symmetry_correlation(face),
        "sharpness": fm.sharpness(crop),
        "eyes_found": 1.0 if eyes is not None else 0.0,
    }
    measures.update({f"skin_{name}": value for name, value in fm.skin_texture(face).items()})
    measures.update(fm.proportions(eyes))
    return measures


def logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def flat_topped_bell(value: float, ideal: float, tolerance: float, fall_off: float) -> float:
    """1 within ``tolerance`` of ``ideal``, then a Gaussian fall-off of width ``fall_off``."""
    excess = max(0.0, abs(value - ideal) - tolerance)
    return math.exp(-0.5 * (excess / fall_off) ** 2)


def symmetry_quality(measures: dict[str, float]) -> float:
    return logistic((measures["symmetry"] - SYMMETRY_MIDPOINT) / SYMMETRY_WIDTH)


def skin_quality(measures: dict[str, float]) -> float:
    roughness = measures["skin_blotch"] + FINE_SHARE * measures["skin_fine"]
    measures["skin_roughness"] = roughness
    return logistic((ROUGHNESS_MIDPOINT - roughness) / ROUGHNESS_WIDTH)


def harmony_quality(measures: dict[str, float]) -> float:
    if not measures["eyes_found"]:
        return HARMONY_WITHOUT_EYES
    total = 0.0
    for name, (ideal, tolerance, fall_off, weight) in HARMONY_TARGETS.items():
        total += weight * flat_topped_bell(measures[name], ideal, tolerance, fall_off)
    return total
