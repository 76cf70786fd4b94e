"""Fairness and robustness: the same face, photographed differently, keeps its score.

A metamorphic suite on openly licensed real faces (``corpus.py``: the astronaut, Grace
Hopper's portrait from matplotlib, four head-and-shoulders portraits from the
``face_recognition`` 1.3.0 sdist, mahotas' portrait of its author, turned 25°, and the
LFW faces of scikit-image). Each photo is changed as a camera, the light or an editor
changes it: only the face darker or lighter (CIELAB L* × 0.45–1.3 inside a soft mask of
the face: a darker or lighter skin on the same features), colour casts, exposure ±1
stop, JPEG quality 40, 640 and 4000 pixels on the long side, a roll of ±10°. The
portraits are also measured shrunk so each face is 110, 90 and 75 pixels wide
(``SMALL_FACE_WIDTHS``): the same faces in a full-length or distant photo, sharp, where
the LFW faces are soft.

Targets, per transform: nearly every face measured (90%), none lost (short of a face in
deep shadow refused as too dark); the score moves ≤ 0.3 in median and ≤ 0.5 at most. A
worse photo (blur, noise, enlargement, strong compression) is measured on nearly every
face too, and never scores higher, beyond a jitter of 0.3. At least 95% of the LFW
faces are scored at all. ``KNOWN_MISSES`` lists where the engine does
not meet a target yet, with the figures measured: those run as strict xfails, so the
day the engine meets the target the test says so.

Every row is measured once and cached (``row``) for all the checks on it; the file runs
on one pytest-xdist worker, so no row is measured twice. The score distribution and the
tiers reached are printed on the terminal (stderr, so they show in ``make test`` without
``-s``, also from a pytest-xdist worker). The tables themselves are a benchmark,
``tests/perf/test_bench_fairness.py`` (``make bench``); the same tables for any engine:
``scripts/fairness_table.py``.
"""

from __future__ import annotations

import functools
import statistics
import sys

import pytest

from prettyscore.analysis import tiers
from prettyscore.analysis.engines import face_score
from prettyscore.analysis.engines.face_mesh import FaceMeshEngine
from prettyscore.core import messages
from tests.analysis.model_faces import descriptor_contributing
from tests.fixtures import corpus

# One worker measures every row once, for all the checks on it.
pytestmark = pytest.mark.xdist_group("fairness")

# The transform table uses the first 20 LFW faces (all 100 take too long for every
# test run); the distribution uses all 100.
LFW_SAMPLE = 20
MEDIAN_TARGET = 0.3
MAX_TARGET = 0.5
RISE_JITTER = 0.3
MIN_LFW_SCORED = 0.95
# Of the faces scored as they are, the share each change must leave measured.
MEASURED_SHARE = 0.9
# A face in deep shadow may be refused, as too dark (and only so).
UNDER_EXPOSED = "face L* × 0.45"

# The small sets: the portraits with their face this wide (pixels). The LFW faces are
# about as wide (92–140 pixels), enlarged from 25: these are as small, but sharp. The
# smallest is not far above the smallest face measured (``face_mesh.MIN_FACE_WIDTH``).
SMALL_FACE_WIDTHS = {"small-110": 110, "small-90": 90, "small-75": 75}
SETS = ("portraits", "lfw", *SMALL_FACE_WIDTHS)
TABLES = {"transform": corpus.TRANSFORMS, "quality": corpus.QUALITY}

# Where the engine misses a target today, as measured (the LFW faces meet every target).
# An entry makes that case a strict xfail, to be removed once the engine meets the
# target. Keys: (check, set, transform).
#
# The astronaut, the lightest skin of the corpus, made 30% lighter or one stop brighter:
# her cheeks clip white, so her skin is read on what stays visible, her forehead, which
# is less even than her cheeks (5.9% of the light against 3.4–4.3%), and her score drops
# when her photo is one stop brighter (her clipped photo also takes the light's part of
# the score off). Made 30% lighter, or one stop brighter with her face 110 or 75 pixels
# wide, she now keeps her score within 0.5: the learned term, trained on the rated faces
# in other light, steadies it.
_CLIPPED_CHEEKS = "the astronaut's cheeks clip white: her score moves"
KNOWN_MISSES: dict[tuple[str, str, str], str] = {
    ("moves", "portraits", "exposure +1 stop"): f"{_CLIPPED_CHEEKS} −0.6",
    ("moves", "small-90", "exposure +1 stop"): f"{_CLIPPED_CHEEKS} −0.8",
}


@functools.cache
def engine() -> FaceMeshEngine:
    return FaceMeshEngine()


def analyse(image):
    return engine().analyse(image)


@functools.cache
def faces(name: str) -> tuple[corpus.Photo, ...]:
    if name == "portraits":
        return tuple(corpus.portraits())
    if name in SMALL_FACE_WIDTHS:
        pixels = SMALL_FACE_WIDTHS[name]
        return tuple(corpus.with_face_width(analyse, faces("portraits"), pixels))
    return tuple(corpus.lfw_faces(LFW_SAMPLE))


@functools.cache
def all_lfw_scores() -> dict[str, float | str]:
    return corpus.baseline(analyse, corpus.lfw_faces())


@functools.cache
def before(name: str) -> dict[str, float | str]:
    if name == "lfw":
        return {photo.name: all_lfw_scores()[photo.name] for photo in faces(name)}
    return corpus.baseline(analyse, faces(name))


@functools.cache
def row(name: str, table: str, transform: str) -> corpus.Row:
    changes = {transform: TABLES[table][transform]}
    return corpus.measured(analyse, faces(name), changes, before(name))[0]


def report(text: str, capsys: pytest.CaptureFixture) -> None:
    with capsys.disabled():
        print("\n" + text + "\n", file=sys.stderr, flush=True)


def slug(text: str) -> str:
    for sign, word in (("×", "x"), ("−", "-"), ("°", "deg"), ("σ", "sigma"), ("*", "")):
        text = text.replace(sign, word)
    return "-".join(text.replace("(", "").replace(")", "").split())


def cases(check: str, table: str) -> list:
    """Every set × transform of ``table``, the known misses of ``check`` as strict xfails."""
    params = []
    for name in SETS:
        for transform in TABLES[table]:
            miss = KNOWN_MISSES.get((check, name, transform))
            reason = f"known miss, measured: {miss}"
            marks = (
                [pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason)]
                if miss
                else []
            )
            params.append(
                pytest.param(name, transform, marks=marks, id=f"{name}-{slug(transform)}")
            )
    return params


# ---------------------------------------------------------------------------
# The corpus
# ---------------------------------------------------------------------------
def test_every_portrait_is_scored_as_it_is():
    scores = before("portraits")
    assert tuple(photo.name for photo in faces("portraits")) == corpus.PORTRAIT_NAMES
    refused = {name: score for name, score in scores.items() if not isinstance(score, float)}
    assert not refused


@pytest.mark.parametrize("name", SMALL_FACE_WIDTHS)
def test_every_portrait_is_scored_with_its_face_small(name):
    """A face 110, 90 or 75 pixels wide (a full-length photo's, or one far from the
    camera) is found and measured, not refused as too small."""
    scores = before(name)
    refused = {face: score for face, score in scores.items() if not isinstance(score, float)}
    assert len(scores) == len(corpus.PORTRAIT_NAMES)
    assert not refused


def test_nearly_every_lfw_face_is_scored():
    scores = all_lfw_scores()
    scored = [score for score in scores.values() if isinstance(score, float)]
    assert len(scored) >= MIN_LFW_SCORED * len(scores)


# ---------------------------------------------------------------------------
# The tables
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "table", "transform"),
    [
        pytest.param(name, table, transform, id=f"{name}-{table}-{slug(transform)}")
        for name in SETS
        for table in TABLES
        for transform in TABLES[table]
    ],
)
def test_nearly_every_face_is_measured_after_each_change(name, table, transform):
    """Every change, as the camera, the light or an editor makes it, and every worse
    photo, is measured on at least 90% of the faces scored as they are (all 20 LFW faces
    today). The tables: ``tests/perf/test_bench_fairness.py``."""
    measured = row(name, table, transform)
    assert measured.faces >= MEASURED_SHARE * len(faces(name)), dict(measured.refusals)


@pytest.mark.parametrize(("name", "transform"), cases("found", "transform"))
def test_no_face_is_lost(name, transform):
    measured = row(name, "transform", transform)
    refusals = dict(measured.refusals)
    if transform == UNDER_EXPOSED:
        refusals.pop(messages.FACE_TOO_DARK, None)
    assert not refusals, f"lost {measured.lost}: {refusals}"


# The most turned faces of the LFW subset (measured turn 28.6° and 29.7°).
TURNED_FACES = ("lfw-47", "lfw-75")


@pytest.mark.parametrize("name", TURNED_FACES)
def test_a_face_turned_as_far_as_the_corpus_goes_is_never_lost(name):
    """A change of light, colour, size or compression moves a soft face's measured turn
    by a degree or two: a slightly turned face must not be refused as "face the camera"
    in one copy of its photo and scored in the next."""
    photo = next(photo for photo in corpus.lfw_faces() if photo.name == name)
    changes = {**corpus.TRANSFORMS, **corpus.QUALITY}
    changes.pop(UNDER_EXPOSED)
    rows = corpus.measured(analyse, [photo], changes, {name: all_lfw_scores()[name]})
    lost = {row.transform: dict(row.refusals) for row in rows if row.lost}
    assert not lost, lost


@pytest.mark.parametrize(("name", "transform"), cases("moves", "transform"))
def test_the_score_barely_moves(name, transform):
    measured = row(name, "transform", transform)
    far = {face: change for face, change in measured.changes.items() if abs(change) > MAX_TARGET}
    assert measured.median_change <= MEDIAN_TARGET
    assert measured.max_change <= MAX_TARGET, f"moved more than {MAX_TARGET}: {far}"


@pytest.mark.parametrize(("name", "transform"), cases("rises", "quality"))
def test_a_worse_photo_never_scores_higher(name, transform):
    measured = row(name, "quality", transform)
    risen = {face: change for face, change in measured.changes.items() if change > RISE_JITTER}
    assert not risen, f"scored higher: {risen}"


def test_grain_a_large_face_shows_through_barely_moves_its_score():
    """The White House portraits' faces are over twice the measuring width: the shrink
    to it averages a grain of 8 grey levels down to under 3, which hides neither the
    skin nor the features. (The astronaut's face, 91 pixels wide, is measured through
    all of it, and scores lower.)"""
    measured = row("portraits", "quality", "noise σ 8")
    large = {
        name: change for name, change in measured.changes.items() if name in corpus.PORTRAIT_CROPS
    }
    assert len(large) == len(corpus.PORTRAIT_CROPS)
    assert max(abs(change) for change in large.values()) <= MAX_TARGET, large


# ---------------------------------------------------------------------------
# The distribution
# ---------------------------------------------------------------------------
def test_the_scores_spread_over_the_tiers(capsys):
    """The LFW faces are soft thumbnails (25 pixels enlarged): their skin and proportions
    cannot be seen clearly, and they get no benefit of the doubt, so every one scores
    below the sharp portraits' middle; the portraits spread over the tiers by their
    skin, eyes and face shape (their share among ordinary people:
    ``test_agreement.py``)."""
    lfw = [score for score in all_lfw_scores().values() if isinstance(score, float)]
    portraits = [score for score in before("portraits").values() if isinstance(score, float)]
    scores = lfw + portraits

    def label(score: float) -> str:
        return tiers.tier_for(score).label

    report(
        corpus.distribution(
            f"Scores of {len(lfw)} LFW faces and {len(portraits)} portraits", scores, label
        ),
        capsys,
    )
    assert max(lfw) < statistics.median(portraits)
    assert len({label(score) for score in portraits}) >= 2
    assert max(scores) - min(scores) >= 3.0


def test_every_tier_is_reached_by_some_face(capsys):
    """The whole scale is in use: a face whose every term goes from the least to the most
    favourable value the model holds it to passes through every tier of the documents'
    table, exactly 10 at the very end (a face far beyond the best reference face,
    ``test_calibration.py``); the portraits, as they are and as the suite changes them,
    land in the lower tiers, the table prints the best score each reached."""
    fitted = face_score.parameters()
    reached_by_terms = set()
    for step in range(101):
        values = {}
        for term in face_score.TERMS:
            low, high = fitted.terms[term.key].low, fitted.terms[term.key].high
            worst, best = (low, high) if term.higher_is_better else (high, low)
            values[term.key] = worst + (best - worst) * step / 100
        # The learned term from 4 reference spreads below its mean to 4 above.
        spread = fitted.contribution_sd[face_score.IMPRESSION]
        learned = descriptor_contributing(spread * (-4.0 + 8.0 * step / 100))
        score = face_score.overall_score(face_score.predict(values, learned))
        reached_by_terms.add(tiers.tier_for(score).label)
    scores = before("portraits")
    scored = list(scores.items()) + [
        (f"{name}, {transform}", round(scores[name] + change, 1))
        for table, changes in TABLES.items()
        for transform in changes
        for name, change in row("portraits", table, transform).changes.items()
    ]
    reached: dict[str, list[tuple[str, float]]] = {}
    for where, score in scored:
        reached.setdefault(tiers.tier_for(score).label, []).append((where, score))
    lines = ["Tiers reached by the portraits and their changed copies"]
    for tier in tiers.TIERS:
        found = sorted(reached.get(tier.label, []), key=lambda each: -each[1])
        best = f"{found[0][0]} {found[0][1]:.1f}" if found else "none"
        lines.append(f"  {tier.label:24s} {len(found):3d}   best: {best}")
    report("\n".join(lines), capsys)
    assert reached_by_terms == {tier.label for tier in tiers.TIERS}
