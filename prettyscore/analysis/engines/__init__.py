"""Face-scoring engines, chosen by name in settings (``SCORING_ENGINE``).

``analysis`` (the default) really looks at the photo (MediaPipe's face and hand models);
``simulated`` is the documents' random score. Engines are imported on first use, so
choosing ``simulated`` never loads the models.
"""

from __future__ import annotations

import functools

from prettyscore.analysis.engines.base import BodyScoringEngine, FaceScoringEngine
from prettyscore.core.settings import get_settings

ENGINE_NAMES = ("analysis", "simulated")


@functools.cache
def engine_named(name: str) -> FaceScoringEngine:
    """The engine called ``name`` (one shared instance per process)."""
    if name == "analysis":
        from prettyscore.analysis.engines.face_mesh import FaceMeshEngine

        return FaceMeshEngine()
    if name == "simulated":
        from prettyscore.analysis.engines.simulated import SimulatedFaceEngine

        return SimulatedFaceEngine()
    raise ValueError(f"unknown scoring engine {name!r}; expected one of {ENGINE_NAMES}")


def get_face_engine() -> FaceScoringEngine:
    """The engine the settings choose (``SCORING_ENGINE``, default ``analysis``)."""
    return engine_named(get_settings().scoring_engine)


@functools.cache
def body_engine_named(name: str, kind: str) -> BodyScoringEngine:
    """The ``kind`` engine (feet, hands or pet) of the family called ``name``."""
    if name == "analysis":
        from prettyscore.analysis.engines.body import engine_for

        return engine_for(kind)
    if name == "simulated":
        from prettyscore.analysis.engines.simulated import SimulatedBodyEngine

        return SimulatedBodyEngine(kind)
    raise ValueError(f"unknown scoring engine {name!r}; expected one of {ENGINE_NAMES}")


def get_body_engine(kind: str) -> BodyScoringEngine:
    """The ``kind`` engine of the family the settings choose (``SCORING_ENGINE``)."""
    return body_engine_named(get_settings().scoring_engine, kind)
