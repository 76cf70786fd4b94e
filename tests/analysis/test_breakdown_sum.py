"""The face's breakdown as a person reads it: the two parts the score counts, each with its
share, Symmetry apart, and the line that adds the bars up to the score.

Measured on real faces: the London and Canada sets' photos (``tests/fixtures/faces/``,
CC BY 4.0; never shown), the public-domain astronaut, and a face at the top of the scale
(where it widens, and the line says what that adds).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from prettyscore.analysis import explanation, service
from prettyscore.analysis.engines import face_calibration, face_score
from prettyscore.analysis.engines.face_mesh import FaceMeshEngine
from prettyscore.analysis.kinds import FACE, FEET
from prettyscore.core import messages
from tests.fixtures import photos

FACES = Path(__file__).resolve().parents[1] / "fixtures" / "faces"
#: Faces across the range: every twelfth London sitter, two of the Canada set, and the
#: two London faces whose score the scale's top widens most (9.4 and 9.6).
REAL_FACES = (
    *(f"london/{number:03d}_03.jpg" for number in range(1, 150, 12)),
    "canada/053f.jpg",
    "canada/095m.jpg",
    "london/100_03.jpg",
    "london/124_03.jpg",
)
SUM = re.compile(
    r"^Your score: (?P<harmony>\d+\.\d) × (?P<harmony_share>\d+)% "
    r"\+ (?P<skin>\d+\.\d) × (?P<skin_share>\d+)%"
    r"(?: (?P<top_sign>[+−]) (?P<top>\d+\.\d) for the top of the scale)?"
    r"(?: (?P<photo_sign>[+−]) (?P<photo>\d+\.\d) for the photo)?"
    r" = (?P<score>\d+(?:\.\d)?)$"
)


@pytest.fixture(scope="module")
def engine() -> FaceMeshEngine:
    return FaceMeshEngine()


@pytest.fixture(scope="module")
def analysed(engine) -> dict:
    """Each real face's analysis, by name."""
    faces = {"astronaut": engine.analyse(photos.astronaut())}
    for name in REAL_FACES:
        path = FACES / name
        if path.exists():
            with Image.open(path) as photo:
                faces[name] = engine.analyse(np.array(photo.convert("RGB")))
    assert len(faces) >= 12
    return faces


def result_of(analysis) -> service.ScoreResult:
    return service.ScoreResult(
        result_id="r",
        image_key="v/k.jpg",
        score=analysis.score,
        label="",
        tier_key="",
        emoji="",
        color="",
        breakdown=dict(analysis.breakdown),
        special_panel="",
        explanation=explanation.note_rows(analysis),
        person_score=analysis.person_score,
    )


def signed(sign: str | None, value: str | None) -> int:
    """A line's figure in tenths (0 when the line leaves it out)."""
    if value is None:
        return 0
    return (-1 if sign == "−" else 1) * round(10 * float(value))


def test_the_sum_line_adds_the_shown_bars_up_to_the_shown_score_on_real_faces(analysed):
    tops = []
    for name, analysis in analysed.items():
        view = service.breakdown_view(result_of(analysis))
        line = SUM.match(view.sum_line)
        assert line, (name, view.sum_line)
        bars = {row["name"]: row for row in view.bars}
        # The line's figures are the page's: the bars, their shares, the score.
        assert float(line["harmony"]) == bars["Facial Harmony"]["value"], name
        assert float(line["skin"]) == bars["Skin Quality"]["value"], name
        assert bars["Facial Harmony"]["share"] == f"counts {line['harmony_share']}%"
        assert bars["Skin Quality"]["share"] == f"counts {line['skin_share']}%"
        assert float(line["score"]) == analysis.score == bars["Overall"]["value"]
        # The photo's figure is the notes' (what the photo added or took off).
        assert signed(line["photo_sign"], line["photo"]) == round(
            10 * (analysis.score - analysis.person_score)
        )
        # The arithmetic holds to the shown decimal (in thousandths: tenths × percent).
        total = (
            round(10 * float(line["harmony"])) * int(line["harmony_share"])
            + round(10 * float(line["skin"])) * int(line["skin_share"])
            + 100 * signed(line["top_sign"], line["top"])
            + 100 * signed(line["photo_sign"], line["photo"])
        )
        assert abs(total - 100 * round(10 * analysis.score)) < 50, (name, view.sum_line)
        tops.append(signed(line["top_sign"], line["top"]))
    assert any(tops), "a face at the top of the scale says what the scale adds"


def test_each_shown_figure_is_within_a_tenth_of_the_models(analysed):
    percents = face_calibration.part_percents()
    fitted = face_score.parameters()
    typical, slope = face_calibration.middle_line()
    for name, analysis in analysed.items():
        # The model's figures the analysis keeps (for calibration): the person's standing
        # and each part's among the reference faces.
        measures = analysis.measures
        combined = face_calibration.combination(
            analysis.breakdown, analysis.person_score, analysis.score
        )
        assert combined is not None, name
        for part, percent in percents.items():
            away = measures[part] * fitted.part_sd[part] / (percent / 100 * fitted.reference_sd)
            assert abs(combined.bars[part] - (typical + slope * away)) < 0.1 + 1e-9, (name, part)
        top = face_calibration.top_of_scale(measures["overall"])
        assert abs(combined.top - top) < 0.1 + 1e-9, name
        if analysis.person_score <= 8.0:
            assert combined.top == 0.0, name


def test_the_counted_parts_are_the_bars_with_their_shares_and_symmetry_stands_apart(analysed):
    view = service.breakdown_view(result_of(analysed["astronaut"]))
    assert [row["name"] for row in view.bars] == ["Overall", "Facial Harmony", "Skin Quality"]
    assert view.bars[0]["share"] == ""
    assert [row["name"] for row in view.apart] == ["Symmetry"]
    assert view.apart[0]["value"] == analysed["astronaut"].breakdown["symmetry"]
    # The shares add up to 100 and are the notes' "counts N%" of each part's terms.
    percents = face_calibration.part_percents()
    assert sum(percents.values()) == 100
    assert list(percents) == ["facialHarmony", "skinQuality"]
    notes = explanation.note_rows(analysed["astronaut"])
    for part, percent in percents.items():
        printed = [
            int(share)
            for note in notes
            if note["part"] == part
            for share in re.findall(r"\(counts (\d+)%\)", note["text"])
        ]
        assert printed, part
        assert abs(sum(printed) - percent) <= 1, (part, printed, percent)
        assert messages.BREAKDOWN_COUNTS.format(percent=percent) in [
            row["share"] for row in view.bars
        ]


def test_a_saved_face_shows_the_same_breakdown_and_sum_from_what_is_stored(analysed):
    for analysis in analysed.values():
        result = result_of(analysis)
        saved = service.saved_breakdown_view(
            FACE,
            result.score,
            result.breakdown,
            measured=True,
            notes=result.explanation,
        )
        assert saved == service.breakdown_view(result)
        # Before its notes are in, the same bars, and no sum yet.
        early = service.saved_breakdown_view(FACE, result.score, result.breakdown, measured=True)
        assert (early.bars, early.apart, early.sum_line) == (saved.bars, saved.apart, "")


def test_the_photos_note_keeps_what_the_sum_takes_for_the_photo(analysed):
    for analysis in analysed.values():
        rows = explanation.note_rows(analysis)
        effect = round(analysis.score - analysis.person_score, 1)
        assert service.photo_effect(rows) == pytest.approx(effect)
        # The same figure the note's sentence tells the person.
        (photo,) = [row for row in rows if "photo_effect" in row]
        said = f"{abs(effect):.1f}" if effect else "neither added to nor took from"
        assert said in photo["text"]
    assert service.photo_effect([{"text": "Eyes: mirror each other within 0.4%"}]) is None


def test_bars_that_do_not_add_up_are_never_summed():
    # Bars of another kind (as saved before the counted parts had shares): no line.
    breakdown = {"symmetry": 8.9, "skinQuality": 6.7, "facialHarmony": 8.6}
    assert face_calibration.combination(breakdown, 7.2, 7.2) is None
    # Nor a "top of the scale" figure where the scale is straight (below 8.1).
    breakdown = {"symmetry": 8.9, "skinQuality": 7.0, "facialHarmony": 7.0}
    assert face_calibration.combination(breakdown, 7.1, 7.1) is None
    assert face_calibration.combination(breakdown, 7.0, 7.0) is not None
    # Without the person's score (the photo's part unknown) nothing is said.
    assert face_calibration.combination(breakdown, None, 7.0) is None
    view = service.saved_breakdown_view(FACE, 7.2, {**breakdown}, measured=True, notes=[])
    assert view.sum_line == "" and [row["name"] for row in view.apart] == ["Symmetry"]


def test_feet_hands_pets_and_unmeasured_faces_keep_their_bars_as_they_were():
    feet = {"toeSymmetry": 8.1, "archQuality": 7.9, "skinAppearance": 8.4, "overallAesthetics": 8}
    view = service.saved_breakdown_view(FEET, 8.2, feet, measured=False)
    assert [row["name"] for row in view.bars] == [
        "Overall",
        "Toe Symmetry",
        "Arch Quality",
        "Skin Appearance",
        "Overall Aesthetics",
    ]
    assert (view.apart, view.sum_line) == ([], "")
    # A face the simulated engine scored (no person's score): every part a bar, no sum.
    face = {"symmetry": 8.9, "skinQuality": 7.6, "facialHarmony": 8.2}
    result = service.ScoreResult("r", "v/k.jpg", 8.0, "", "", "", "", face, "")
    view = service.breakdown_view(result)
    assert [row["name"] for row in view.bars] == [
        "Overall",
        "Symmetry",
        "Skin Quality",
        "Facial Harmony",
    ]
    assert (view.apart, view.sum_line) == ([], "")


def test_the_unrounded_score_is_the_scores_before_rounding():
    for step in range(-12000, 5000, 7):
        position = step / 1000
        unrounded = face_calibration.unrounded_score(position)
        on_a_half = math.isclose(10 * unrounded % 1, 0.5, abs_tol=1e-6)
        assert on_a_half or round(unrounded, 1) == face_score.scaled(position), position
