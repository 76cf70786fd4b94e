"""The score people would give a face: a small model fitted on rated faces, and its scale.

The score is the person's, not the photo's. What predicts how attractive people find a
face, tested on the London Set (102 adults of several ethnic backgrounds, each rated by
2,513 people), is above all an overall impression, which a face descriptor captures: 128
numbers from a network trained to tell people apart (``face_descriptor``), the same for
one person across photos. The learned term is a ridge regression on them; measured terms
(how even the skin is, the face's length for its width) join it when they add held-out
agreement, chosen inside the folds of a nested cross-validation. Everything is fitted by
``scripts/fit_score.py`` and kept as data beside this module (``face_score.json``);
the script's report, with the held-out agreement and every group's gap, is
``docs/analysis/score-fit.txt``.

The predicted rating is then placed on the documents' 1–10 scale by where it falls
among ordinary people: the reference population (the London and Canada sets, 142
studio photos) gives its mean and spread, and ``SCALE`` maps a face's standing to a
score. The photo nudges the standing within a narrow band (``face_photo``). The middle
is generous, as an entertainment app's should be: a typical face scores 7.5
("Beautiful"); the top is honest: 9.5 ("Elite Beauty", "top 1%") needs a face in the
top 1% of people, 9.9 the top 0.01%, and exactly 10 ("World Record") a face that beats
every reference face by a clear margin.

A measure the photo shows less clearly counts less, so a worse photo never scores
higher: a soft or grainy photo's skin reads as less even
(``face_calibration.effective_unevenness``), and a blurred face's proportions count
towards the least favourable value they are held to (``predict``).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from prettyscore.analysis.engines.base import BREAKDOWN_KEYS, one_decimal

SYMMETRY, SKIN, HARMONY = BREAKDOWN_KEYS
# The learned term: the overall impression read from the face descriptor.
IMPRESSION = "impression"
IMPRESSION_PART = HARMONY
IMPRESSION_NAME = "Overall impression"

PARAMETERS_FILE = Path(__file__).with_name("face_score.json")

# The documents' scale from a face's standing among ordinary people (standard deviations
# of the reference's predicted ratings from their mean): (standing, score) knots, joined
# by straight lines. 0 is the typical face; 2.326 is the top 1% of a normal population,
# 3.719 its top 0.01%: a score shown as 9.5 (at least 9.45) or 9.9 starts just there.
TOP_1_PERCENT = 2.326
TOP_0_01_PERCENT = 3.719
SCALE = (
    (-4.0, 5.1),
    (-3.0, 5.7),
    (-2.0, 6.3),
    (-1.0, 6.9),
    (0.0, 7.5),
    (1.0, 8.1),
    (2.0, 8.8),
    (TOP_1_PERCENT, 9.45),
    (TOP_0_01_PERCENT, 9.85),
)
LOWEST_SCORE = 1.0
# Below exactly 10: the highest score short of the world record (shown as 9.9).
BELOW_THE_RECORD = 9.9
# The world record needs a standing beyond the best reference face by this much, and
# never below 1 in 100,000 of a normal population.
RECORD_MARGIN = 0.25
RECORD_AT_LEAST = 4.265


@dataclass(frozen=True)
class Term:
    """One measure the score counts: its key in the measures, the breakdown part it
    belongs to, and how it reads on screen.

    ``higher_is_better`` says which way raises the score (the fitted weight agrees);
    ``logarithmic`` terms are standardised on their logarithm (a skin twice as uneven
    is as far from another as half as uneven). ``template`` is formatted with
    ``value``, ``low`` and ``high`` (the reference's middle half) rounded to ``digits``.
    """

    key: str
    part: str
    name: str
    template: str
    raises: str
    digits: int
    higher_is_better: bool
    logarithmic: bool = False


# The measured terms that may join the learned one: what the person's face is, as far
# as a photo shows it. How open the eyes are belongs to the moment (a smile narrows
# them): it is the photo's expression (``face_photo``), not a term of the person.
TERMS = (
    Term(
        "skin_evenness",
        SKIN,
        "Skin evenness",
        "{name}: tone varies {value}% of the light across cheeks and forehead "
        "(typical {low}–{high}%)",
        "more even skin raises your score",
        digits=2,
        higher_is_better=False,
        logarithmic=True,
    ),
    Term(
        "face_shape",
        HARMONY,
        "Face length to width",
        "{name}: {value} (typical {low}–{high})",
        "a longer, narrower face raises your score",
        digits=2,
        higher_is_better=True,
    ),
)


@dataclass(frozen=True)
class Fitted:
    """A term's fitted numbers: its standardisation over the rated faces (on the log
    for a logarithmic term), its weight (rating points per standard deviation), the
    range its value is held to (the reference's, widened by its spread: a landmark
    misplaced on an unusual photo cannot run away) and the reference's middle half."""

    mean: float
    sd: float
    weight: float
    low: float
    high: float
    typical: tuple[float, float]


@dataclass(frozen=True)
class Learned:
    """The learned term: rating points per unit of each descriptor number, the offset
    that centres it on the rated faces (its standardisation folded in), and the range
    its contribution is held to (the reference's, widened by its spread: a descriptor
    read from an unusual photo cannot run away)."""

    weights: np.ndarray
    offset: float
    low: float
    high: float

    def contribution(self, descriptor: np.ndarray) -> float:
        value = float(self.offset + np.dot(self.weights, descriptor))
        return min(max(value, self.low), self.high)


@dataclass(frozen=True)
class Parameters:
    """What ``scripts/fit_score.py`` fitted (``face_score.json``): the measured terms it
    kept (``terms``, by key), the learned term, and the reference population's figures,
    among them each contribution's spread over it (``contribution_sd``), which says how
    much each counts."""

    intercept: float
    terms: dict[str, Fitted]
    learned: Learned
    contribution_sd: dict[str, float]
    reference_mean: float
    reference_sd: float
    reference_best: float
    # The standing above which only 1% of the reference faces are (at least
    # TOP_1_PERCENT): where "top 1%" starts, as the reference population says.
    reference_top: float
    part_mean: dict[str, float]
    part_sd: dict[str, float]

    @property
    def record_standing(self) -> float:
        """The standing from which a face scores exactly 10."""
        best = (self.reference_best - self.reference_mean) / self.reference_sd
        return max(RECORD_AT_LEAST, best + RECORD_MARGIN)

    def share(self, key: str) -> float:
        """How much a term counts (0 for a candidate the fit left out): its
        contribution's spread over the reference faces, as a share of all of them."""
        total = sum(self.contribution_sd.values())
        return self.contribution_sd.get(key, 0.0) / total

    @property
    def parameter_count(self) -> int:
        """The numbers fitted: the intercept, the learned weights and offset, and each
        measured term's weight and standardisation."""
        return 1 + len(self.learned.weights) + 1 + 3 * len(self.terms)


@functools.cache
def parameters() -> Parameters:
    """The fitted parameters, read once per process."""
    return parameters_from(json.loads(PARAMETERS_FILE.read_text()))


def term_shares() -> dict[str, float]:
    """How much the learned term and each measured term count (0–1, by key), for the
    pages that say so."""
    fitted = parameters()
    return {key: fitted.share(key) for key in (IMPRESSION, *(term.key for term in TERMS))}


def counted_terms(fitted: Parameters | None = None) -> tuple[Term, ...]:
    """The measured terms the fit kept, in ``TERMS``' order."""
    fitted = fitted or parameters()
    return tuple(term for term in TERMS if term.key in fitted.terms)


def parameters_from(data: dict) -> Parameters:
    model, reference = data["model"], data["reference"]
    return Parameters(
        intercept=float(model["intercept"]),
        terms={
            key: Fitted(
                mean=float(term["mean"]),
                sd=float(term["sd"]),
                weight=float(term["weight"]),
                low=float(term["low"]),
                high=float(term["high"]),
                typical=(float(term["typical"][0]), float(term["typical"][1])),
            )
            for key, term in model["terms"].items()
        },
        learned=Learned(
            weights=np.array(model["learned"]["weights"], dtype=np.float64),
            offset=float(model["learned"]["offset"]),
            low=float(model["learned"].get("low", -math.inf)),
            high=float(model["learned"].get("high", math.inf)),
        ),
        contribution_sd={
            key: float(value) for key, value in reference.get("contribution_sd", {}).items()
        },
        reference_mean=float(reference["mean"]),
        reference_sd=float(reference["sd"]),
        reference_best=float(reference["best"]),
        reference_top=float(reference.get("top_1_percent", TOP_1_PERCENT)),
        part_mean={part: float(mean) for part, mean in reference["part_mean"].items()},
        part_sd={part: float(sd) for part, sd in reference["part_sd"].items()},
    )


@dataclass(frozen=True)
class Prediction:
    """A face's predicted rating, and what each term and part added to it."""

    rating: float
    contributions: dict[str, float]
    values: dict[str, float]

    def part(self, part: str) -> float:
        """The contributions of the terms of a breakdown part."""
        return sum(value for key, value in self.contributions.items() if part_of(key) == part)


def part_of(key: str) -> str:
    """The breakdown part a term counts towards."""
    if key == IMPRESSION:
        return IMPRESSION_PART
    return next(term.part for term in TERMS if term.key == key)


def standardised(term: Term, value: float, fitted: Fitted) -> float:
    """The term's value in standard deviations of the rated faces, held to its range."""
    held = min(max(value, fitted.low), fitted.high)
    level = math.log(held) if term.logarithmic else held
    return (level - fitted.mean) / fitted.sd


def predict(
    values: dict[str, float],
    descriptor: np.ndarray,
    trust: dict[str, float] | None = None,
    precision: dict[str, float] | None = None,
    fitted: Parameters | None = None,
) -> Prediction:
    """The predicted rating of a face whose descriptor is ``descriptor`` and whose terms
    read ``values`` (with ``fitted``, or the committed parameters).

    The learned term takes its precision under the key ``IMPRESSION``.
    ``trust`` (0–1 per term, 1 by default) is how much the face's pose lets a term tell
    about the face (parted lips make its length count less): the rest counts as an
    average face's. ``precision`` (0–1, 1 by default) is how precisely the photo shows
    it: the rest counts as the least favourable value the term is held to, so an
    unclear photo is given no benefit of the doubt, and a less clear copy of a photo
    cannot score higher.
    """
    fitted = fitted or parameters()
    trust, precision = trust or {}, precision or {}
    # The learned term as far as the photo shows the face: the rest counts as the least
    # favourable contribution it is held to.
    sure = precision.get(IMPRESSION, 1.0)
    learned = fitted.learned
    contributions = {
        IMPRESSION: sure * learned.contribution(descriptor) + (1.0 - sure) * learned.low
    }
    for term in counted_terms(fitted):
        position = trust.get(term.key, 1.0) * standardised(
            term, values[term.key], fitted.terms[term.key]
        )
        weight = fitted.terms[term.key].weight
        sure = precision.get(term.key, 1.0)
        # In SDs on the favourable side.
        side = 1.0 if weight >= 0 else -1.0
        worst = min(
            side * standardised(term, bound, fitted.terms[term.key])
            for bound in (fitted.terms[term.key].low, fitted.terms[term.key].high)
        )
        good = sure * side * position + (1.0 - sure) * worst
        contributions[term.key] = abs(weight) * good
    rating = fitted.intercept + sum(contributions.values())
    return Prediction(rating, contributions, dict(values))


def standing(rating: float, fitted: Parameters | None = None) -> float:
    """Where a predicted rating falls among ordinary people (reference SDs from its mean)."""
    fitted = fitted or parameters()
    return (rating - fitted.reference_mean) / fitted.reference_sd


def part_standing(prediction: Prediction, part: str) -> float:
    """Where a part's contribution falls among the reference's (SDs from their mean)."""
    fitted = parameters()
    return (prediction.part(part) - fitted.part_mean[part]) / fitted.part_sd[part]


def scaled(position: float, fitted: Parameters | None = None) -> float:
    """The 1–10 score (one decimal) for a standing: ``SCALE`` between its knots, on its
    end slopes beyond them, never above 9.9 short of the world record, exactly 10 from
    ``record_standing``."""
    if position >= (fitted or parameters()).record_standing:
        return 10.0
    knots = knots_for(fitted or parameters())
    if position <= knots[0][0]:
        (x0, y0), (x1, y1) = knots[0], knots[1]
    elif position >= knots[-1][0]:
        (x0, y0), (x1, y1) = knots[-2], knots[-1]
    else:
        index = next(i for i in range(1, len(knots)) if position <= knots[i][0])
        (x0, y0), (x1, y1) = knots[index - 1], knots[index]
    score = y0 + (y1 - y0) * (position - x0) / (x1 - x0)
    return one_decimal(min(score, BELOW_THE_RECORD), LOWEST_SCORE, BELOW_THE_RECORD)


def knots_for(fitted: Parameters) -> tuple[tuple[float, float], ...]:
    """``SCALE`` with its top-1% knot where the reference population's top 1% starts,
    when that is beyond a normal population's: the tier says "top 1%" truly on people."""
    top = max(TOP_1_PERCENT, fitted.reference_top)
    if top == TOP_1_PERCENT:
        return SCALE
    below = tuple(knot for knot in SCALE if knot[0] < TOP_1_PERCENT)
    return (*below, (top, SCALE[-2][1]), (max(TOP_0_01_PERCENT, top + 1.0), SCALE[-1][1]))


def overall_score(prediction: Prediction, nudge: float = 0.0) -> float:
    """The 1–10 score: the person's standing, moved by the photo's ``nudge`` (SDs)."""
    return scaled(standing(prediction.rating) + nudge)


def part_score(prediction: Prediction, part: str) -> float:
    """A breakdown bar (0–10) for a part the model counts: its standing on the same scale."""
    return min(scaled(part_standing(prediction, part)), BELOW_THE_RECORD)
