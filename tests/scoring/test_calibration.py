"""Calibration on a population of real faces: what most visitors will see.

scikit-image ships 100 small real faces from the LFW data set (and 100 patches of the
same photos without a face). They are far too small to pass the sharpness check, so
these tests run detection and scoring directly, past that check; their enlarged,
smooth skin flatters the skin figure a little.
"""

from __future__ import annotations

import functools
import statistics

import pytest

from prettyscore.scoring.engines import calibration, face, face_measures
from prettyscore.scoring.tiers import tier_for
from tests.scoring import photos


def faces_in(grey) -> list[face.FoundFace]:
    boxes = sorted(face.candidate_boxes(grey), key=lambda box: -box.w)
    return [found for box in boxes if (found := face.checked_face(grey, box))]


@functools.cache
def lfw_scores() -> tuple[list[float], int]:
    """Scores of the LFW faces the analysis finds, and how many it finds."""
    real_faces, _ = photos.lfw_patches()
    scores = []
    for grey in real_faces:
        found = faces_in(grey)
        if found:
            eyes = face_measures.best_eye_pair(found[0].eye_candidates)
            scores.append(calibration.score_face(found[0].crop, eyes).score)
    return scores, len(real_faces)


def test_nearly_every_real_face_is_found():
    scores, faces = lfw_scores()
    assert len(scores) >= 0.85 * faces


def test_most_real_faces_score_between_6_5_and_9_5():
    scores, _ = lfw_scores()
    inside = [score for score in scores if 6.5 <= score <= 9.5]
    assert len(inside) >= 0.9 * len(scores)
    assert 7.0 <= statistics.median(scores) <= 8.8


def test_scores_spread_over_several_tiers_and_the_top_stays_rare():
    scores, _ = lfw_scores()
    assert len({tier_for(score).key for score in scores}) >= 4
    assert sum(score >= 9.5 for score in scores) <= 0.1 * len(scores)
    assert all(score < 10.0 for score in scores)


@pytest.mark.parametrize("chunk", range(4))
def test_patches_of_real_photos_without_a_face_are_not_taken_for_faces(chunk):
    _, non_faces = photos.lfw_patches()
    for grey in non_faces[chunk * 25 : (chunk + 1) * 25]:
        assert faces_in(grey) == []


def test_the_score_curve_keeps_the_top_of_the_scale_rare():
    score = calibration.overall_score
    assert score(0.0) == 6.0
    assert score(0.5) == 7.0
    assert score(0.9) < 9.5 <= score(0.94)
    assert score(0.99) < 10.0 == score(0.999) == score(1.0)
