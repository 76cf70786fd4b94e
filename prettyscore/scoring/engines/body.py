"""PLACEHOLDER, replaced before this lands: the feet, hands and pet analysis engines.

Deterministic (seeded by the image's bytes) so the pages can be built against it.
"""

from __future__ import annotations

import hashlib
import random

import numpy as np

from prettyscore.scoring.engines.base import BodyAnalysis
from prettyscore.scoring.engines.simulated import SimulatedBodyEngine


class _SeededEngine:
    name = "analysis"

    def __init__(self, kind: str):
        self.kind = kind

    def analyse(self, image: np.ndarray) -> BodyAnalysis:
        seed = int.from_bytes(hashlib.sha256(image.tobytes()).digest()[:8], "big")
        result = SimulatedBodyEngine(self.kind, random.Random(seed)).analyse(image)
        return BodyAnalysis(
            kind=self.kind, score=result.score, breakdown=result.breakdown, engine=self.name
        )


def engine_for(kind: str) -> _SeededEngine:
    return _SeededEngine(kind)
