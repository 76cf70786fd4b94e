"""Calibration on a population of real faces: finding them, and the shape of the scale.

scikit-image ships 100 small real faces from the LFW data set (and 100 patches of the
same photos without a face), 25 pixels across, enlarged here to 150. The score's
distribution over them and the portraits is printed by ``test_fairness.py``; its
agreement with people's ratings and its fairness by ``test_agreement.py``.
"""

from __future__ import annotations

import functools

import pytest

from prettyscore.analysis.engines import face_landmarks, face_score
from prettyscore.analysis.engines.face_mesh import FaceMeshEngine
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed
from tests.analysis.model_faces import descriptor_contributing, typical_descriptor
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


def test_the_score_rises_with_standing_and_the_top_stays_rare():
    """The scale's claims: a typical face scores 7.5, 9.5 ("top 1%") needs the top 1% of a
    normal population, 9.9 its top 0.01%, and exactly 10 is never reached short of the
    world record's standing."""
    positions = [i / 100 for i in range(-800, 500)]
    scores = [face_score.scaled(position) for position in positions]
    assert scores == sorted(scores)
    assert face_score.scaled(0.0) == 7.5
    # "Top 1%" starts at a normal population's top 1%, or further out where the reference
    # population's own top 1% is.
    top = max(face_score.TOP_1_PERCENT, face_score.parameters().reference_top)
    assert top >= face_score.TOP_1_PERCENT
    assert face_score.scaled(top - 0.001) < 9.5
    assert face_score.scaled(top + 0.001) == 9.5
    assert face_score.scaled(face_score.TOP_0_01_PERCENT - 0.001) < 9.9
    assert face_score.scaled(face_score.TOP_0_01_PERCENT + 0.001) == 9.9
    record = face_score.parameters().record_standing
    assert face_score.scaled(record - 0.01) == 9.9
    assert face_score.scaled(record) == 10.0
    assert min(scores) >= 1.0


def test_the_world_record_needs_a_face_beyond_every_reference_face():
    """10 ("World Record", a $100,000 claim) is for a face that beats the best of the 142
    reference faces by a clear margin: reachable, with every term at the edge of the
    range the model holds it to, and out of reach of the best reference face."""
    fitted = face_score.parameters()
    best = (fitted.reference_best - fitted.reference_mean) / fitted.reference_sd
    assert fitted.record_standing >= best + face_score.RECORD_MARGIN
    # The best reference face (with its photo) may be the 1% at 9.5 or more, never 10.
    assert face_score.scaled(best) < 10.0
    extremes = {
        term.key: fitted.terms[term.key].high
        if term.higher_is_better
        else fitted.terms[term.key].low
        for term in face_score.TERMS
    }
    # The learned term as far beyond the reference's spread as the terms' edges are.
    beyond = descriptor_contributing(4.0 * fitted.contribution_sd[face_score.IMPRESSION])
    assert face_score.overall_score(face_score.predict(extremes, beyond)) == 10.0
    typical = {term.key: sum(fitted.terms[term.key].typical) / 2 for term in face_score.TERMS}
    assert 6.5 <= face_score.overall_score(face_score.predict(typical, typical_descriptor())) <= 8.5


def test_each_term_raises_the_score_the_way_its_note_says():
    fitted = face_score.parameters()
    typical = {term.key: sum(fitted.terms[term.key].typical) / 2 for term in face_score.TERMS}
    base = face_score.predict(typical, typical_descriptor()).rating
    for term in face_score.counted_terms():
        low, high = fitted.terms[term.key].typical
        raised = dict(typical, **{term.key: high if term.higher_is_better else low})
        assert face_score.predict(raised, typical_descriptor()).rating > base, term.key
    raised = descriptor_contributing(fitted.contribution_sd[face_score.IMPRESSION])
    assert face_score.predict(typical, raised).rating > base


def test_an_unclear_photo_gets_no_benefit_of_the_doubt():
    """A proportion the photo shows imprecisely counts towards its least favourable
    value: less precision never raises a prediction."""
    fitted = face_score.parameters()
    for level in ("low", "typical", "high"):
        values = {
            term.key: getattr(fitted.terms[term.key], level)
            if level != "typical"
            else fitted.terms[term.key].typical[0]
            for term in face_score.TERMS
        }
        ratings = [
            face_score.predict(
                values, typical_descriptor(), precision=dict.fromkeys(values, sure)
            ).rating
            for sure in (1.0, 0.7, 0.3, 0.0)
        ]
        assert ratings == sorted(ratings, reverse=True), level
