"""The one call the upload flow makes: score the face in a decoded photo.

``analyse_face`` uses the engine the settings choose (``SCORING_ENGINE``: ``analysis``
by default, or ``simulated``). It is CPU work of some tens of milliseconds: call it off
the event loop (``asyncio.to_thread``).
"""

from __future__ import annotations

import numpy as np

from prettyscore.scoring.engines import get_face_engine
from prettyscore.scoring.engines.base import FaceAnalysis

__all__ = ["FaceAnalysis", "analyse_face"]


def analyse_face(image: np.ndarray) -> FaceAnalysis:
    """Score the one face in ``image`` (RGB uint8, H×W×3, EXIF orientation applied).

    Raises ``ValidationFailed`` with the user's text when there is no face, more than
    one, or a face too blurred, dark or bright to judge.
    """
    return get_face_engine().analyse(image)
