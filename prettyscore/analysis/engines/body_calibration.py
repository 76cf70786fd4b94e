"""From a feet, hands or pet photo's measures to the figures a user sees.

Each raw measure (``body_measures``, ``body_pet``) becomes a quality ``q`` between 0 and
1 through a smooth curve (a logistic, or a band with soft edges around the ideal),
never a threshold, so that two nearly identical photos get nearly identical scores.
Each sub-score is a weighted blend of qualities:

- Breakdown figure (0–10, shown as bars): ``2 + 8 q``.
- Overall score (1–10): ``SCORE_FLOOR + SCORE_RANGE * Q ** SCORE_EXPONENT``, where
  ``Q`` is the kind's weighted mean of its four sub-score qualities, scaled down for a
  photo too blurred or dark to see well (``VISIBILITY_FLOOR``). ``Q`` = 0.5 gives
  5.5, 0.7 gives 7.1, 0.85 gives 8.5; 9.5 needs ``Q`` ≥ 0.95.

The constants were set on real photos, on drawn feet and hands, and on blurred, darkened,
washed-out and tinted copies of them, so that ordinary photos land between 6 and 9 and a
blurred or dark copy below the original (the photos and what they scored:
tests/analysis/NOTES.md, 'Body calibration photos').

A hands photo is judged on its hand as MediaPipe Hands' landmarks place it
(``hand_landmarks``): the finger proportions and the hand's shape come from the
landmarks, and the skin, the nails and the composition are measured where they put
the hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2

from prettyscore.analysis import kinds
from prettyscore.analysis.engines import body_measures as bm
from prettyscore.analysis.engines import hand_landmarks as hl
from prettyscore.analysis.engines.base import one_decimal
from prettyscore.analysis.engines.body_pet import find_cat_face

SCORE_FLOOR = 3.0
SCORE_RANGE = 7.0
SCORE_EXPONENT = 1.5
# A photo too blurred or too dark to see its subject well cannot score high, however its
# sub-scores come out: the combined quality is scaled by VISIBILITY_FLOOR + (1 -
# VISIBILITY_FLOOR) * visibility, the geometric mean of sharpness and exposure.
VISIBILITY_FLOOR = 0.7

# How much each sub-score weighs in the overall score, per kind.
WEIGHTS = {
    kinds.FEET: {
        "toeSymmetry": 0.2,
        "archQuality": 0.2,
        "skinAppearance": 0.25,
        "overallAesthetics": 0.35,
    },
    kinds.HANDS: {
        "fingerProportions": 0.2,
        "skinQuality": 0.25,
        "nailAppearance": 0.2,
        "overallAesthetics": 0.35,
    },
    kinds.PET: {
        "faceVisibility": 0.25,
        "photoClarity": 0.25,
        "colorCharm": 0.2,
        "overallCuteness": 0.3,
    },
}


def logistic(x: float) -> float:
    """The smooth 0–1 step every body measure's quality follows (no threshold)."""
    return 1.0 / (1.0 + math.exp(-x))


@dataclass(frozen=True)
class BodyScore:
    """The shown figures and the raw measures behind them."""

    score: float
    breakdown: dict[str, float]
    measures: dict[str, float]


def score_photo(kind: str, copies: bm.Copies, hand: hl.Hand | None = None) -> BodyScore:
    """Measure the photo for ``kind`` and turn the measures into the shown figures.

    ``hand`` is a hands photo's hand (``hand_landmarks.locate_hand``) on the view's
    pixels: required for ``kinds.HANDS``, unused otherwise.
    """
    measures = photo_measures(copies)
    if kind == kinds.PET:
        measures.update(pet_measures(copies))
        qualities = pet_qualities(measures)
    elif kind == kinds.HANDS:
        if hand is None:
            raise ValueError("a hands photo is scored on its hand's landmarks")
        measures.update(hand_photo_measures(copies, hand))
        qualities = hands_qualities(measures)
    else:
        measures.update(limb_measures(copies))
        qualities = feet_qualities(measures)
    breakdown = {key: one_decimal(2.0 + 8.0 * qualities[key], 0.0, 10.0) for key in qualities}
    visibility = math.sqrt(sharp_quality(measures) * exposure_quality(measures))
    combined = sum(WEIGHTS[kind][key] * q for key, q in qualities.items())
    combined *= VISIBILITY_FLOOR + (1.0 - VISIBILITY_FLOOR) * visibility
    measures.update({f"q_{key}": q for key, q in qualities.items()})
    measures["q_visibility"] = visibility
    return BodyScore(overall_score(combined), breakdown, measures)


def overall_score(quality: float) -> float:
    """The 1–10 score (one decimal) for a combined quality between 0 and 1."""
    value = SCORE_FLOOR + SCORE_RANGE * max(quality, 0.0) ** SCORE_EXPONENT
    return one_decimal(value, 1.0, 10.0)


# ---------------------------------------------------------------------------
# Raw measures
# ---------------------------------------------------------------------------
def photo_measures(copies: bm.Copies) -> dict[str, float]:
    """What every kind looks at: light, colour and sharpness of the whole photo."""
    measures = bm.exposure(copies)
    measures.update(bm.colour(copies))
    measures["contrast"] = bm.contrast(copies)
    measures["sharpness"] = bm.sharpness(copies.detail)
    return measures


def limb_measures(copies: bm.Copies) -> dict[str, float]:
    """Feet: the subject (found by its skin), its shape, skin and tips."""
    mask, by_skin = bm.subject_mask(copies, prefer_skin=True)
    shape = bm.shape_of(mask)
    measures = {
        "skin_found": 1.0 if by_skin else 0.0,
        **{f"shape_{name}": float(value) for name, value in vars(shape).items()},
        **{f"skin_{name}": value for name, value in bm.skin_texture(copies, mask).items()},
        **{f"tip_{name}": value for name, value in bm.tip_detail(copies, mask).items()},
    }
    return measures


# A hand counts as bare skin when this share of its outline has skin's colour (not a
# glove, not a black-and-white photo).
HAND_SKIN_SHARE = 0.5
# Skin texture is measured on a narrower hand (fingers this share of a finger wide),
# clear of the outline the landmarks only approximate.
HAND_INNER_WIDTH = 0.6


def hand_photo_measures(copies: bm.Copies, hand: hl.Hand) -> dict[str, float]:
    """Hands: the hand's landmarks (proportions, shape), and its skin, nails and place
    in the photo measured where the landmarks put it."""
    shape = copies.view.shape[:2]
    outline = hl.hand_mask(hand, shape)
    inner = hl.hand_mask(hand, shape, width_share=HAND_INNER_WIDTH)
    on_hand = max(cv2.countNonZero(outline), 1)
    skin_share = cv2.countNonZero(bm.skin_mask(copies.view) & outline) / on_hand
    silhouette = bm.shape_of(outline)
    texture = bm.skin_texture(copies, inner)
    nails = bm.tip_detail(copies, outline, hl.nail_spots(hand), hl.nail_radius(hand))
    return {
        "skin_found": 1.0 if skin_share >= HAND_SKIN_SHARE else 0.0,
        "skin_share": skin_share,
        **{f"shape_{name}": float(value) for name, value in vars(silhouette).items()},
        **{f"skin_{name}": value for name, value in texture.items()},
        **{f"tip_{name}": value for name, value in nails.items()},
        **hl.hand_measures(hand),
    }


def pet_measures(copies: bm.Copies) -> dict[str, float]:
    """Pets: the cat face if one is found, and what stands out of the photo."""
    mask, _ = bm.subject_mask(copies, prefer_skin=False)
    shape = bm.shape_of(mask)
    measures = {
        "shape_area": shape.area,
        "shape_offset": shape.offset,
        "face_found": 0.0,
    }
    face = find_cat_face(copies.gray)
    if face is not None:
        offset = math.hypot(face.centre[0] - 0.5, face.centre[1] - 0.5) / math.hypot(0.5, 0.5)
        measures.update(
            {
                "face_found": 1.0,
                "face_size": face.size,
                "face_offset": offset,
                "face_tilt": abs(face.tilt),
                "face_hits": float(face.hits),
            }
        )
    return measures


# ---------------------------------------------------------------------------
# Curves
# ---------------------------------------------------------------------------
def band(value: float, low: float, high: float, soft_low: float, soft_high: float) -> float:
    """1 between ``low`` and ``high``, then a Gaussian fall-off of width ``soft_low``
    below and ``soft_high`` above."""
    if value < low:
        return math.exp(-0.5 * ((low - value) / soft_low) ** 2)
    if value > high:
        return math.exp(-0.5 * ((value - high) / soft_high) ** 2)
    return 1.0


def rising(value: float, midpoint: float, width: float) -> float:
    """A logistic step up: 0.5 at ``midpoint``, 0.73 one ``width`` above it."""
    return logistic((value - midpoint) / width)


# Sharpness (``body_measures.sharpness``): sharp photos measure 0.24–0.4, drawn shapes
# about 0.22, a blur of 2 pixels about 0.17, of 4 pixels about 0.13.
SHARPNESS_MIDPOINT = 0.19
SHARPNESS_WIDTH = 0.025
# Exposure: mean brightness (0–1) neither dim nor glaring, and highlights (the 99th
# percentile) bright enough: a photo taken in too little light has none. Blown
# highlights cost beyond a small share; black cost only when it fills much of the
# frame (a night sky or a black backdrop is a choice, not a fault).
BRIGHTNESS_BAND = (0.22, 0.8, 0.1, 0.08)
HIGHLIGHTS_MIDPOINT = 0.38
HIGHLIGHTS_WIDTH = 0.05
BLOWN_ALLOWED, BLOWN_WIDTH = 0.05, 0.08
CRUSHED_ALLOWED, CRUSHED_WIDTH = 0.3, 0.15
CONTRAST_MIDPOINT = 0.22
CONTRAST_WIDTH = 0.05
COLOURFULNESS_BAND = (18.0, 85.0, 10.0, 30.0)
CAST_BAND = (0.0, 25.0, 1.0, 15.0)
WARMTH_MIDPOINT = -6.0
WARMTH_WIDTH = 6.0


def sharp_quality(m: dict[str, float]) -> float:
    return rising(m["sharpness"], SHARPNESS_MIDPOINT, SHARPNESS_WIDTH)


def exposure_quality(m: dict[str, float]) -> float:
    """Well lit: bright highlights, a middling mean, little blown or crushed.

    Nothing here depends on the subject's own colour (a black cat, deep skin tone):
    only on how the photo uses the range of brightness. A flat, washed-out photo is the
    contrast's business.
    """
    blown = max(0.0, m["highlights_clipped"] - BLOWN_ALLOWED) / BLOWN_WIDTH
    crushed = max(0.0, m["shadows_clipped"] - CRUSHED_ALLOWED) / CRUSHED_WIDTH
    return (
        rising(m["highlights"], HIGHLIGHTS_MIDPOINT, HIGHLIGHTS_WIDTH)
        * band(m["brightness"], *BRIGHTNESS_BAND)
        * math.exp(-blown - crushed)
    )


def contrast_quality(m: dict[str, float]) -> float:
    return rising(m["contrast"], CONTRAST_MIDPOINT, CONTRAST_WIDTH)


def colour_quality(m: dict[str, float]) -> float:
    """Lively but natural colour: colourful enough, no strong tint over everything."""
    return 0.5 * band(m["colourfulness"], *COLOURFULNESS_BAND) + 0.5 * band(m["cast"], *CAST_BAND)


# Composition: the subject's share of the frame and its distance from the centre.
SUBJECT_AREA_BAND = (0.1, 0.6, 0.06, 0.25)
OFFSET_MIDPOINT = 0.4
OFFSET_WIDTH = 0.1


def composition_quality(area: float, offset: float) -> float:
    size = band(area, *SUBJECT_AREA_BAND)
    return 0.6 * size + 0.4 * logistic((OFFSET_MIDPOINT - offset) / OFFSET_WIDTH)


def photo_quality(m: dict[str, float]) -> float:
    """How good a photo it is, whatever it shows (sharp, well lit, good colour)."""
    return (
        0.4 * sharp_quality(m)
        + 0.25 * exposure_quality(m)
        + 0.15 * contrast_quality(m)
        + 0.2 * colour_quality(m)
    )


# ---------------------------------------------------------------------------
# Feet and hands
# ---------------------------------------------------------------------------
# Symmetry (IoU with the mirror image): a pair of feet 0.9+, an open hand about 0.7,
# a shapeless region under 0.45.
SYMMETRY_MIDPOINT = 0.55
SYMMETRY_WIDTH = 0.1
# Skin: roughness = blotch + FINE_SHARE * fine, relative to the skin's own spread.
FINE_SHARE = 0.5
ROUGHNESS_MIDPOINT = 0.2
ROUGHNESS_WIDTH = 0.05
# Chroma spread over the skin (8-bit Cr/Cb units): even skin 3–8, patchy 15+.
TONE_MIDPOINT = 14.0
TONE_WIDTH = 4.0
# Without skin of its colour the subject may be anything: its skin figures count less.
NO_SKIN_FACTOR = 0.75
# Outline: solidity between these (a foot or a hand with its toes or fingers) and a
# clean, not ragged, edge.
SOLIDITY_BAND = (0.7, 0.95, 0.12, 0.1)
SMOOTHNESS_MIDPOINT = 0.5
SMOOTHNESS_WIDTH = 0.08
# Finger proportions, on the landmarks (``hand_landmarks.hand_measures``; 3-D lengths,
# from the knuckle joints, which sit well inside the palm's skin). On real open hands:
# the middle finger 0.88–1.18 of the palm's length, the index, ring and little fingers
# about 0.9, 0.93 and 0.74 of the middle one, the index 0.9–1.04 of the ring finger,
# the palm 1.2–1.55 times as long as it is wide; straight fingers measure 0.99 and
# more, a fist's 0.3–0.6.
FINGER_TO_PALM_BAND = (0.9, 1.2, 0.12, 0.2)
FINGER_GRADATION = {"index": 0.9, "ring": 0.93, "little": 0.74}
GRADATION_WIDTH = 0.06
INDEX_TO_RING_BAND = (0.92, 1.02, 0.06, 0.06)
PALM_SHAPE_BAND = (1.25, 1.6, 0.2, 0.3)
STRAIGHTNESS_MIDPOINT = 0.9
STRAIGHTNESS_WIDTH = 0.03
STRAIGHTNESS_SHARE = 0.75
# Nails: crisp tips that catch the light.
TIP_CRISP_MIDPOINT = 0.17
TIP_CRISP_WIDTH = 0.03
TIP_GLOSS_MIDPOINT = 0.1
TIP_GLOSS_WIDTH = 0.25


def limb_skin_quality(m: dict[str, float]) -> float:
    """Smooth, even, well-lit skin in a sharp photo (a blur must not pass as smooth)."""
    roughness = m["skin_blotch"] + FINE_SHARE * m["skin_fine"]
    m["skin_roughness"] = roughness
    quality = (
        0.35 * logistic((ROUGHNESS_MIDPOINT - roughness) / ROUGHNESS_WIDTH)
        + 0.2 * logistic((TONE_MIDPOINT - m["skin_tone"]) / TONE_WIDTH)
        + 0.2 * exposure_quality(m)
        + 0.25 * sharp_quality(m)
    )
    return quality if m["skin_found"] else NO_SKIN_FACTOR * quality


def limb_outline_quality(m: dict[str, float]) -> float:
    return 0.5 * band(m["shape_solidity"], *SOLIDITY_BAND) + 0.5 * rising(
        m["shape_smoothness"], SMOOTHNESS_MIDPOINT, SMOOTHNESS_WIDTH
    )


def symmetry_quality(m: dict[str, float]) -> float:
    return rising(m["shape_symmetry"], SYMMETRY_MIDPOINT, SYMMETRY_WIDTH)


def aesthetics_quality(m: dict[str, float]) -> float:
    """The photo as a whole: its quality and how the subject sits in it."""
    composition = composition_quality(m["shape_area"], m["shape_offset"])
    return 0.65 * photo_quality(m) + 0.35 * composition


def feet_qualities(m: dict[str, float]) -> dict[str, float]:
    toes = min(m["shape_lobes"], 4.0) / 4.0
    return {
        "toeSymmetry": 0.8 * symmetry_quality(m) + 0.2 * toes,
        "archQuality": limb_outline_quality(m),
        "skinAppearance": limb_skin_quality(m),
        "overallAesthetics": aesthetics_quality(m),
    }


def finger_proportions_quality(m: dict[str, float]) -> float:
    """Long, evenly graded, straight fingers on a well-proportioned palm.

    The proportions count as far as the fingers are straight enough to show them: a
    fist's landmarks fold its fingers to half their length or less.
    """
    gradation = math.sqrt(
        sum(
            (m[f"hand_{finger}_to_middle"] - typical) ** 2
            for finger, typical in FINGER_GRADATION.items()
        )
        / len(FINGER_GRADATION)
    )
    proportions = (
        0.35 * band(m["hand_finger_to_palm"], *FINGER_TO_PALM_BAND)
        + 0.25 * math.exp(-0.5 * (gradation / GRADATION_WIDTH) ** 2)
        + 0.2 * band(m["hand_index_to_ring"], *INDEX_TO_RING_BAND)
        + 0.2 * band(m["hand_palm_shape"], *PALM_SHAPE_BAND)
    )
    straight = rising(m["hand_straightness"], STRAIGHTNESS_MIDPOINT, STRAIGHTNESS_WIDTH)
    m["hand_gradation_error"] = gradation
    return (1.0 - STRAIGHTNESS_SHARE + STRAIGHTNESS_SHARE * straight) * proportions


def hands_qualities(m: dict[str, float]) -> dict[str, float]:
    fingers = finger_proportions_quality(m)
    nails = 0.5 * rising(m["tip_crisp"], TIP_CRISP_MIDPOINT, TIP_CRISP_WIDTH) + 0.5 * rising(
        m["tip_gloss"], TIP_GLOSS_MIDPOINT, TIP_GLOSS_WIDTH
    )
    return {
        "fingerProportions": fingers,
        "skinQuality": limb_skin_quality(m),
        "nailAppearance": nails,
        "overallAesthetics": aesthetics_quality(m),
    }


# ---------------------------------------------------------------------------
# Pets
# ---------------------------------------------------------------------------
# A found face: its width over the photo's long side (a portrait 0.25–0.8), how far it
# is from the centre (0–1), and how strongly both cascades agreed (15–45 on cats).
FACE_SIZE_BAND = (0.25, 0.85, 0.1, 0.3)
FACE_HITS_FULL = 30.0
# Without a found face (a dog, a cat in profile, a rabbit) the face figure stays modest
# and the photo is judged by the rest.
FACELESS_VISIBILITY = (0.3, 0.3)  # base, plus this much for a prominent subject
# Close-ups are cute: a face this wide (share of the long side) is halfway there.
CLOSENESS_MIDPOINT = 0.2
CLOSENESS_WIDTH = 0.08
FACELESS_CLOSENESS = 0.45


def pet_qualities(m: dict[str, float]) -> dict[str, float]:
    composition = composition_quality(m["shape_area"], m["shape_offset"])
    if m["face_found"]:
        placement = logistic((OFFSET_MIDPOINT - m["face_offset"]) / OFFSET_WIDTH)
        visibility = 0.6 + 0.4 * (
            0.5 * band(m["face_size"], *FACE_SIZE_BAND)
            + 0.3 * placement
            + 0.2 * min(m["face_hits"] / FACE_HITS_FULL, 1.0)
        )
        closeness = rising(m["face_size"], CLOSENESS_MIDPOINT, CLOSENESS_WIDTH)
    else:
        base, extra = FACELESS_VISIBILITY
        visibility = base + extra * composition
        closeness = FACELESS_CLOSENESS * composition
    light = exposure_quality(m)
    return {
        "faceVisibility": visibility,
        "photoClarity": 0.55 * sharp_quality(m) + 0.3 * light + 0.15 * contrast_quality(m),
        "colorCharm": 0.7 * colour_quality(m)
        + 0.3 * rising(m["warmth"], WARMTH_MIDPOINT, WARMTH_WIDTH),
        "overallCuteness": 0.45 * closeness + 0.3 * composition + 0.25 * light,
    }
