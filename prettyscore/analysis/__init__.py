"""The face and body analysis: what a photo shows, measured on the server.

Plain Python over OpenCV and MediaPipe's bundled models; it imports nothing of the app
but ``core``, so the areas above it (the score's flow, the edits, the video) use it
without it knowing them (``tests/core/test_analysis_layer.py`` keeps it so).

- ``engines/``: the vision library (detection, the face mesh and its measures, skin,
  calibration, feet, hands, pets, the simulated engine), chosen by ``SCORING_ENGINE``;
- ``face``: the one call that scores a face; ``service``: staging a photo and the
  ``ScoreResult`` a flow shows and saves; ``tiers`` and ``kinds``: what a score means on
  screen; ``explanation``: "How we got your score" drawn on the photo.

The names below are the surface other areas use (the edits' masks, the video's framing).
They are loaded on first use, so importing ``analysis.tiers`` does not load the models.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prettyscore.analysis.engines import face_mesh_points, face_photo
    from prettyscore.analysis.engines.base import BodyAnalysis, FaceAnalysis
    from prettyscore.analysis.engines.face_landmarks import (
        FULL_RANGE,
        SHORT_RANGE,
        Detection,
        detect,
        mesh_points,
    )
    from prettyscore.analysis.engines.face_score import term_shares
    from prettyscore.analysis.engines.face_skin import polygon_mask
    from prettyscore.analysis.engines.mediapipe_models import POSE, SELFIE_SEGMENTATION
    from prettyscore.analysis.face import analyse_body, analyse_face

#: Each public name and the module that defines it.
_PUBLIC = {
    # The analyses: a face's score and measures, a feet, hands or pet photo's.
    "analyse_face": "prettyscore.analysis.face",
    "analyse_body": "prettyscore.analysis.face",
    "FaceAnalysis": "prettyscore.analysis.engines.base",
    "BodyAnalysis": "prettyscore.analysis.engines.base",
    # How well a photo shows the face (light, sharpness, grain, expression, framing):
    # the aspects' names, and what differs between two photos of one person.
    "face_photo": "prettyscore.analysis.engines.face_photo",
    # How much each measure counts in the face's score (the fitted model's weights).
    "term_shares": "prettyscore.analysis.engines.face_score",
    # Finding a face and its 478 landmarks as the score does (the edits follow the face).
    "Detection": "prettyscore.analysis.engines.face_landmarks",
    "FULL_RANGE": "prettyscore.analysis.engines.face_landmarks",
    "SHORT_RANGE": "prettyscore.analysis.engines.face_landmarks",
    "detect": "prettyscore.analysis.engines.face_landmarks",
    "mesh_points": "prettyscore.analysis.engines.face_landmarks",
    # The named landmarks (eyes, brows, lips, the face's oval...) and the skin's masks.
    "face_mesh_points": "prettyscore.analysis.engines.face_mesh_points",
    "polygon_mask": "prettyscore.analysis.engines.face_skin",
    # The person's outline (MediaPipe's selfie segmentation, one model per thread).
    "SELFIE_SEGMENTATION": "prettyscore.analysis.engines.mediapipe_models",
    # The body's landmarks (MediaPipe's pose, one model per thread): where clothes are.
    "POSE": "prettyscore.analysis.engines.mediapipe_models",
}

__all__ = [
    "FULL_RANGE",
    "POSE",
    "SELFIE_SEGMENTATION",
    "SHORT_RANGE",
    "BodyAnalysis",
    "Detection",
    "FaceAnalysis",
    "analyse_body",
    "analyse_face",
    "detect",
    "face_mesh_points",
    "face_photo",
    "mesh_points",
    "polygon_mask",
    "term_shares",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module the first time it is asked for."""
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = importlib.import_module(module)
    value = found if module.endswith(f".{name}") else getattr(found, name)
    globals()[name] = value
    return value
