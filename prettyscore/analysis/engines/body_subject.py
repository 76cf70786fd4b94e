"""Whether a feet photo shows feet.

There is no detector of feet to ask, so a feet photo is refused (``messages.NO_FEET_FOUND``)
on what can be found honestly, on the photo's small working copies (``body_measures``):

1. **Too little skin.** Bare feet are skin against a floor, a towel, grass or a sheet.
   The skin (``body_measures.skin_mask``, found by its chroma, on the view with its light
   levelled so a dark photo of deep skin is found as a bright one is) must cover at least
   ``MIN_SKIN_SHARE`` of the frame, and stand out from a background that is not skin:
   it may cover at most ``MAX_BORDER_SKIN_SHARE`` of the frame's border (legs and ankles
   leave the frame there; a wooden table, a cat's fur or a stained tissue filling the
   photo covers it all). A photo without colour shows no skin and is refused too.
2. **A face.** The face page's two face detectors (``face_landmarks.detect``, full and
   short range, with the confidence floors by which the face page says "no face") look
   at the grey view: a portrait or a selfie is not a photo of feet.
3. **A cat's face.** The pet page's search (``body_pet.find_cat_face``).

MediaPipe Hands is not asked: it takes drawn feet for hands (each foot a hand, the toes
its fingers, at up to 0.99 confidence), more often for light skin than for deep. A
photo of a hand is therefore judged on the feet page as before.

The thresholds and the cost were measured on the drawn feet of every skin tone and
background and on the photos scikit-image ships (tests/analysis/NOTES.md, 'Feet or not').
"""

from __future__ import annotations

import cv2
import numpy as np

from prettyscore.analysis.engines import body_measures as bm
from prettyscore.analysis.engines import face_landmarks
from prettyscore.analysis.engines.body_pet import find_cat_face
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed

# The skin must cover at least this share of the frame.
MIN_SKIN_SHARE = 0.045
# ... and at most this share of the frame's border, a ring BORDER_SHARE of its short
# side wide.
MAX_BORDER_SKIN_SHARE = 0.25
BORDER_SHARE = 0.05
# The view's light is levelled before skin is looked for: its highlights (99th
# percentile of grey) brought up to LEVEL_HIGHLIGHTS, with a gain of at most LEVEL_MAX_GAIN.
LEVEL_HIGHLIGHTS = 200.0
LEVEL_MAX_GAIN = 4.0


def check_feet(copies: bm.Copies) -> None:
    """Refuse a feet photo that shows no feet (see the module's docstring), the cheapest
    look first."""
    frame, border = skin_shares(copies)
    if frame < MIN_SKIN_SHARE or border > MAX_BORDER_SKIN_SHARE:
        raise ValidationFailed(messages.NO_FEET_FOUND)
    if face_found(copies.gray) or find_cat_face(copies.gray) is not None:
        raise ValidationFailed(messages.NO_FEET_FOUND)


def skin_shares(copies: bm.Copies) -> tuple[float, float]:
    """The share of the frame, and of its border, that the skin covers (its largest
    region and those beside it, ``body_measures.main_regions``), found on the levelled
    view."""
    skin = bm.main_regions(bm.skin_mask(levelled(copies))) > 0
    height, width = skin.shape
    ring = max(1, round(BORDER_SHARE * min(height, width)))
    border = np.ones_like(skin)
    border[ring:-ring, ring:-ring] = False
    return float(skin.mean()), float(skin[border].mean())


def levelled(copies: bm.Copies) -> np.ndarray:
    """The view brightened so its highlights reach ``LEVEL_HIGHLIGHTS`` (never darkened).

    Darkening a photo scales its chroma with its light: in a dim photo, deep skin falls
    out of skin's chroma and brightness where light skin in the same light does not.
    """
    (highlights,) = bm.levels_at(copies.gray, (99,))
    gain = min(LEVEL_HIGHLIGHTS / max(highlights, 1.0), LEVEL_MAX_GAIN)
    if gain <= 1.0:
        return copies.view
    return cv2.convertScaleAbs(copies.view, alpha=gain)


def face_found(gray: np.ndarray) -> bool:
    """Whether the face page's detectors find a face in ``gray``: the first look of
    ``face_landmarks.find_faces``, without its tiles and whole-photo mesh."""
    return bool(
        face_landmarks.detect(gray, face_landmarks.FULL_RANGE)
        or face_landmarks.detect(
            gray, face_landmarks.SHORT_RANGE, face_landmarks.SHORT_RANGE_MIN_SCORE
        )
    )
