"""From a face's measures to what a visitor sees: notes, the breakdown and the score.

Each measure has an ideal range. Its quality is a smooth bell (``Ideal.quality``): full
marks at the range's centre (at 0 where less is better), ``EDGE_QUALITY`` at its edges,
falling off beyond, never at a threshold, so two nearly identical photos get nearly
identical figures. Where the ideal comes from:

- **Symmetry**: the mean distance between each landmark and the mirror image of its
  partner, in percent of the face's width. Nobody is perfectly symmetric; under half a
  percent is exceptional, around one and a half typical.
- **Facial harmony**: the classic proportions, each as the literature states it where
  our landmarks measure the same thing: eye spacing 0.46 of face width (Pallett et al.
  2010, "new golden ratios"), facial thirds (the lower third as tall as the middle),
  the upper lip a third of the lower face (1 : 2), mouth width 1.618 × nose width and
  brows-to-lips 1.618 × nose length (the golden ratio), a slightly upturned eye line.
  Two are stated for what the mesh can see: its eye corners sit at the lids' meeting
  points, which reads the rule of fifths' 1 : 1 gap between the eyes as up to about
  1.3 eye widths, and its top is the upper forehead, not the hairline, which makes a
  face's length about 1.1–1.3 of its width (that one weighs least: it is the least
  robust).
- **Skin quality**: unevenness of the cheeks and forehead relative to the skin's own
  brightness, in linear light (``face_skin.skin_texture``), capped by the photo's
  sharpness so that a soft photo can never look like smooth skin; on a photo too soft to
  show the skin's texture at all, its figure no longer counts (``skin_quality``).

Breakdown bars: ``10 q`` for a part's quality ``q`` (0–1). Overall score:
``SCORE_FLOOR + SCORE_RANGE × min(1, Q / TOP_QUALITY) ** SCORE_EXPONENT`` with ``Q``
the weighted mean of the three qualities; the exponent keeps the top rare: 9.5 needs
``Q`` of about 0.93, and 10.0 (``TOP_QUALITY``, 0.97) every measure well inside its
ideal range, in a sharp photo.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from prettyscore.analysis.engines.base import BREAKDOWN_KEYS, MeasureNote, one_decimal

SYMMETRY, SKIN, HARMONY = BREAKDOWN_KEYS

SCORE_FLOOR = 1.0
SCORE_RANGE = 9.0
SCORE_EXPONENT = 1.25
# Q from which the score is 10.0.
TOP_QUALITY = 0.97
# At the edge of its ideal range a measure has this quality; the bell's width follows.
EDGE_QUALITY = 0.8
EDGE_WIDTH = 1.0 / math.sqrt(-2.0 * math.log(EDGE_QUALITY))
PART_WEIGHTS = {SYMMETRY: 0.4, SKIN: 0.25, HARMONY: 0.35}


@dataclass(frozen=True)
class Ideal:
    """A measure's ideal range and how its note reads.

    ``template`` is formatted with ``value``, ``low`` and ``high`` already rounded to
    ``digits`` decimals. ``weight`` is its share within its part. The quality peaks at
    the range's centre (at 0 when ``one_sided``: less is better) and reads
    ``EDGE_QUALITY`` at its edges.
    """

    key: str
    name: str
    part: str
    low: float
    high: float
    weight: float
    template: str
    digits: int = 2
    one_sided: bool = False

    def quality(self, value: float, uncertainty: float = 0.0) -> float:
        """A smooth bell: 1 at the ideal's centre, ``EDGE_QUALITY`` at its edges.

        ``uncertainty`` is how imprecisely the value is known (its standard deviation, in
        half-widths of the ideal range): the quality is then the bell's expected value
        over the values the face may really have, a wider and lower bell. A photo that
        shows the face less clearly cannot earn full marks, and its figures, which move
        more from one shot to the next, move its quality less.
        """
        if self.one_sided:
            deviation = max(value, 0.0) / self.high
        else:
            deviation = abs(value - (self.low + self.high) / 2) / ((self.high - self.low) / 2)
        spread_squared = EDGE_WIDTH**2 + uncertainty**2
        height = EDGE_WIDTH / math.sqrt(spread_squared)
        return height * math.exp(-0.5 * deviation**2 / spread_squared)

    def note(self, value: float) -> MeasureNote:
        shown = round(value, self.digits)
        low, high = round(self.low, self.digits), round(self.high, self.digits)
        fmt = f"{{:.{self.digits}f}}"
        text = self.template.format(
            name=self.name, value=fmt.format(shown), low=fmt.format(low), high=fmt.format(high)
        )
        return MeasureNote(self.key, self.name, self.part, shown, (low, high), text)


_MIRROR = "{name}: mirror each other within {value}% of face width, ideal under {high}%"
SYMMETRY_IDEALS = (
    Ideal("asymmetry_eyes", "Eyes", SYMMETRY, 0.0, 1.2, 0.3, _MIRROR, 1, one_sided=True),
    Ideal("asymmetry_brows", "Brows", SYMMETRY, 0.0, 1.5, 0.2, _MIRROR, 1, one_sided=True),
    Ideal("asymmetry_nose", "Nose", SYMMETRY, 0.0, 1.0, 0.15, _MIRROR, 1, one_sided=True),
    Ideal("asymmetry_mouth", "Mouth", SYMMETRY, 0.0, 1.2, 0.15, _MIRROR, 1, one_sided=True),
    Ideal("asymmetry_jaw", "Jaw line", SYMMETRY, 0.0, 1.8, 0.2, _MIRROR, 1, one_sided=True),
)

HARMONY_IDEALS = (
    Ideal(
        "eye_spacing", "Eye spacing", HARMONY, 0.44, 0.49, 0.2,
        "{name}: {value} of face width, ideal {low}–{high}",
    ),
    Ideal(
        "eye_gap", "Gap between the eyes", HARMONY, 1.0, 1.3, 0.15,
        "{name}: {value} eye widths, ideal {low}–{high} (rule of fifths)",
    ),
    Ideal(
        "thirds", "Lower to middle third", HARMONY, 0.95, 1.1, 0.15,
        "{name}: {value}, ideal {low}–{high} (facial thirds)",
    ),
    Ideal(
        "lip_chin", "Upper lip to lower lip and chin", HARMONY, 0.42, 0.55, 0.1,
        "{name}: {value}, ideal {low}–{high}",
    ),
    Ideal(
        "mouth_nose", "Mouth to nose width", HARMONY, 1.54, 1.7, 0.15,
        "{name}: {value}, ideal {low}–{high} (golden ratio 1.618)",
    ),
    Ideal(
        "brows_lips_nose", "Brows-to-lips to nose length", HARMONY, 1.54, 1.7, 0.1,
        "{name}: {value}, ideal {low}–{high} (golden ratio 1.618)",
    ),
    Ideal(
        "eye_tilt", "Eye-line tilt", HARMONY, 0.0, 8.0, 0.1,
        "{name}: outer corners {value}° above the inner, ideal {low}–{high}°", 1,
    ),
    Ideal(
        "face_shape", "Face length to width", HARMONY, 1.1, 1.25, 0.05,
        "{name}: {value}, ideal {low}–{high}",
    ),
)  # fmt: skip

# Lips parted by more than this (face widths) make the lower face's proportions count
# less (``open_mouth_weights``).
OPEN_MOUTH_GAP = 0.04
OPEN_MOUTH_FADE = 0.025
MOUTH_DEPENDENT = ("thirds", "lip_chin", "brows_lips_nose", "face_shape")

SKIN_IDEAL = Ideal(
    "skin_evenness", "Skin evenness", SKIN, 0.0, 3.0, 1.0,
    "{name}: tone varies {value}% across cheeks and forehead, ideal under {high}%", 1, True,
)  # fmt: skip
# Sharpness: the features' edge blur in percent of the face's width. Sharp photos
# measure 1.0–1.25; skin quality is multiplied by ``sharpness_quality``, which starts
# falling at SHARP_BLUR_PERCENT.
SHARP_BLUR_PERCENT = 0.9
SHARPNESS_FALL_OFF = 0.66
# Blur (percent of the face's width) from which the skin's texture starts to be lost,
# and at which it is (below the softest enlarged LFW face, so that a change of light
# does not move one of them across it): from there the skin quality is at most UNSEEN_SKIN_QUALITY.
SKIN_UNSEEN_FROM = 1.3
SKIN_UNSEEN_AT = 1.5
UNSEEN_SKIN_QUALITY = 0.05
# Landmarks are placed as precisely as the mesh can up to PRECISE_UNTIL_BLUR (percent of
# the face's width; sharp photos measure 1.0–1.25). Beyond, each figure's uncertainty
# grows, in half-widths of its ideal range, towards MAX_UNCERTAINTY, most of the way
# within UNCERTAINTY_SCALE percent more blur (``landmark_uncertainty``): a soft face's
# mesh moves with any change of light, and without the uncertainty its score would move
# with the light and rise with blur. It starts flat (with the square of the excess): a
# sharp small face reads a little more blur when rolled or recompressed, and must not
# lose its precision for that (measured: tests/analysis/NOTES.md, 'Landmark
# uncertainty').
PRECISE_UNTIL_BLUR = 1.22
MAX_UNCERTAINTY = 3.0
UNCERTAINTY_SCALE = 0.43
# Grain (grey levels at the measuring scale, ``face_skin.face_grain``): clean photos read
# 0–2. Beyond CLEAN_GRAIN it hides the skin's texture, entirely at GRAIN_HIDES_SKIN,
# and each grey level of it counts as UNCERTAINTY_PER_GRAIN percent of blur.
CLEAN_GRAIN = 3.0
GRAIN_HIDES_SKIN = 5.0
UNCERTAINTY_PER_GRAIN = 0.28
GRAIN_IDEAL = Ideal(
    "grain", "Photo grain", SKIN, 0.0, CLEAN_GRAIN, 1.0,
    "{name}: noise of {value} grey levels, ideal under {high}", 1, True,
)  # fmt: skip
SHARPNESS_IDEAL = Ideal(
    "sharpness", "Photo sharpness", SKIN, 0.0, 1.13, 1.0,
    "{name}: edges soft over {value}% of face width, ideal under {high}%", 1, True,
)  # fmt: skip


@dataclass(frozen=True)
class Calibrated:
    """What the visitor sees: the score, the three bars and the notes behind them."""

    score: float
    breakdown: dict[str, float]
    notes: tuple[MeasureNote, ...]
    qualities: dict[str, float]


def calibrated(measures: dict[str, float]) -> Calibrated:
    """Notes, qualities, breakdown and score from the raw measures (by key)."""
    uncertainty = landmark_uncertainty(measures[SHARPNESS_IDEAL.key], measures[GRAIN_IDEAL.key])
    symmetry, symmetry_notes = weighted_quality(SYMMETRY_IDEALS, measures, uncertainty)
    harmony, harmony_notes = weighted_quality(
        HARMONY_IDEALS, measures, uncertainty, open_mouth_weights(measures["lip_gap"])
    )
    skin = skin_quality(
        measures[SKIN_IDEAL.key], measures[SHARPNESS_IDEAL.key], measures[GRAIN_IDEAL.key]
    )
    skin_notes = (
        SKIN_IDEAL.note(measures[SKIN_IDEAL.key]),
        SHARPNESS_IDEAL.note(measures[SHARPNESS_IDEAL.key]),
        GRAIN_IDEAL.note(measures[GRAIN_IDEAL.key]),
    )
    qualities = {SYMMETRY: symmetry, SKIN: skin, HARMONY: harmony}
    overall = sum(PART_WEIGHTS[part] * q for part, q in qualities.items())
    return Calibrated(
        score=overall_score(overall),
        breakdown={part: one_decimal(10.0 * q, 0.0, 10.0) for part, q in qualities.items()},
        notes=symmetry_notes + skin_notes + harmony_notes,
        qualities=qualities,
    )


def weighted_quality(
    ideals: tuple[Ideal, ...],
    measures: dict[str, float],
    uncertainty: float = 0.0,
    trust: dict[str, float] | None = None,
) -> tuple[float, tuple[MeasureNote, ...]]:
    """The weighted mean quality of ``ideals`` (each weight times its ``trust``, 1 by
    default), each known to ``uncertainty`` (see ``Ideal.quality``), and their notes."""
    trust = trust or {}
    weights = {ideal.key: ideal.weight * trust.get(ideal.key, 1.0) for ideal in ideals}
    total = sum(weights.values())
    quality = sum(weights[i.key] * i.quality(measures[i.key], uncertainty) for i in ideals) / total
    return quality, tuple(ideal.note(measures[ideal.key]) for ideal in ideals)


def landmark_uncertainty(blur_percent: float, grain: float) -> float:
    """How imprecisely a photo this soft or grainy places the landmarks, in half-widths
    of an ideal range: none on a sharp, clean photo, growing with the blur beyond
    ``PRECISE_UNTIL_BLUR`` (an enlarged thumbnail's mesh is partly the model's guess of
    an average face) and with the grain beyond ``CLEAN_GRAIN`` (grain also sharpens
    the edges the blur is read from: it must not buy precision back).

    It starts flat, growing with the square of the excess, so that a sharp photo read
    a little softer (a small face rolled or recompressed) keeps nearly all its
    precision, and levels off at ``MAX_UNCERTAINTY``: on a very soft photo a little more
    or less blur, which a change of light alone can read, then hardly moves the score."""
    soft = max(0.0, blur_percent - PRECISE_UNTIL_BLUR)
    grainy = UNCERTAINTY_PER_GRAIN * max(0.0, grain - CLEAN_GRAIN)
    return MAX_UNCERTAINTY * math.tanh(((soft + grainy) / UNCERTAINTY_SCALE) ** 2)


def open_mouth_weights(lip_gap: float) -> dict[str, float]:
    """How much the lower face's proportions count when the lips are parted.

    Talking, laughing or a wide smile drops the jaw and moves the lips' meeting line:
    the lower third, the lips-to-chin and brows-to-lips proportions and the face's
    length then say more about the moment than about the face. Beyond a gap of
    ``OPEN_MOUTH_GAP`` face widths their weight fades (a Gaussian of ``OPEN_MOUTH_FADE``).
    """
    excess = max(0.0, lip_gap - OPEN_MOUTH_GAP)
    trust = math.exp(-0.5 * (excess / OPEN_MOUTH_FADE) ** 2)
    return dict.fromkeys(MOUTH_DEPENDENT, trust)


def skin_quality(evenness: float, blur_percent: float, grain: float = 0.0) -> float:
    """The skin's quality: its evenness's, as far as the photo's sharpness can show it.

    From ``SKIN_UNSEEN_FROM`` to ``SKIN_UNSEEN_AT`` of blur (or from ``CLEAN_GRAIN`` to
    ``GRAIN_HIDES_SKIN`` of grain) the photo shows less and less of the skin, and its
    evenness less and less counts: the quality slides to at most
    ``UNSEEN_SKIN_QUALITY``. Beyond, whatever the texture figure reads (grain, noise, a
    compression's blocks, the shading of a darker or lighter skin) does not move it, and
    a worse photo can only take it lower.
    """
    measured = SKIN_IDEAL.quality(evenness) * sharpness_quality(blur_percent)
    unseen = max(
        _ramp(blur_percent, SKIN_UNSEEN_FROM, SKIN_UNSEEN_AT),
        _ramp(grain, CLEAN_GRAIN, GRAIN_HIDES_SKIN),
    )
    return (1.0 - unseen) * measured + unseen * min(measured, UNSEEN_SKIN_QUALITY)


def _ramp(value: float, start: float, end: float) -> float:
    """0 below ``start``, 1 beyond ``end``, linear between."""
    return min(1.0, max(0.0, (value - start) / (end - start)))


def sharpness_quality(blur_percent: float) -> float:
    """How much of the skin's quality a photo this sharp can show: 1 when sharp, falling
    as soon as the edges soften, so that blurring a photo never makes skin look better."""
    excess = max(0.0, blur_percent - SHARP_BLUR_PERCENT)
    return math.exp(-0.5 * (excess / SHARPNESS_FALL_OFF) ** 2)


def overall_score(quality: float) -> float:
    """The 1–10 score (one decimal) for a combined quality between 0 and 1."""
    top = min(1.0, max(0.0, quality) / TOP_QUALITY)
    return one_decimal(SCORE_FLOOR + SCORE_RANGE * top**SCORE_EXPONENT, 1.0, 10.0)
