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
2. **Cross-validation** of the model (``face_score.TERMS``, a ridge regression on the
   standardised terms): 10 folds stratified by sex, repeated with 10 shuffles; every
   number is fitted on the training folds only, and the held-out predictions give the
   Spearman correlation with people's ratings, overall and within each sex, and each
   ethnic group's and sex's gap (z of the prediction minus z of the rating). The same
   for a forward selection among the candidates done inside each training fold (an
   honest figure for choosing terms on these faces).
3. **The model** fitted on all 102 faces, and the reference population's spread of
   predicted ratings, written to ``prettyscore/analysis/engines/face_score.json``; the
   report to ``docs/analysis/score-fit.txt``.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path

import numpy as np
from PIL import Image
from scipy.stats import spearmanr

from prettyscore.analysis.engines import face_calibration, face_score
from prettyscore.analysis.engines import face_mesh_points as fp
from prettyscore.analysis.engines.face_mesh import FaceMeshEngine

ROOT = Path(__file__).resolve().parents[1]
FACES = ROOT / "tests" / "fixtures" / "faces"
PARAMETERS = face_score.PARAMETERS_FILE
REPORT = ROOT / "docs" / "analysis" / "score-fit.txt"

# Ridge penalty on the standardised terms (fixed, not tuned: it only steadies the
# weights of a small model on 102 faces).
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
    """The analysed faces: each one's terms, raw measures, frontal shape and landmarks."""

    def __init__(self, names, analysed_, ratings=None, sex=None, ethnicity=None):
        self.names = names
        self.terms, self.measures, self.shapes, self.points = analysed_
        self.ratings = ratings
        self.sex = sex
        self.ethnicity = ethnicity

    def column(self, key: str) -> np.ndarray:
        return np.array([terms[key] for terms in self.terms])

    def measure(self, key: str) -> np.ndarray:
        return np.array([measures[key] for measures in self.measures])


def analysed(paths: list[Path]):
    """Each photo's terms, measures, frontal outline shape and landmarks (photo pixels)."""
    engine = FaceMeshEngine()
    terms, measures, shapes, points = [], [], [], []
    for path in paths:
        with Image.open(path) as photo:
            pixels = np.array(photo.convert("RGB"))
        measured = engine.measure(pixels)
        measures.append(measured.measures)
        terms.append(face_calibration.term_values(measured.measures))
        # The outlines, levelled and turned to the camera (face widths).
        shapes.append(measured.frame.frontal(measured.points)[SHAPE_POINTS, :2])
        points.append(measured.points[:, :2])
    return terms, measures, np.array(shapes), np.array(points)


def london() -> Faces:
    with open(FACES / "london" / "ratings.csv", newline="") as table:
        rows = list(csv.DictReader(table))
    return Faces(
        [row["file"] for row in rows],
        analysed([FACES / "london" / row["file"] for row in rows]),
        ratings=np.array([float(row["mean_rating"]) for row in rows]),
        sex=np.array([row["face_sex"] for row in rows]),
        ethnicity=np.array([row["face_eth"] for row in rows]),
    )


def canada() -> Faces:
    paths = sorted((FACES / "canada").glob("*.jpg"))
    return Faces([path.name for path in paths], analysed(paths))


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------
def levels(faces: Faces) -> np.ndarray:
    """The terms as the model standardises them (the logarithm of a logarithmic one)."""
    columns = []
    for term in face_score.TERMS:
        values = faces.column(term.key)
        columns.append(np.log(values) if term.logarithmic else values)
    return np.column_stack(columns)


def ridge(design: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
    """Intercept and weights of a ridge regression on standardised columns."""
    with_ones = np.column_stack([np.ones(len(design)), design])
    penalty = RIDGE_ALPHA * np.eye(with_ones.shape[1])
    penalty[0, 0] = 0.0
    solution = np.linalg.solve(with_ones.T @ with_ones + penalty, with_ones.T @ target)
    return float(solution[0]), solution[1:]


def fit(columns: np.ndarray, ratings: np.ndarray):
    """(means, sds, intercept, weights) of the model on these faces."""
    means, sds = columns.mean(axis=0), columns.std(axis=0)
    intercept, weights = ridge((columns - means) / sds, ratings)
    return means, sds, intercept, weights


def predicted(columns, means, sds, intercept, weights) -> np.ndarray:
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


def held_out(columns: np.ndarray, faces: Faces, seed: int) -> np.ndarray:
    fold_of = folds(faces.sex, seed)
    out = np.zeros(len(columns))
    for fold in range(FOLDS):
        train, test = fold_of != fold, fold_of == fold
        model = fit(columns[train], faces.ratings[train])
        out[test] = predicted(columns[test], *model)
    return out


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


def cross_validated(faces: Faces) -> dict:
    columns = levels(faces)
    runs = [held_out(columns, faces, seed) for seed in range(SHUFFLES)]
    figures = [agreement(run, faces) for run in runs]
    return {
        "spearman": {key: float(np.mean([f[key] for f in figures])) for key in figures[0]},
        "spearman_range": {
            key: (float(min(f[key] for f in figures)), float(max(f[key] for f in figures)))
            for key in figures[0]
        },
        "gaps": {
            key: float(np.mean([gaps(run, faces)[key] for run in runs]))
            for key in gaps(runs[0], faces)
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
        "eye openness": faces.column("eye_openness"),
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
        chosen = choose(matrix[train], faces.ratings[train], faces.sex[train])
        model = fit(matrix[train][:, chosen], faces.ratings[train])
        out[test] = predicted(matrix[test][:, chosen], *model)
    return agreement(out, faces)


SHAPE_KEYS = ("averageness", "femininity")


def choose(matrix: np.ndarray, ratings: np.ndarray, sex: np.ndarray) -> list[int]:
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
                model = fit(matrix[inner][:, columns], ratings[inner])
                out[outer] = predicted(matrix[outer][:, columns], *model)
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
    """The model on all rated faces, and the reference population's spread."""
    columns = levels(rated)
    means, sds, intercept, weights = fit(columns, rated.ratings)
    everyone = np.vstack([levels(faces) for faces in reference])
    terms = {}
    for index, term in enumerate(face_score.TERMS):
        values = np.concatenate([faces.column(term.key) for faces in reference])
        level = everyone[:, index]
        low, high = level.min() - level.std(), level.max() + level.std()
        if term.logarithmic:
            low, high = math.exp(low), math.exp(high)
        terms[term.key] = {
            "mean": rounded(means[index]),
            "sd": rounded(sds[index]),
            "weight": rounded(weights[index]),
            "low": rounded(low),
            "high": rounded(high),
            "typical": [rounded(v) for v in np.percentile(values, (25, 75))],
        }
    model = {"intercept": rounded(intercept), "terms": terms}
    provisional = face_score.parameters_from(
        {
            "model": model,
            "reference": {"mean": 0, "sd": 1, "best": 0, "part_mean": {}, "part_sd": {}},
        }
    )
    predictions = [
        face_calibration.predicted(measures, provisional)
        for faces in reference
        for measures in faces.measures
    ]
    ratings = np.array([prediction.rating for prediction in predictions])
    parts = sorted({term.part for term in face_score.TERMS})
    return {
        "model": model,
        "reference": {
            "faces": len(ratings),
            "mean": rounded(ratings.mean()),
            "sd": rounded(ratings.std()),
            "best": rounded(ratings.max()),
            "part_mean": {
                part: rounded(np.mean([prediction.part(part) for prediction in predictions]))
                for part in parts
            },
            "part_sd": {
                part: rounded(np.std([prediction.part(part) for prediction in predictions]))
                for part in parts
            },
        },
    }


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------
def report(rated: Faces, reference: list[Faces], fitted: dict, validated: dict, nested) -> str:
    spearman, spread = validated["spearman"], validated["spearman_range"]
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
        f"The model: {len(face_score.TERMS)} terms, a ridge regression (alpha {RIDGE_ALPHA}) "
        f"on the standardised terms: {len(face_score.TERMS) + 1} fitted weights "
        f"(with the intercept) and {2 * len(face_score.TERMS)} standardisation numbers.",
        f"Held-out agreement ({FOLDS}-fold, stratified by sex, mean of {SHUFFLES} shuffles; "
        "range in brackets):",
        *(
            f"  {key:7s} Spearman {spearman[key]:.3f}  [{spread[key][0]:.3f}–{spread[key][1]:.3f}]"
            for key in spearman
        ),
        "Held-out gaps, z(prediction) − z(rating), mean over the shuffles:",
        *(f"  {key:11s} {value:+.2f}" for key, value in validated["gaps"].items()),
        "Forward selection of up to 3 candidates inside each training fold (held out): "
        + ", ".join(f"{key} {value:.3f}" for key, value in nested.items()),
        "",
        "The mesh's points against the London Set's hand-placed ones (distances in "
        "inter-pupil distances):",
        *landmark_check(rated),
        "",
        "Fitted on all rated faces (rating points per standard deviation of the term):",
    ]
    parameters_now = face_score.parameters_from(fitted)
    for term in face_score.TERMS:
        entry = fitted["model"]["terms"][term.key]
        lines.append(
            f"  {term.name:22s} weight {entry['weight']:+.3f}  counts "
            f"{100 * parameters_now.share(term.key):.0f}%  typical {entry['typical']}"
        )
    lines += [
        f"  intercept {fitted['model']['intercept']:.3f}",
        "Reference population's predicted ratings: "
        f"mean {fitted['reference']['mean']:.3f}, sd {fitted['reference']['sd']:.3f}, "
        f"best {fitted['reference']['best']:.3f}",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files")
    arguments = parser.parse_args()
    rated = london()
    reference = [rated, canada()]
    fitted = parameters(rated, reference)
    text = report(rated, reference, fitted, cross_validated(rated), nested_selection(rated))
    written = json.dumps(fitted, indent=2, sort_keys=True) + "\n"
    if arguments.check:
        same = PARAMETERS.read_text() == written and REPORT.read_text() == text
        print("the committed parameters and report are the fit's" if same else "they differ")
        return 0 if same else 1
    PARAMETERS.write_text(written)
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
