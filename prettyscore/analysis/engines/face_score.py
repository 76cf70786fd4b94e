"""The score people would give a face: a small model fitted on rated faces, and its scale.

Three measures predict how attractive people find a face, tested on the London Set
(102 adults of several ethnic backgrounds, each rated by 2,513 people): how even the
skin is against the light on it, how open the eyes are, and how long the face is for
its width. Each is a ``Term``; the model is their weighted sum, each term standardised
over the rated faces, which predicts a face's mean rating (1–7). The weights and the
standardisation are fitted by ``scripts/fit_score.py`` and kept as data beside this
module (``face_score.json``); the script's report, with the held-out agreement and
every group's gap, is ``docs/analysis/score-fit.txt``.

The predicted rating is then placed on the documents' 1–10 scale by where it falls
among ordinary people: the reference population (the London and Canada sets, 142
studio photos) gives its mean and spread, and ``SCALE`` maps a face's standing to a
score. The middle is generous, as an entertainment app's should be: a typical face
scores 7.5 ("Beautiful"); the top is honest: 9.5 ("Elite Beauty", "top 1%") needs a
face in the top 1% of people, 9.9 the top 0.01%, and exactly 10 ("World Record") a face
that beats every reference face by a clear margin.

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

from prettyscore.analysis.engines.base import BREAKDOWN_KEYS, one_decimal

SYMMETRY, SKIN, HARMONY = BREAKDOWN_KEYS

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
        "eye_openness",
        HARMONY,
        "Eye openness",
        "{name}: lids {value} of face width apart (typical {low}–{high})",
        "more open eyes raise your score",
        digits=3,
        higher_is_better=True,
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
class Parameters:
    """What ``scripts/fit_score.py`` fitted (``face_score.json``)."""

    intercept: float
    terms: dict[str, Fitted]
    reference_mean: float
    reference_sd: float
    reference_best: float
    part_mean: dict[str, float]
    part_sd: dict[str, float]

    @property
    def record_standing(self) -> float:
        """The standing from which a face scores exactly 10."""
        best = (self.reference_best - self.reference_mean) / self.reference_sd
        return max(RECORD_AT_LEAST, best + RECORD_MARGIN)

    def share(self, key: str) -> float:
        """How much a term counts: its share of the weights (terms are standardised)."""
        total = sum(abs(fitted.weight) for fitted in self.terms.values())
        return abs(self.terms[key].weight) / total


@functools.cache
def parameters() -> Parameters:
    """The fitted parameters, read once per process."""
    return parameters_from(json.loads(PARAMETERS_FILE.read_text()))


def term_shares() -> dict[str, float]:
    """How much each term counts (0–1, by key), for the pages that say so."""
    fitted = parameters()
    return {term.key: fitted.share(term.key) for term in TERMS}


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
        reference_mean=float(reference["mean"]),
        reference_sd=float(reference["sd"]),
        reference_best=float(reference["best"]),
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
        return sum(self.contributions[t.key] for t in TERMS if t.part == part)


def standardised(term: Term, value: float, fitted: Fitted) -> float:
    """The term's value in standard deviations of the rated faces, held to its range."""
    held = min(max(value, fitted.low), fitted.high)
    level = math.log(held) if term.logarithmic else held
    return (level - fitted.mean) / fitted.sd


def predict(
    values: dict[str, float],
    trust: dict[str, float] | None = None,
    precision: dict[str, float] | None = None,
    fitted: Parameters | None = None,
) -> Prediction:
    """The predicted rating of a face whose terms read ``values`` (with ``fitted``, or
    the committed parameters).

    ``trust`` (0–1 per term, 1 by default) is how much the face's pose lets a term tell
    about the face (parted lips make its length count less): the rest counts as an
    average face's. ``precision`` (0–1, 1 by default) is how precisely the photo shows
    it: the rest counts as the least favourable value the term is held to, so an
    unclear photo is given no benefit of the doubt, and a less clear copy of a photo
    cannot score higher.
    """
    fitted = fitted or parameters()
    trust, precision = trust or {}, precision or {}
    contributions = {}
    for term in TERMS:
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


def standing(rating: float) -> float:
    """Where a predicted rating falls among ordinary people (reference SDs from its mean)."""
    fitted = parameters()
    return (rating - fitted.reference_mean) / fitted.reference_sd


def part_standing(prediction: Prediction, part: str) -> float:
    """Where a part's contribution falls among the reference's (SDs from their mean)."""
    fitted = parameters()
    return (prediction.part(part) - fitted.part_mean[part]) / fitted.part_sd[part]


def scaled(position: float) -> float:
    """The 1–10 score (one decimal) for a standing: ``SCALE`` between its knots, on its
    end slopes beyond them, never above 9.9 short of the world record, exactly 10 from
    ``record_standing``."""
    if position >= parameters().record_standing:
        return 10.0
    knots = SCALE
    if position <= knots[0][0]:
        (x0, y0), (x1, y1) = knots[0], knots[1]
    elif position >= knots[-1][0]:
        (x0, y0), (x1, y1) = knots[-2], knots[-1]
    else:
        index = next(i for i in range(1, len(knots)) if position <= knots[i][0])
        (x0, y0), (x1, y1) = knots[index - 1], knots[index]
    score = y0 + (y1 - y0) * (position - x0) / (x1 - x0)
    return one_decimal(min(score, BELOW_THE_RECORD), LOWEST_SCORE, BELOW_THE_RECORD)


def overall_score(prediction: Prediction) -> float:
    return scaled(standing(prediction.rating))


def part_score(prediction: Prediction, part: str) -> float:
    """A breakdown bar (0–10) for a part the model counts: its standing on the same scale."""
    return min(scaled(part_standing(prediction, part)), BELOW_THE_RECORD)
