"""Fit the face score to people's ratings, openly: anyone can re-run it.

    PYTHONPATH=. .venv/bin/python scripts/fit_score.py           # fit, write, report
    PYTHONPATH=. .venv/bin/python scripts/fit_score.py --check   # fit, compare, write nothing

The rated faces are the London Set (102 adults of several ethnic backgrounds, each face
rated for attractiveness by 2,513 people, 1–7), in ``tests/fixtures/faces/`` (CC BY
4.0, see its LICENSE.md); the reference population for the 1–10 scale adds the Canada
set (40 more ordinary adults, not rated). Every photo is analysed by the engine as an
upload is, and the model's terms are read from its measures
(``face_calibration.term_values``): training and use compute them the same way.

What it does:

1. **Candidates**: each measure the literature says may predict attractiveness
   (skin evenness, the eyes, the face's length, averageness and sexual dimorphism of
   the landmarks' shape, symmetry, the classic proportions), with its Spearman
   correlation with the rating, overall and within each sex, and its mean per ethnic
   group (in SDs): what was tested, and why a term was kept or left out.
2. **Nested cross-validation** of the model: a ridge regression on the face
   descriptor's 128 numbers (``face_descriptor``), with the measured terms of
   ``face_score.TERMS`` that add agreement. Which terms join, and the two penalties
   (one for the descriptor, one for the terms), are chosen inside each training fold
   by its own inner cross-validation, on the mean of the Spearman correlations overall
   and within each sex; the outer folds (10, stratified by sex, repeated with 10
   shuffles) never see a choice made on them. The held-out predictions give the
   Spearman correlation with people's ratings, overall and within each sex, and each
   ethnic group's and sex's gap (z of the prediction minus z of the rating).
3. **The same person**: the London sitters photographed again smiling (50), each
   sitter's two photos predicted by a model whose training folds left the sitter out,
   and the eight everyday photos of one person (``same_person/``): the spread of one
   person's scores as a share of the spread across people.
4. **The model** chosen and fitted on all 102 faces, and the reference population's
   spread of predicted ratings, written to
   ``prettyscore/analysis/engines/face_score.json``; the report, with the tiers' shares
   and the parameter count, to ``docs/analysis/score-fit.txt``.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path

# The fit is thousands of small ridge regressions: one thread each is three times faster
# on two cores than OpenBLAS spreading every small product over all of them (set before
# numpy starts its threads).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from PIL import Image
from scipy.stats import spearmanr

from prettyscore.analysis.engines import face_calibration, face_descriptor, face_photo, face_score
from prettyscore.analysis.engines import face_mesh_points as fp
from prettyscore.analysis.engines.face_mesh import FaceMeshEngine, face_box
from prettyscore.core.errors import ValidationFailed
from tests.fixtures import corpus

ROOT = Path(__file__).resolve().parents[1]
FACES = ROOT / "tests" / "fixtures" / "faces"
PARAMETERS = face_score.PARAMETERS_FILE
REPORT = ROOT / "docs" / "analysis" / "score-fit.txt"

# Copies of each rated photo in other light, used in training only, each with its
# original's rating: the learned term is fitted to read the same face in any light (the
# descriptor moves with the light on the face; without them, a face darkened alone moved
# the score by up to 0.6). Their factors differ from the fairness suite's, which judges
# the result on other faces.
AUGMENTATIONS = {
    "face L* × 0.55": corpus.face_lightness(0.55),
    "face L* × 1.2": corpus.face_lightness(1.2),
    "exposure −0.7 stop": corpus.exposure(-0.7),
    "exposure +0.7 stop": corpus.exposure(0.7),
}
# Ridge penalties tried inside the folds: on the descriptor's standardised numbers, and
# on the standardised measured terms.
DESCRIPTOR_ALPHAS = (100.0, 200.0, 400.0, 800.0, 1600.0)
TERM_ALPHAS = (5.0, 30.0)
# The penalty of the forward selection among candidates (a small model of scalars).
RIDGE_ALPHA = 5.0
FOLDS = 10
SHUFFLES = 10
# The groups whose gaps are reported and bounded (the London Set's groups of 9 or more).
GROUPS = ("white", "black", "west_asian", "east_asian")
MIN_GROUP = 9
# Numbers are kept to this many significant digits, so a re-run gives the same file.
DIGITS = 6
# The candidates' measures (engine keys) and which way is "better" for the table.
CANDIDATE_MEASURES = (
    "asymmetry",
    "eye_spacing",
    "eye_gap",
    "thirds",
    "lip_chin",
    "mouth_nose",
    "brows_lips_nose",
    "eye_tilt",
    "grain",
    "sharpness",
)
# The landmarks whose shape averageness and dimorphism are read on: the outlines of the
# face, eyes, brows, nose and lips.
SHAPE_POINTS = sorted(
    set(
        fp.FACE_OVAL
        + fp.RIGHT_EYE
        + fp.LEFT_EYE
        + fp.RIGHT_BROW
        + fp.LEFT_BROW
        + fp.NOSE
        + fp.LIPS_OUTER
        + fp.IRIS_PAIR
    )
)


# ---------------------------------------------------------------------------
# The faces
# ---------------------------------------------------------------------------
class Faces:
    """The analysed faces: each one's terms, raw measures, frontal shape, landmarks and
    descriptor."""

    def __init__(self, names, analysed_, ratings=None, sex=None, ethnicity=None, variants=()):
        self.names = names
        self.terms, self.measures, self.shapes, self.points, self.descriptors = analysed_
        self.ratings = ratings
        self.sex = sex
        self.ethnicity = ethnicity
        # The same faces in other light (``AUGMENTATIONS``), for training only.
        self.variants = variants
        self.designs: dict[tuple[str, ...], np.ndarray] = {}

    def column(self, key: str) -> np.ndarray:
        return np.array([terms[key] for terms in self.terms])

    def measure(self, key: str) -> np.ndarray:
        return np.array([measures[key] for measures in self.measures])


def analysed(paths: list[Path]):
    """Each photo's terms, measures, frontal outline shape, landmarks (photo pixels) and
    descriptor."""
    engine = FaceMeshEngine()
    terms, measures, shapes, points, descriptors = [], [], [], [], []
    for path in paths:
        with Image.open(path) as photo:
            pixels = np.array(photo.convert("RGB"))
        measured = engine.measure(pixels)
        measures.append(measured.measures)
        terms.append(face_calibration.term_values(measured.measures))
        # The outlines, levelled and turned to the camera (face widths).
        shapes.append(measured.frame.frontal(measured.points)[SHAPE_POINTS, :2])
        points.append(measured.points[:, :2])
        descriptors.append(measured.descriptor)
    return terms, measures, np.array(shapes), np.array(points), np.array(descriptors)


def london() -> Faces:
    with open(FACES / "london" / "ratings.csv", newline="") as table:
        rows = list(csv.DictReader(table))
    paths = [FACES / "london" / row["file"] for row in rows]
    faces = analysed(paths)
    return Faces(
        [row["file"] for row in rows],
        faces,
        ratings=np.array([float(row["mean_rating"]) for row in rows]),
        sex=np.array([row["face_sex"] for row in rows]),
        ethnicity=np.array([row["face_eth"] for row in rows]),
        variants=[relit(paths, faces, name) for name in AUGMENTATIONS],
    )


def relit(paths: list[Path], originals, augmentation: str) -> Faces:
    """The photos changed by one of ``AUGMENTATIONS`` and analysed; a copy the engine
    refuses (too dark, say) keeps its original's figures."""
    engine = FaceMeshEngine()
    change = AUGMENTATIONS[augmentation]
    figures = [list(column) for column in originals]
    for index, path in enumerate(paths):
        with Image.open(path) as photo:
            pixels = np.array(photo.convert("RGB"))
        box = face_box(originals[3][index])
        try:
            measured = engine.measure(change(corpus.Photo(path.name, pixels, box)))
        except ValidationFailed:
            continue
        figures[0][index] = face_calibration.term_values(measured.measures)
        figures[1][index] = measured.measures
        figures[4][index] = measured.descriptor
    return Faces(
        [path.name for path in paths], (figures[0], figures[1], None, None, np.array(figures[4]))
    )


def canada() -> Faces:
    return unrated("canada")


def unrated(folder: str) -> Faces:
    paths = sorted((FACES / folder).glob("*.jpg"))
    return Faces([path.name for path in paths], analysed(paths))


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Choice:
    """What the inner cross-validation chooses: the measured terms that join the
    descriptor (keys of ``face_score.TERMS``) and the two ridge penalties."""

    terms: tuple[str, ...]
    descriptor_alpha: float
    term_alpha: float


ALL_TERMS = tuple(term.key for term in face_score.TERMS)


def choices() -> list[Choice]:
    keys = list(ALL_TERMS)
    subsets = [
        tuple(key for index, key in enumerate(keys) if mask >> index & 1)
        for mask in range(2 ** len(keys))
    ]
    return [
        Choice(subset, descriptor_alpha, term_alpha)
        for subset in subsets
        for descriptor_alpha in DESCRIPTOR_ALPHAS
        for term_alpha in (TERM_ALPHAS if subset else TERM_ALPHAS[:1])
    ]


def term_levels(faces: Faces, keys: tuple[str, ...]) -> np.ndarray:
    """The terms as the model standardises them (the logarithm of a logarithmic one)."""
    columns = []
    for term in face_score.TERMS:
        if term.key in keys:
            values = faces.column(term.key)
            columns.append(np.log(values) if term.logarithmic else values)
    return np.column_stack(columns) if columns else np.zeros((len(faces.names), 0))


def design(faces: Faces, choice: Choice) -> np.ndarray:
    """The model's columns: the descriptor's 128 numbers, then the chosen terms (built
    once per set of faces and terms: the cross-validation asks for them many times)."""
    built = faces.designs.get(choice.terms)
    if built is None:
        built = np.column_stack([faces.descriptors, term_levels(faces, choice.terms)])
        faces.designs[choice.terms] = built
    return built


@dataclass(frozen=True)
class Model:
    """A fitted model: its columns' means and SDs, intercept and weights."""

    choice: Choice
    means: np.ndarray
    sds: np.ndarray
    intercept: float
    weights: np.ndarray

    def predict(self, columns: np.ndarray) -> np.ndarray:
        return self.intercept + ((columns - self.means) / self.sds) @ self.weights


def ridge(design_: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
    """Intercept and weights of a ridge regression (``RIDGE_ALPHA``) on standardised
    columns: the forward selection's small model of scalars."""
    with_ones = np.column_stack([np.ones(len(design_)), design_])
    penalty = RIDGE_ALPHA * np.eye(with_ones.shape[1])
    penalty[0, 0] = 0.0
    solution = np.linalg.solve(with_ones.T @ with_ones + penalty, with_ones.T @ target)
    return float(solution[0]), solution[1:]


def scalar_fit(columns: np.ndarray, ratings: np.ndarray):
    means, sds = columns.mean(axis=0), columns.std(axis=0)
    intercept, weights = ridge((columns - means) / sds, ratings)
    return means, sds, intercept, weights


def scalar_predicted(columns, means, sds, intercept, weights) -> np.ndarray:
    return intercept + ((columns - means) / sds) @ weights


def folds(sex: np.ndarray, seed: int) -> np.ndarray:
    """Each face's fold: 10 folds, each sex spread evenly over them."""
    generator = np.random.default_rng(seed)
    assignment = np.zeros(len(sex), dtype=int)
    for value in sorted(set(sex)):
        members = np.flatnonzero(sex == value)
        generator.shuffle(members)
        assignment[members] = np.arange(len(members)) % FOLDS
    return assignment


def criterion(prediction: np.ndarray, ratings: np.ndarray, sex: np.ndarray) -> float:
    """What the inner folds maximise: the mean of the Spearman correlations overall and
    within each sex (a model must order women and men each, not only tell them apart)."""
    figures = [spearmanr(prediction, ratings)[0]]
    for value in sorted(set(sex)):
        inside = sex == value
        figures.append(spearmanr(prediction[inside], ratings[inside])[0])
    return float(np.mean(figures))


def trained(faces: Faces, rows: np.ndarray, choice: Choice) -> Model:
    """The model fitted on ``rows`` (London indices) and their copies in other light."""
    return NormalEquations(faces, rows).model(choice)


class NormalEquations:
    """A ridge regression's sums over every column of the full design (the descriptor and
    all the terms) on one training set and its copies in other light; each choice's model
    (the standardised columns, the descriptor's numbers and the terms each with their own
    penalty) is solved from their sub-blocks. A column's standardisation and its products
    with another do not depend on which other columns are chosen, so the inner
    cross-validation builds them once per training set instead of once per choice."""

    def __init__(self, faces: Faces, rows: np.ndarray):
        everything = Choice(ALL_TERMS, 0.0, 0.0)
        columns = np.vstack(
            [design(faces, everything)[rows]]
            + [design(copy, everything)[rows] for copy in faces.variants]
        )
        ratings = np.tile(faces.ratings[rows], 1 + len(faces.variants))
        self.means, sds = columns.mean(axis=0), columns.std(axis=0)
        self.sds = np.where(sds > 0, sds, 1.0)
        with_ones = np.column_stack([np.ones(len(columns)), (columns - self.means) / self.sds])
        self.products = with_ones.T @ with_ones
        self.moments = with_ones.T @ ratings

    def model(self, choice: Choice) -> Model:
        kept = face_descriptor.LENGTH + np.array(
            [index for index, key in enumerate(ALL_TERMS) if key in choice.terms], dtype=int
        )
        columns = np.r_[np.arange(face_descriptor.LENGTH), kept]
        rows = np.r_[0, 1 + columns]
        penalty = np.diag(
            np.r_[
                0.0,
                np.full(face_descriptor.LENGTH, choice.descriptor_alpha),
                np.full(len(kept), choice.term_alpha),
            ]
        )
        solution = np.linalg.solve(self.products[np.ix_(rows, rows)] + penalty, self.moments[rows])
        return Model(
            choice, self.means[columns], self.sds[columns], float(solution[0]), solution[1:]
        )


def choose(faces: Faces, rows: np.ndarray) -> Choice:
    """The choice whose inner cross-validation on ``rows`` (London indices) agrees best."""
    ratings, sex = faces.ratings[rows], faces.sex[rows]
    fold_of = folds(sex, 1)
    tried = choices()
    outs = {choice: np.zeros(len(rows)) for choice in tried}
    for fold in range(FOLDS):
        inner, outer = fold_of != fold, fold_of == fold
        sums = NormalEquations(faces, rows[inner])
        for choice in tried:
            columns = design(faces, choice)[rows[outer]]
            outs[choice][outer] = sums.model(choice).predict(columns)
    best, chosen = -np.inf, None
    for choice in tried:
        figure = criterion(outs[choice], ratings, sex)
        if figure > best:
            best, chosen = figure, choice
    return chosen


def held_out(faces: Faces, seed: int, smiling: Faces | None = None):
    """Each London face's prediction by a model chosen and fitted without its fold; the
    choices made; and for each sitter photographed smiling, (neutral, smiling)
    predictions by the same model."""
    fold_of = folds(faces.sex, seed)
    out = np.zeros(len(faces.names))
    made, pairs = [], []
    partner = smiling_partners(faces, smiling)
    for fold in range(FOLDS):
        train, test = np.flatnonzero(fold_of != fold), np.flatnonzero(fold_of == fold)
        choice = choose(faces, train)
        made.append(choice)
        model = trained(faces, train, choice)
        out[test] = model.predict(design(faces, choice)[test])
        if partner:
            smiled = model.predict(design(smiling, choice))
            pairs += [(out[index], smiled[partner[index]]) for index in test if index in partner]
    return out, made, np.array(pairs)


def choice_order(choice: Choice) -> tuple:
    return (choice.terms, choice.descriptor_alpha, choice.term_alpha)


def smiling_partners(faces: Faces, smiling: Faces | None) -> dict[int, int]:
    """London index → index of the same sitter's smiling photo (``NNN_08`` is ``NNN_03``)."""
    if smiling is None:
        return {}
    where = {name: index for index, name in enumerate(faces.names)}
    return {
        where[name.replace("_08", "_03")]: index
        for index, name in enumerate(smiling.names)
        if name.replace("_08", "_03") in where
    }


def within_person_ratio(pairs: np.ndarray) -> float:
    """Pooled within-person SD of pairs of one person's scores over the SD of all of
    them: 0 would be a score of the person, 1 a score of the photo."""
    within = np.sqrt(np.mean((pairs[:, 0] - pairs[:, 1]) ** 2 / 2.0))
    return float(within / pairs.ravel().std())


# ---------------------------------------------------------------------------
# Agreement and gaps
# ---------------------------------------------------------------------------
def agreement(prediction: np.ndarray, faces: Faces) -> dict[str, float]:
    figures = {"all": spearmanr(prediction, faces.ratings)[0]}
    for sex in ("female", "male"):
        inside = faces.sex == sex
        figures[sex] = spearmanr(prediction[inside], faces.ratings[inside])[0]
    return {key: float(value) for key, value in figures.items()}


def gaps(prediction: np.ndarray, faces: Faces) -> dict[str, float]:
    """Each group's mean of z(prediction) − z(rating): how far we score it from people."""
    ours = (prediction - prediction.mean()) / prediction.std()
    people = (faces.ratings - faces.ratings.mean()) / faces.ratings.std()
    gap = ours - people
    out = {}
    for group in GROUPS:
        inside = faces.ethnicity == group
        if inside.sum() >= MIN_GROUP:
            out[group] = float(gap[inside].mean())
    for sex in ("female", "male"):
        out[sex] = float(gap[faces.sex == sex].mean())
    return out


def cross_validated(faces: Faces, smiling: Faces) -> dict:
    """The nested cross-validation's held-out figures, over ``SHUFFLES`` shuffles."""
    runs = [held_out(faces, seed, smiling) for seed in range(SHUFFLES)]
    figures = [agreement(out, faces) for out, _, _ in runs]
    made = [choice for _, choices_made, _ in runs for choice in choices_made]
    return {
        "spearman": {key: float(np.mean([f[key] for f in figures])) for key in figures[0]},
        "spearman_range": {
            key: (float(min(f[key] for f in figures)), float(max(f[key] for f in figures)))
            for key in figures[0]
        },
        "gaps": {
            key: float(np.mean([gaps(out, faces)[key] for out, _, _ in runs]))
            for key in gaps(runs[0][0], faces)
        },
        "smiling_ratio": float(np.mean([within_person_ratio(pairs) for _, _, pairs in runs])),
        "choices": {
            choice: sum(1 for other in made if other == choice) / len(made)
            for choice in sorted(set(made), key=choice_order)
        },
    }


# ---------------------------------------------------------------------------
# Candidates
# ---------------------------------------------------------------------------
def aligned(shape: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``shape`` moved, scaled and turned onto ``reference`` (Procrustes), centred."""
    centred = shape - shape.mean(axis=0)
    centred /= np.linalg.norm(centred)
    target = reference - reference.mean(axis=0)
    target /= np.linalg.norm(target)
    left, _, right = np.linalg.svd(centred.T @ target)
    return centred @ (left @ right)


def mean_shape(shapes: np.ndarray) -> np.ndarray:
    reference = shapes[0] - shapes[0].mean(axis=0)
    for _ in range(4):
        reference = np.mean([aligned(shape, reference) for shape in shapes], axis=0)
    return reference


def shape_candidates(faces: Faces) -> dict[str, np.ndarray]:
    """Averageness (closeness to the mean shape of the face's sex) and femininity (the
    position on the women's-minus-men's mean axis), each face left out of the means."""
    closeness, femininity = np.zeros(len(faces.names)), np.zeros(len(faces.names))
    for face in range(len(faces.names)):
        others = np.arange(len(faces.names)) != face
        women = mean_shape(faces.shapes[others & (faces.sex == "female")])
        men = aligned(mean_shape(faces.shapes[others & (faces.sex == "male")]), women)
        own = women if faces.sex[face] == "female" else men
        shape = aligned(faces.shapes[face], women)
        closeness[face] = -np.linalg.norm(shape - own)
        axis = (women - men).ravel()
        femininity[face] = float((shape - (women + men) / 2).ravel() @ axis / (axis @ axis))
    return {"averageness": closeness, "femininity": femininity}


def candidates(faces: Faces) -> dict[str, np.ndarray]:
    found = {
        "skin evenness (less uneven)": -np.log(faces.column("skin_evenness")),
        "eye openness": faces.measure("eye_openness"),
        "face length to width": faces.column("face_shape"),
    }
    found.update(shape_candidates(faces))
    for key in CANDIDATE_MEASURES:
        found[key] = faces.measure(key)
    return found


def candidate_table(faces: Faces) -> list[str]:
    lines = [
        f"{'candidate':30s} {'all':>6s} {'women':>6s} {'men':>6s}   mean per group (SDs)",
    ]
    for name, values in candidates(faces).items():
        figures = agreement(values, faces)
        z = (values - values.mean()) / values.std()
        groups = "  ".join(
            f"{group} {z[faces.ethnicity == group].mean():+.2f}"
            for group in GROUPS
            if (faces.ethnicity == group).sum() >= MIN_GROUP
        )
        lines.append(
            f"{name:30s} {figures['all']:+6.2f} {figures['female']:+6.2f} "
            f"{figures['male']:+6.2f}   {groups}"
        )
    return lines


def nested_selection(faces: Faces) -> dict[str, float]:
    """Forward selection of up to 3 terms among the scalar candidates, done inside each
    training fold (by its own inner cross-validation): what choosing terms on these
    faces is worth on faces it did not see."""
    pool = {key: value for key, value in candidates(faces).items() if key not in SHAPE_KEYS}
    names = list(pool)
    matrix = np.column_stack([pool[name] for name in names])
    fold_of = folds(faces.sex, 0)
    out = np.zeros(len(faces.names))
    for fold in range(FOLDS):
        train, test = fold_of != fold, fold_of == fold
        chosen = forward_choose(matrix[train], faces.ratings[train], faces.sex[train])
        model = scalar_fit(matrix[train][:, chosen], faces.ratings[train])
        out[test] = scalar_predicted(matrix[test][:, chosen], *model)
    return agreement(out, faces)


SHAPE_KEYS = ("averageness", "femininity")


def forward_choose(matrix: np.ndarray, ratings: np.ndarray, sex: np.ndarray) -> list[int]:
    chosen: list[int] = []
    best = -1.0
    while len(chosen) < 3:
        trials = []
        for column in range(matrix.shape[1]):
            if column in chosen:
                continue
            columns = chosen + [column]
            fold_of = folds(sex, 1)
            out = np.zeros(len(ratings))
            for fold in range(FOLDS):
                inner, outer = fold_of != fold, fold_of == fold
                model = scalar_fit(matrix[inner][:, columns], ratings[inner])
                out[outer] = scalar_predicted(matrix[outer][:, columns], *model)
            trials.append((spearmanr(out, ratings)[0], column))
        score, column = max(trials)
        if score <= best:
            break
        chosen.append(column)
        best = score
    return chosen


# ---------------------------------------------------------------------------
# The mesh against the hand-placed landmarks
# ---------------------------------------------------------------------------
# The measures' points in the mesh (MediaPipe's indices) and in the London Set's
# hand-placed template (its 189 points; "left" is the image's left, the person's right):
# pupils, the eyelids' middles, the chin's bottom, the face's sides (the template's
# ears' middles, the mesh's outline at the cheekbones), the top (the template's hairline,
# the mesh's upper forehead: a different point, whose distance is compared as a ratio).
MESH_POINTS = {
    "pupils": (468, 473),
    "lids": ((fp.RIGHT_EYE_TOP, fp.RIGHT_EYE_BOTTOM), (fp.LEFT_EYE_TOP, fp.LEFT_EYE_BOTTOM)),
    "chin": fp.MENTON,
    "top": fp.FOREHEAD_TOP,
    "sides": fp.CHEEKBONES,
}
HAND_POINTS = {"pupils": (0, 1), "lids": ((20, 29), (25, 32)), "chin": 129, "top": 139,
               "sides": (110, 113)}  # fmt: skip


def hand_points() -> dict[str, np.ndarray]:
    with open(FACES / "london" / "landmarks.csv", newline="") as table:
        rows = list(csv.DictReader(table))
    return {
        row["file"]: np.array([[float(row[f"x{i}"]), float(row[f"y{i}"])] for i in range(189)])
        for row in rows
    }


def placed_figures(points: np.ndarray, indices: dict) -> dict[str, float]:
    """The measures' distances on one set of landmarks, in inter-pupil distances."""

    def apart(a, b) -> float:
        return float(np.linalg.norm(points[a] - points[b]))

    pupils = apart(*indices["pupils"])
    return {
        "eye openness": np.mean([apart(*lid) for lid in indices["lids"]]) / pupils,
        "face length": apart(indices["top"], indices["chin"]) / pupils,
        "face width": apart(*indices["sides"]) / pupils,
        "pupils to chin": float(
            points[indices["chin"], 1] - np.mean([points[i, 1] for i in indices["pupils"]])
        )
        / pupils,
    }


def landmark_check(rated: Faces) -> list[str]:
    """How the mesh's figures follow the hand-placed ones (Pearson over the faces)."""
    hand = hand_points()
    mesh = [placed_figures(points, MESH_POINTS) for points in rated.points]
    placed = [placed_figures(hand[name], HAND_POINTS) for name in rated.names]
    lines = []
    for key in mesh[0]:
        ours = np.array([figures[key] for figures in mesh])
        theirs = np.array([figures[key] for figures in placed])
        r = np.corrcoef(ours, theirs)[0, 1]
        ratio = float(np.median(ours / theirs))
        lines.append(f"  {key:15s} r {r:.2f}, mesh / hand-placed {ratio:.2f} (median)")
    return lines


# ---------------------------------------------------------------------------
# The parameters
# ---------------------------------------------------------------------------
def rounded(value: float) -> float:
    return float(f"{value:.{DIGITS}g}")


def parameters(rated: Faces, reference: list[Faces]) -> dict:
    """The model chosen and fitted on all rated faces, and the reference population's
    spread."""
    choice = choose(rated, np.arange(len(rated.names)))
    fitted_model = trained(rated, np.arange(len(rated.names)), choice)
    descriptor_weights = fitted_model.weights[: face_descriptor.LENGTH]
    descriptor_sds = fitted_model.sds[: face_descriptor.LENGTH]
    descriptor_means = fitted_model.means[: face_descriptor.LENGTH]
    raw = descriptor_weights / descriptor_sds
    everyone = np.vstack([term_levels(faces, choice.terms) for faces in reference])
    terms = {}
    counted = [term for term in face_score.TERMS if term.key in choice.terms]
    for index, term in enumerate(counted):
        column = face_descriptor.LENGTH + index
        values = np.concatenate([faces.column(term.key) for faces in reference])
        level = everyone[:, index]
        low, high = level.min() - level.std(), level.max() + level.std()
        if term.logarithmic:
            low, high = math.exp(low), math.exp(high)
        terms[term.key] = {
            "mean": rounded(fitted_model.means[column]),
            "sd": rounded(fitted_model.sds[column]),
            "weight": rounded(fitted_model.weights[column]),
            "low": rounded(low),
            "high": rounded(high),
            "typical": [rounded(v) for v in np.percentile(values, (25, 75))],
        }
    offset = -float(raw @ descriptor_means)
    learned = np.concatenate([faces.descriptors @ raw + offset for faces in reference])
    model = {
        "intercept": rounded(fitted_model.intercept),
        "learned": {
            "weights": [rounded(weight) for weight in raw],
            "offset": rounded(offset),
            "low": rounded(learned.min() - learned.std()),
            "high": rounded(learned.max() + learned.std()),
        },
        "terms": terms,
        "choice": {
            "descriptor_alpha": choice.descriptor_alpha,
            "term_alpha": choice.term_alpha,
        },
    }
    return {"model": model, "reference": reference_figures(model, reference)}


def top_one_percent(standings: np.ndarray) -> float:
    """The standing above which at most 1% of these faces lie (a little above the
    highest of the rest, so none of them reaches it)."""
    allowed = int(0.01 * len(standings))
    return float(np.sort(standings)[-(allowed + 1)]) + 1e-3


def reference_figures(model: dict, reference: list[Faces]) -> dict:
    """The reference population's predicted ratings (mean, spread, best standing with
    its photo's nudge), each part's and each contribution's spread."""
    provisional = face_score.parameters_from(
        {
            "model": model,
            "reference": {"mean": 0, "sd": 1, "best": 0, "part_mean": {}, "part_sd": {}},
        }
    )
    predictions = [
        face_calibration.predicted(measures, descriptor, provisional)
        for faces in reference
        for measures, descriptor in zip(faces.measures, faces.descriptors, strict=True)
    ]
    nudges = np.array(
        [face_photo.reading(measures).nudge for faces in reference for measures in faces.measures]
    )
    ratings = np.array([prediction.rating for prediction in predictions])
    mean, sd = ratings.mean(), ratings.std()
    standings = (ratings - mean) / sd + nudges
    best = mean + sd * float(np.max(standings))
    parts = sorted({face_score.part_of(key) for key in predictions[0].contributions})
    keys = list(predictions[0].contributions)
    return {
        "faces": len(ratings),
        "mean": rounded(mean),
        "sd": rounded(sd),
        "best": rounded(best),
        "top_1_percent": rounded(top_one_percent(standings)),
        "part_mean": {
            part: rounded(np.mean([prediction.part(part) for prediction in predictions]))
            for part in parts
        },
        "part_sd": {
            part: rounded(np.std([prediction.part(part) for prediction in predictions]))
            for part in parts
        },
        "contribution_sd": {
            key: rounded(np.std([prediction.contributions[key] for prediction in predictions]))
            for key in keys
        },
    }


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------
def same_person_figures(fitted: dict, reference: list[Faces], same: Faces) -> dict:
    """The committed model's headline standings (the person's, nudged by the photo) of
    one person's eight photos: their spread over the reference's spread across people."""
    parameters_now = face_score.parameters_from(fitted)

    def standings(faces: Faces) -> np.ndarray:
        return np.array(
            [
                face_score.standing(
                    face_calibration.predicted(measures, descriptor, parameters_now).rating,
                    parameters_now,
                )
                + face_photo.reading(measures).nudge
                for measures, descriptor in zip(faces.measures, faces.descriptors, strict=True)
            ]
        )

    everyone = np.concatenate([standings(faces) for faces in reference])
    own = standings(same)
    nudges = [
        face_photo.reading(measures).nudge for faces in reference for measures in faces.measures
    ]
    return {
        "reference_nudge": float(np.mean(nudges)),
        "ratio": float(own.std() / everyone.std()),
        "scores": [face_score.scaled(value, parameters_now) for value in own],
        "reference": everyone,
    }


def tier_shares(standings: np.ndarray, fitted: dict) -> dict[str, float]:
    """The reference population's shares at 9.5 and more and at exactly 10."""
    parameters_now = face_score.parameters_from(fitted)
    record = parameters_now.record_standing
    scores = np.array([face_score.scaled(value, parameters_now) for value in standings])
    return {
        "9.5+": float(np.mean(scores >= 9.5)),
        "10": float(np.mean(standings >= record)),
    }


def report(rated: Faces, fitted: dict, validated: dict, nested: dict, same: dict) -> str:
    spearman, spread = validated["spearman"], validated["spearman_range"]
    parameters_now = face_score.parameters_from(fitted)
    choice = fitted["model"]["choice"]
    counted = [term for term in face_score.TERMS if term.key in fitted["model"]["terms"]]
    shares = tier_shares(same["reference"], fitted)
    lines = [
        "The face score fitted to people's ratings (scripts/fit_score.py)",
        "",
        f"Rated faces: London Set, {len(rated.names)} adults, each rated by 2,513 people "
        "(DeBruine & Jones 2017, CC BY 4.0).",
        f"Reference population: London and Canada sets, {fitted['reference']['faces']} faces.",
        "",
        "Candidates (Spearman with the mean rating; group means of the measure in SDs):",
        *("  " + line for line in candidate_table(rated)),
        "",
        "The model: a ridge regression on the face descriptor's 128 numbers (dlib's ResNet, "
        "public domain) and the measured terms chosen inside the folds; "
        f"{parameters_now.parameter_count} fitted numbers.",
        "Nested cross-validation: terms and penalties chosen inside each training fold "
        f"(inner {FOLDS}-fold); held out, {FOLDS}-fold stratified by sex, mean of "
        f"{SHUFFLES} shuffles (range in brackets):",
        *(
            f"  {key:7s} Spearman {spearman[key]:.3f}  [{spread[key][0]:.3f}–{spread[key][1]:.3f}]"
            for key in spearman
        ),
        "Held-out gaps, z(prediction) − z(rating), mean over the shuffles:",
        *(f"  {key:11s} {value:+.2f}" for key, value in validated["gaps"].items()),
        "Choices made inside the outer folds (share of folds):",
        *(
            f"  terms {', '.join(c.terms) or 'none':27s} descriptor alpha "
            f"{c.descriptor_alpha:5.0f}  term alpha {c.term_alpha:4.0f}   {share:.0%}"
            for c, share in validated["choices"].items()
        ),
        "The same person (within-person SD over the SD across people; 0 is a score of "
        "the person, 1 of the photo):",
        f"  London sitters neutral and smiling, held out (50 sitters): "
        f"{validated['smiling_ratio']:.3f}",
        f"  one person's eight everyday photos (same_person/), against the reference: "
        f"{same['ratio']:.3f}; scores {', '.join(f'{v:.1f}' for v in same['scores'])}",
        f"Tiers on the reference population: {shares['9.5+']:.1%} at 9.5 or more, "
        f"{shares['10']:.1%} at exactly 10; its photos' mean nudge "
        f"{same['reference_nudge']:+.3f} SD.",
        "Forward selection of up to 3 scalar candidates inside each training fold (held "
        "out, without the descriptor): "
        + ", ".join(f"{key} {value:.3f}" for key, value in nested.items()),
        "",
        "The mesh's points against the London Set's hand-placed ones (distances in "
        "inter-pupil distances):",
        *landmark_check(rated),
        "",
        f"Chosen and fitted on all rated faces (descriptor alpha {choice['descriptor_alpha']:.0f}, "
        f"term alpha {choice['term_alpha']:.0f}); how much each counts (its contribution's "
        "spread over the reference):",
        f"  {face_score.IMPRESSION_NAME:22s} 128 weights        counts "
        f"{100 * parameters_now.share(face_score.IMPRESSION):.0f}%",
    ]
    for term in counted:
        entry = fitted["model"]["terms"][term.key]
        lines.append(
            f"  {term.name:22s} weight {entry['weight']:+.3f}  counts "
            f"{100 * parameters_now.share(term.key):.0f}%  typical {entry['typical']}"
        )
    lines += [
        f"  intercept {fitted['model']['intercept']:.3f}",
        "Reference population's predicted ratings: "
        f"mean {fitted['reference']['mean']:.3f}, sd {fitted['reference']['sd']:.3f}, "
        f"best with its photo {fitted['reference']['best']:.3f}",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files")
    arguments = parser.parse_args()
    rated = london()
    reference = [rated, canada()]
    fitted = parameters(rated, reference)
    validated = cross_validated(rated, unrated("london_smiling"))
    same = same_person_figures(fitted, reference, unrated("same_person"))
    text = report(rated, fitted, validated, nested_selection(rated), same)
    written = json.dumps(fitted, indent=2, sort_keys=True) + "\n"
    if arguments.check:
        same_files = PARAMETERS.read_text() == written and REPORT.read_text() == text
        print("the committed parameters and report are the fit's" if same_files else "they differ")
        return 0 if same_files else 1
    PARAMETERS.write_text(written)
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
