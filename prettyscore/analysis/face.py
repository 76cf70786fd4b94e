"""The calls the flows make: score the face, or the feet, hands or pet, in a decoded photo.

Both use the engines the settings choose (``SCORING_ENGINE``: ``analysis`` by default,
or ``simulated``). They are CPU work of some tens of milliseconds: call them off the
event loop (``asyncio.to_thread``).
"""

from __future__ import annotations

import numpy as np

from prettyscore.analysis.engines import get_body_engine, get_face_engine
from prettyscore.analysis.engines.base import BodyAnalysis, FaceAnalysis

__all__ = ["BodyAnalysis", "FaceAnalysis", "analyse_body", "analyse_face"]


def analyse_face(image: np.ndarray) -> FaceAnalysis:
    """Score the one face in ``image`` (RGB uint8, H×W×3, EXIF orientation applied).

    Raises ``ValidationFailed`` with the user's text when there is no face, more than
    one, or a face too blurred, dark or bright to judge.
    """
    return get_face_engine().analyse(image)


def analyse_body(kind: str, image: np.ndarray) -> BodyAnalysis:
    """Score a feet, hands or pet photo (``kinds.BODY_KINDS``); raises ``ValidationFailed``
    with the user's text when the photo does not show one."""
    return get_body_engine(kind).analyse(image)
