"""Calibration on a population of real faces: finding them, and the shape of the scale.

scikit-image ships 100 small real faces from the LFW data set (and 100 patches of the
same photos without a face), 25 pixels across, enlarged here to 150. The score's
distribution over them and the portraits is printed by ``test_fairness.py``.
"""

from __future__ import annotations

import functools

import pytest

from prettyscore.analysis.engines import face_calibration, face_landmarks
from prettyscore.analysis.engines.face_mesh import FaceMeshEngine
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed
from tests.fixtures import photos

# What a photo without a face is told (a nearly black patch: too dark).
FACELESS = (messages.NO_FACE_FOUND, messages.FACE_TOO_DARK, messages.FACE_TOO_BRIGHT)


@functools.cache
def lfw_meshed() -> tuple[int, int]:
    """How many of the LFW faces get their 478 landmarks, out of how many."""
    real_faces, _ = photos.lfw_patches()
    found = 0
    for grey in real_faces:
        try:
            face_landmarks.locate_face(grey[:, :, None].repeat(3, axis=2))
        except ValidationFailed:
            continue
        found += 1
    return found, len(real_faces)


def test_the_landmarks_of_nearly_every_real_face_are_found():
    found, faces = lfw_meshed()
    assert found >= 0.95 * faces


@pytest.mark.parametrize("chunk", range(4))
def test_patches_of_real_photos_without_a_face_are_not_taken_for_faces(chunk):
    _, non_faces = photos.lfw_patches()
    engine = FaceMeshEngine()
    for grey in non_faces[chunk * 25 : (chunk + 1) * 25]:
        with pytest.raises(ValidationFailed) as refused:
            engine.analyse(grey)
        assert refused.value.message in FACELESS


def test_the_score_rises_with_quality_and_the_top_stays_rare():
    score = face_calibration.overall_score
    qualities = [i / 100 for i in range(101)]
    scores = [score(q) for q in qualities]
    assert scores == sorted(scores)
    assert score(0.0) == 1.0
    assert score(0.8) < 9.0
    assert score(0.9) < 9.5
    assert score(face_calibration.TOP_QUALITY - 0.01) < 10.0 == score(face_calibration.TOP_QUALITY)


def test_a_measure_in_its_ideal_range_counts_more_than_one_outside_it():
    for ideal in face_calibration.HARMONY_IDEALS:
        centre = (ideal.low + ideal.high) / 2
        width = ideal.high - ideal.low
        assert ideal.quality(centre) == 1.0
        assert ideal.quality(ideal.low) == pytest.approx(face_calibration.EDGE_QUALITY)
        assert ideal.quality(ideal.high + width) < ideal.quality(ideal.high)
        assert ideal.note(centre).in_ideal_range
        assert not ideal.note(ideal.high + width).in_ideal_range
