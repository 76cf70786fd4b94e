"""The ``simulated`` engine: the documents' behaviour, exactly (document 000 §9).

"Simulated score is an integer 7 to 9. Breakdown values are the score plus random noise
of up to 1, capped at 10, one decimal." It never looks at the photo; it exists so the
product can run as the documents describe it, and for demonstrations.
"""

from __future__ import annotations

import random

import numpy as np

from prettyscore.analysis.engines.base import BREAKDOWN_KEYS, BodyAnalysis, FaceAnalysis
from prettyscore.analysis.kinds import BREAKDOWN_KEYS as BREAKDOWN_KEYS_BY_KIND

SIMULATED_SCORES = (7, 9)  # inclusive
MAX_NOISE = 1.0
BREAKDOWN_CAP = 10.0


class SimulatedFaceEngine:
    """A random score of 7, 8 or 9 with a breakdown a little above it."""

    name = "simulated"

    def __init__(self, rng: random.Random | None = None):
        # The module-level generator by default; tests pass a seeded one.
        self._rng = rng or random.Random()

    def analyse(self, image: np.ndarray) -> FaceAnalysis:
        score = self._rng.randint(*SIMULATED_SCORES)
        breakdown = {key: self._noisy(score) for key in BREAKDOWN_KEYS}
        return FaceAnalysis(score=float(score), breakdown=breakdown, engine=self.name)

    def _noisy(self, score: int) -> float:
        """The score plus uniform noise in [0, 1), capped at 10, one decimal."""
        return round(min(score + self._rng.uniform(0.0, MAX_NOISE), BREAKDOWN_CAP), 1)


class SimulatedBodyEngine:
    """Feet, hands and pets as the documents do them (document 001 §9): a random
    integer 7 to 9, and each sub-score the score plus a random offset of -1 to +1,
    capped at 10, one decimal."""

    name = "simulated"

    def __init__(self, kind: str, rng: random.Random | None = None):
        self.kind = kind
        self._rng = rng or random.Random()

    def analyse(self, image: np.ndarray) -> BodyAnalysis:
        score = self._rng.randint(*SIMULATED_SCORES)
        breakdown = {key: self._offset(score) for key in BREAKDOWN_KEYS_BY_KIND[self.kind]}
        return BodyAnalysis(
            kind=self.kind, score=float(score), breakdown=breakdown, engine=self.name
        )

    def _offset(self, score: int) -> float:
        value = score + self._rng.uniform(-MAX_NOISE, MAX_NOISE)
        return round(min(max(value, 0.0), BREAKDOWN_CAP), 1)
