"""From a face's measures to what a visitor sees: the score, the bars and the notes.

The score is the fitted model's (``face_score``): the overall impression learned from
people's ratings on the face descriptor, with the measured terms the fit kept (how even
the skin is against the light, how long the face is for its width), placed on the 1–10
scale among ordinary people; that is the person's score. The photo (its light,
sharpness, grain, the expression, the framing: ``face_photo``) then nudges it within a
narrow band, and the notes say how much came from where. Here the measures become the
model's terms, as far as the photo shows them:

- **Skin**: a soft or grainy photo hides the skin's texture, so its figure would read
  smoother than the skin is. It is divided by ``sharpness_quality`` (1 when sharp,
  falling as the edges soften), and from ``SKIN_UNSEEN_FROM`` of blur (or
  ``CLEAN_GRAIN`` of grain) it slides to ``UNSEEN_UNEVENNESS``, the least even skin
  the model tells apart: on a photo that does not show the skin, it is not counted in
  the face's favour (``effective_unevenness``).
- **Proportions**: parted lips move the chin, so the face's length then counts towards
  an average face's (``open_mouth_weights``); a soft or grainy photo places the
  landmarks less precisely (``landmark_uncertainty``), so its proportions count towards
  the reference's lower quartile (``face_score.predict``).
- **Symmetry** is measured and shown as the documents' breakdown asks, each mirror pair
  against an ideal (a smooth bell: ``Ideal.quality``), but it does not move the score:
  on the rated faces, how symmetric a face was did not predict its rating.

Breakdown bars: symmetry ``10 q`` for its quality ``q`` (0–1), shown apart. Skin and
harmony are the two parts the score counts, each with its share (``part_percents``: its
terms' shares, as the notes print them, 72% and 28% today), and their bars are drawn so
that the score visibly follows from them (``counted_bars``): a part's bar is the score
the face would have if every part stood as this one does, on the scale's straight middle
(7.5 typical, 0.6 a standard deviation). The share-weighted bars then make the person's
score, plus what the scale adds at its top (it widens there, so that 9.5 is the top 1%:
``top_of_scale``), and the photo's nudge makes the score (``combination``): every figure
to one decimal, and the sum holds to the shown decimals.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from prettyscore.analysis.engines import face_photo, face_score
from prettyscore.analysis.engines.base import BREAKDOWN_KEYS, MeasureNote, one_decimal

SYMMETRY, SKIN, HARMONY = BREAKDOWN_KEYS

# At the edge of its ideal range a measure has this quality; the bell's width follows.
EDGE_QUALITY = 0.8
EDGE_WIDTH = 1.0 / math.sqrt(-2.0 * math.log(EDGE_QUALITY))


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

# Lips parted by more than this (face widths) make the face's length count less
# (``open_mouth_weights``).
OPEN_MOUTH_GAP = 0.04
OPEN_MOUTH_FADE = 0.025
MOUTH_DEPENDENT = ("face_shape",)

# Sharpness: the features' edge blur in percent of the face's width. Sharp photos
# measure 1.0–1.25; the skin's figure is divided by ``sharpness_quality``, which starts
# falling at SHARP_BLUR_PERCENT.
SHARP_BLUR_PERCENT = 0.9
SHARPNESS_FALL_OFF = 0.66
# Blur (percent of the face's width) from which the skin's texture starts to be lost,
# and at which it is (below the softest enlarged LFW face, so that a change of light
# does not move one of them across it): from there the skin reads as UNSEEN_UNEVENNESS
# (percent of the light), beyond the least even skin of the reference faces.
SKIN_UNSEEN_FROM = 1.3
SKIN_UNSEEN_AT = 1.5
UNSEEN_UNEVENNESS = 8.0
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
# The uncertainty at which the learned term has lost half its precision (it falls with
# the fourth power: a soft photo keeps nearly all of it, an enlarged thumbnail little).
IMPRESSION_UNCERTAINTY = 2.0
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
    """What the visitor sees: the score (the person's, nudged by the photo), the
    person's alone, the three bars, the photo's reading and the notes behind them;
    ``standings`` keeps the model's figures (for calibration only, never shown)."""

    score: float
    person_score: float
    breakdown: dict[str, float]
    photo: face_photo.PhotoReading
    notes: tuple[MeasureNote, ...]
    standings: dict[str, float]


def calibrated(measures: dict[str, float], descriptor: np.ndarray) -> Calibrated:
    """Notes, breakdown and score from the raw measures (by key) and the face's
    descriptor."""
    uncertainty = landmark_uncertainty(measures[SHARPNESS_IDEAL.key], measures[GRAIN_IDEAL.key])
    symmetry, symmetry_notes = weighted_quality(SYMMETRY_IDEALS, measures, uncertainty)
    prediction = predicted(measures, descriptor)
    photo = face_photo.reading(measures)
    score = face_score.overall_score(prediction, photo.nudge)
    person_score = face_score.overall_score(prediction)
    counted = face_score.counted_terms()
    skin_notes = tuple(term_note(term, prediction) for term in counted if term.part == SKIN)
    harmony_notes = tuple(term_note(term, prediction) for term in counted if term.part == HARMONY)
    bars = counted_bars(prediction, person_score)
    return Calibrated(
        score=score,
        person_score=person_score,
        breakdown={
            SYMMETRY: one_decimal(10.0 * symmetry, 0.0, 10.0),
            **{
                part: bars[part] if part in bars else face_score.part_score(prediction, part)
                for part in (SKIN, HARMONY)
            },
        },
        photo=photo,
        notes=(
            SYMMETRY_NOT_COUNTED,
            *symmetry_notes,
            impression_note(),
            *harmony_notes,
            *skin_notes,
            *photo_notes(measures, photo, person_score, score),
        ),
        standings={
            "rating": prediction.rating,
            "overall": face_score.standing(prediction.rating),
            "photo_nudge": photo.nudge,
            **{f"{part}": face_score.part_standing(prediction, part) for part in (SKIN, HARMONY)},
            **{f"q_{SYMMETRY}": symmetry},
        },
    )


# ---------------------------------------------------------------------------
# The counted parts' bars, and how the score follows from them
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Combination:
    """How the score follows from the bars, every figure as shown (one decimal): each
    counted part's bar (``bars``) times its share (``percents``, whole percent), plus
    what the scale adds at its top (``top``) and what the photo adds (``photo``, the
    notes' figure), make ``score``, to the shown decimal."""

    bars: dict[str, float]
    percents: dict[str, int]
    top: float
    photo: float
    score: float


def part_percents() -> dict[str, int]:
    """How much each counted part counts, in whole percent adding up to 100, the part
    that counts most first: the shares of its terms (``face_score.term_shares``: the
    notes' "counts 53%"), summed. A part the fit left out is not here."""
    shares = face_score.term_shares()
    parts = {
        part: sum(share for key, share in shares.items() if face_score.part_of(key) == part)
        for part in (HARMONY, SKIN)
    }
    ordered = [part for part in sorted(parts, key=parts.get, reverse=True) if parts[part] > 0]
    rest = {part: round(100 * parts[part]) for part in ordered[1:]}
    return {ordered[0]: 100 - sum(rest.values()), **rest} if ordered else {}


def middle_line() -> tuple[float, float]:
    """The scale's straight middle (``face_score.SCALE`` around the typical face): the
    typical face's score and the points a standard deviation adds (7.5 and 0.6)."""
    knots = face_score.knots_for(face_score.parameters())
    (x0, y0), (x1, y1) = next(
        (low, high) for low, high in zip(knots, knots[1:], strict=False) if low[0] <= 0 < high[0]
    )
    slope = (y1 - y0) / (x1 - x0)
    return y0 - slope * x0, slope


def unrounded_score(position: float) -> float:
    """``face_score.scaled`` before its rounding to one decimal."""
    fitted = face_score.parameters()
    if position >= fitted.record_standing:
        return 10.0
    knots = face_score.knots_for(fitted)
    index = min(max(1, sum(1 for x, _ in knots if x < position)), len(knots) - 1)
    (x0, y0), (x1, y1) = knots[index - 1], knots[index]
    score = y0 + (y1 - y0) * (position - x0) / (x1 - x0)
    return min(max(score, face_score.LOWEST_SCORE), face_score.BELOW_THE_RECORD)


def top_of_scale(position: float) -> float:
    """What the scale adds to a standing's score beyond its straight middle: 0 up to one
    standard deviation above the typical face, then more, as the scale widens at its top
    (9.5 is the top 1%); a little less again beyond the top 1%."""
    typical, slope = middle_line()
    return unrounded_score(position) - (typical + slope * position)


def counted_bar(prediction: face_score.Prediction, part: str, percent: int) -> float:
    """A counted part's bar, unrounded: the score the face would have if every part stood
    as this one does, on the scale's straight middle. The part's contribution to the
    predicted rating, from the reference faces' mean, in the rating's standard deviations
    over its share: the bars times their shares then add up to the person's standing."""
    fitted = face_score.parameters()
    typical, slope = middle_line()
    away = prediction.part(part) - fitted.part_mean[part]
    return typical + slope * away / (percent / 100 * fitted.reference_sd)


def counted_bars(prediction: face_score.Prediction, person_score: float) -> dict[str, float]:
    """The counted parts' bars (0–10, one decimal), so that with their shares they make
    the person's score to the shown decimal (``combination``).

    Each bar is its exact value rounded down or up; the top of the scale's figure is
    likewise within 0.1 of its own; of the ways that add up, the closest to the exact
    figures is taken (the nearest rounding, most often). A bar held to 0–10 may leave no
    way to add up: the bars are then only rounded."""
    percents = part_percents()
    exact = {part: counted_bar(prediction, part, percent) for part, percent in percents.items()}
    top = top_of_scale(face_score.standing(prediction.rating))
    options = [
        sorted({min(max(math.floor(10 * value), 0), 100), min(max(math.ceil(10 * value), 0), 100)})
        for value in exact.values()
    ]
    best, best_cost = None, math.inf
    for tenths in itertools.product(*options):
        bars = dict(zip(exact, (t / 10 for t in tenths), strict=True))
        added = _added_up(bars, percents, person_score)
        if added is None or abs(added - top) >= 0.1 or not _possible_top(added, person_score):
            continue
        cost = sum(abs(bars[part] - exact[part]) for part in exact) + abs(added - top)
        if cost < best_cost:
            best, best_cost = bars, cost
    return best or {part: one_decimal(value, 0.0, 10.0) for part, value in exact.items()}


def _added_up(bars: dict[str, float], percents: dict[str, int], person_score: float):
    """The top of the scale's figure (one decimal) with which ``bars`` times their
    ``percents`` make ``person_score`` to the shown decimal, or None when none does
    (in thousandths of a point: a bar's tenths times its percent)."""
    weighted = sum(percents[part] * round(10 * bars[part]) for part in percents)
    person = 100 * round(10 * person_score)
    top = round((person - weighted) / 100)
    return top / 10 if abs(weighted + 100 * top - person) < 50 else None


def combination(
    breakdown: dict[str, float], person_score: float | None, score: float
) -> Combination | None:
    """How ``score`` follows from the counted bars of ``breakdown``, or None when it does
    not to the shown decimal (or the person's score is unknown): then nothing is said.

    The top of the scale's figure must be one a face of this person's score can have
    (within 0.1: ``counted_bars``): below 8.1 it is 0, and bars that do not add up
    are not made to by it."""
    percents = part_percents()
    if person_score is None or not percents or any(part not in breakdown for part in percents):
        return None
    bars = {part: float(breakdown[part]) for part in percents}
    top = _added_up(bars, percents, person_score)
    if top is None or not _possible_top(top, person_score):
        return None
    photo = (round(10 * score) - round(10 * person_score)) / 10
    return Combination(bars, percents, top, photo, round(score, 1))


def _possible_top(top: float, person_score: float) -> bool:
    """Whether the top of the scale's figure ``top`` (one decimal) is within 0.1 of what
    the scale adds at a standing that scores ``person_score``: 0 below 8.1."""
    low, high = _top_range(round(10 * person_score))
    return low - 0.1 < top < high + 0.1


@functools.cache
def _top_range(person_tenths: int) -> tuple[float, float]:
    """The least and the most that the top of the scale adds at the standings scored
    ``person_tenths`` tenths (none: infinite bounds that admit nothing)."""
    record = face_score.parameters().record_standing

    def first_reaching(tenths: int) -> float:
        """The least standing scored at least ``tenths`` (the scale never falls)."""
        low, high = -20.0, record + 1.0
        if round(10 * face_score.scaled(low)) >= tenths:
            return low
        for _ in range(60):
            middle = (low + high) / 2
            if round(10 * face_score.scaled(middle)) >= tenths:
                high = middle
            else:
                low = middle
        return high

    start, end = first_reaching(person_tenths), first_reaching(person_tenths + 1)
    if start >= end:
        return math.inf, -math.inf
    tops = [top_of_scale(start + (end - start) * step / 200) for step in range(200)]
    return min(tops), max(tops)


def predicted(
    measures: dict[str, float],
    descriptor: np.ndarray,
    fitted: face_score.Parameters | None = None,
) -> face_score.Prediction:
    """The model's prediction for a face with these measures and this descriptor, as
    far as the photo shows them (with ``fitted``, or the committed parameters)."""
    uncertainty = landmark_uncertainty(measures[SHARPNESS_IDEAL.key], measures[GRAIN_IDEAL.key])
    return face_score.predict(
        term_values(measures),
        descriptor,
        term_trust(measures),
        term_precision(uncertainty),
        fitted=fitted,
    )


def impression_note() -> MeasureNote:
    """The learned term, named for what it is and how much it counts."""
    share = round(100 * face_score.parameters().share(face_score.IMPRESSION))
    return MeasureNote(
        face_score.IMPRESSION,
        face_score.IMPRESSION_NAME,
        face_score.IMPRESSION_PART,
        0.0,
        (0.0, 0.0),
        f"{face_score.IMPRESSION_NAME}: learned from 2,513 people's ratings of 102 faces, "
        f"read from 128 measurements of your face's features that stay the same from one "
        f"photo to the next (counts {share}%)",
    )


def photo_notes(
    measures: dict[str, float],
    photo: face_photo.PhotoReading,
    person_score: float,
    score: float,
) -> tuple[MeasureNote, ...]:
    """The photo's part in plain words: what it added or took off, how well it shows the
    face, and the sharpness and grain figures behind that."""
    effect = round(score - person_score, 1)
    if effect > 0:
        said = f"this clear photo added {effect:.1f} to your score"
    elif effect < 0:
        said = f"this photo took {-effect:.1f} off your score"
    else:
        said = "this photo neither added to nor took from your score"
    shown = photo.shown()
    aspects = ", ".join(
        f"{face_photo.ASPECT_NAMES[key].lower()} {shown[key]:.1f}" for key in face_photo.ASPECTS
    )
    summary = MeasureNote(
        "photo",
        "This photo",
        SKIN,
        shown["overall"],
        (10.0 * face_photo.ADVICE_BELOW, 10.0),
        f"This photo: {shown['overall']:.1f} out of 10 ({aspects}); the score is your "
        f"face's, and a better or worse photo moves it only a little: {said}. "
        f"{photo.advice}",
    )
    return (
        summary,
        SHARPNESS_IDEAL.note(measures[SHARPNESS_IDEAL.key]),
        GRAIN_IDEAL.note(measures[GRAIN_IDEAL.key]),
    )


#: The symmetry part's first note: it is shown, and does not count.
SYMMETRY_NOT_COUNTED = MeasureNote(
    "symmetry_counts",
    "Symmetry",
    SYMMETRY,
    0.0,
    (0.0, 0.0),
    "Symmetry is shown but not counted: on 102 faces rated by 2,513 people, it did not "
    "change how attractive they were found",
)


def term_values(measures: dict[str, float]) -> dict[str, float]:
    """The model's terms from the raw measures: the skin as far as the photo shows it
    (``effective_unevenness``) and the face's length as measured."""
    return {
        "skin_evenness": effective_unevenness(
            measures["skin_evenness"], measures[SHARPNESS_IDEAL.key], measures[GRAIN_IDEAL.key]
        ),
        "face_shape": measures["face_shape"],
    }


def term_trust(measures: dict[str, float]) -> dict[str, float]:
    """How much each term tells about the face: the face's length less when the lips
    are parted (``open_mouth_weights``)."""
    return open_mouth_weights(measures["lip_gap"])


def term_precision(uncertainty: float) -> dict[str, float]:
    """How precisely the photo shows each proportion: less on a soft or grainy photo,
    whose landmarks are placed less precisely (``landmark_uncertainty``). The learned
    term is read by a network trained on photos of every quality: it keeps its precision
    on an ordinary soft photo (what that costs is the photo's part, its sharpness) and
    loses it only on a face the photo hardly shows (``IMPRESSION_UNCERTAINTY``), such as
    a thumbnail enlarged, whose descriptor moves with any change of light or noise.
    (The skin's own figure already reads a soft photo as less even:
    ``effective_unevenness``.)"""
    precise = 1.0 / (1.0 + uncertainty**2)
    learned = 1.0 / (1.0 + (uncertainty / IMPRESSION_UNCERTAINTY) ** 4)
    harmony = {term.key: precise for term in face_score.TERMS if term.part == HARMONY}
    return {face_score.IMPRESSION: learned, **harmony}


def term_note(term: face_score.Term, prediction: face_score.Prediction) -> MeasureNote:
    """A term as the panel lists it: its value against the reference's middle half,
    what raises it, and how much it counts; "in range" when it is at least typical."""
    fitted = face_score.parameters().terms[term.key]
    low, high = fitted.typical
    value = prediction.values[term.key]
    fmt = f"{{:.{term.digits}f}}"
    share = round(100 * face_score.parameters().share(term.key))
    text = term.template.format(
        name=term.name, value=fmt.format(value), low=fmt.format(low), high=fmt.format(high)
    )
    text = f"{text}; {term.raises} (counts {share}%)"
    ideal = (low, math.inf) if term.higher_is_better else (-math.inf, high)
    return MeasureNote(term.key, term.name, term.part, round(value, term.digits), ideal, text)


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
    """How much the face's length counts when the lips are parted.

    Talking, laughing or a wide smile drops the jaw: the face's length then says more
    about the moment than about the face. Beyond a gap of
    ``OPEN_MOUTH_GAP`` face widths their weight fades (a Gaussian of ``OPEN_MOUTH_FADE``).
    """
    excess = max(0.0, lip_gap - OPEN_MOUTH_GAP)
    trust = math.exp(-0.5 * (excess / OPEN_MOUTH_FADE) ** 2)
    return dict.fromkeys(MOUTH_DEPENDENT, trust)


def effective_unevenness(evenness: float, blur_percent: float, grain: float = 0.0) -> float:
    """The skin's unevenness (percent of the light) as far as the photo shows it.

    Divided by ``sharpness_quality``: softer edges hide texture, so the same skin would
    read smoother; the division gives it back. From ``SKIN_UNSEEN_FROM`` to
    ``SKIN_UNSEEN_AT`` of blur (or from ``CLEAN_GRAIN`` to ``GRAIN_HIDES_SKIN`` of grain)
    the photo shows less and less of the skin, and the figure slides to at least
    ``UNSEEN_UNEVENNESS``. Beyond, whatever the texture figure reads (grain, noise, a
    compression's blocks) does not make it smoother, and a worse photo can only read
    worse.
    """
    measured = evenness / sharpness_quality(blur_percent)
    unseen = max(
        _ramp(blur_percent, SKIN_UNSEEN_FROM, SKIN_UNSEEN_AT),
        _ramp(grain, CLEAN_GRAIN, GRAIN_HIDES_SKIN),
    )
    return (1.0 - unseen) * measured + unseen * max(measured, UNSEEN_UNEVENNESS)


def _ramp(value: float, start: float, end: float) -> float:
    """0 below ``start``, 1 beyond ``end``, linear between."""
    return min(1.0, max(0.0, (value - start) / (end - start)))


def sharpness_quality(blur_percent: float) -> float:
    """How much of the skin's texture a photo this sharp can show: 1 when sharp, falling
    as soon as the edges soften, so that blurring a photo never makes skin look better."""
    excess = max(0.0, blur_percent - SHARP_BLUR_PERCENT)
    return math.exp(-0.5 * (excess / SHARPNESS_FALL_OFF) ** 2)
