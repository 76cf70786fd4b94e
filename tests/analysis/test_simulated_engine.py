"""The ``simulated`` engine: the documents' random score, exactly (document 000 §9)."""

from __future__ import annotations

import random

import numpy as np

from prettyscore.analysis.engines.base import BREAKDOWN_KEYS
from prettyscore.analysis.engines.simulated import SimulatedFaceEngine

ANY_IMAGE = np.zeros((4, 4, 3), np.uint8)
RUNS = 3000


def results(seed: int = 0, runs: int = RUNS):
    engine = SimulatedFaceEngine(random.Random(seed))
    return [engine.analyse(ANY_IMAGE) for _ in range(runs)]


def test_scores_are_the_integers_7_8_and_9_and_each_occurs():
    scores = [result.score for result in results()]
    assert set(scores) == {7.0, 8.0, 9.0}
    for value in (7.0, 8.0, 9.0):
        assert scores.count(value) > RUNS / 4  # roughly a third each


def test_breakdown_is_the_score_plus_up_to_one_capped_at_ten_with_one_decimal():
    for result in results():
        assert tuple(result.breakdown) == BREAKDOWN_KEYS
        for value in result.breakdown.values():
            assert result.score <= value <= min(result.score + 1.0, 10.0)
            assert abs(value * 10 - round(value * 10)) < 1e-9


def test_noise_spreads_over_the_whole_point_and_a_nine_can_reach_ten():
    values = [(r.score, v) for r in results() for v in r.breakdown.values()]
    fractions = {round(v - s, 1) for s, v in values if s < 9}
    assert {0.0, 0.5, 0.9} <= fractions
    assert any(v == 10.0 for s, v in values if s == 9)


def test_the_same_seed_gives_the_same_sequence_and_no_face_is_looked_for():
    first, second = results(seed=42, runs=50), results(seed=42, runs=50)
    assert first == second
    assert all(result.face_box is None for result in first)
    assert all(result.engine == "simulated" for result in first)


def test_without_a_generator_results_still_vary():
    engine = SimulatedFaceEngine()
    assert len({engine.analyse(ANY_IMAGE).breakdown["symmetry"] for _ in range(50)}) > 1
