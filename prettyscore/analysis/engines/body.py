"""The ``analysis`` engines for feet, hands and pet photos: a real, deterministic look.

Each photo is shrunk once to two small working copies (``body_measures``), so a
12-megapixel upload is analysed in about the time a thumbnail is; its light, colour,
sharpness and subject are measured, a hands photo's hand is found and measured on
MediaPipe Hands' 21 landmarks (``hand_landmarks``), a pet photo is searched for a cat's
face (``body_pet``), and ``body_calibration`` turns the measures into the kind's four
sub-scores and its overall score. The same pixels always give the same figures.

A photo that cannot be judged at all is refused: one too small to look at, or blank (a
plain colour, a smooth gradient, noise on a flat field). So is a hands photo in which
no hand is found, as a photo without a face is on the face page, and a feet photo that
shows no feet (``body_subject``): one with too little skin standing out from its
background, a face, or a cat's face. A pet photo of anything else gets a fair score from
what it shows: the results are for entertainment.
"""

from __future__ import annotations

import numpy as np

from prettyscore.analysis import kinds
from prettyscore.analysis.engines import body_calibration, body_subject, hand_landmarks
from prettyscore.analysis.engines import body_measures as bm
from prettyscore.analysis.engines.base import BodyAnalysis
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed

# A photo's short side must have at least this many pixels.
MIN_SIDE = 64
# Grey levels between the 1st and 99th percentile: a flat field has a handful.
MIN_TONAL_SPREAD = 16.0
# Share of the view on an edge (``body_measures.structure_share``): real photos have
# 2% and more (a clock face on a plain wall, a colour wheel), a smooth gradient none.
MIN_STRUCTURE_SHARE = 0.005

UNUSABLE = {
    kinds.FEET: messages.FEET_PHOTO_UNUSABLE,
    kinds.HANDS: messages.HANDS_PHOTO_UNUSABLE,
    kinds.PET: messages.PET_PHOTO_UNUSABLE,
}


class BodyPhotoEngine:
    """Scores a feet, hands or pet photo (one engine per kind) from what it measures."""

    name = "analysis"

    def __init__(self, kind: str):
        if kind not in kinds.BODY_KINDS:
            raise ValueError(f"unknown kind {kind!r}; expected one of {kinds.BODY_KINDS}")
        self.kind = kind

    def analyse(self, image: np.ndarray) -> BodyAnalysis:
        copies = self.usable_copies(image)
        if self.kind == kinds.FEET:
            body_subject.check_feet(copies)
        hand = None
        if self.kind == kinds.HANDS:
            rgb = bm.as_rgb(image)
            found = hand_landmarks.locate_hand(rgb)
            view_height, view_width = copies.view.shape[:2]
            hand = found.scaled(view_width / rgb.shape[1], view_height / rgb.shape[0])
        result = body_calibration.score_photo(self.kind, copies, hand)
        return BodyAnalysis(
            kind=self.kind,
            score=result.score,
            breakdown=result.breakdown,
            engine=self.name,
            measures=result.measures,
        )

    def usable_copies(self, image: np.ndarray) -> bm.Copies:
        """The photo's working copies; refuses a photo too small or too blank to judge."""
        rgb = bm.as_rgb(image)
        if min(rgb.shape[:2]) < MIN_SIDE:
            raise ValidationFailed(UNUSABLE[self.kind])
        copies = bm.working_copies(rgb)
        if (
            bm.tonal_spread(copies) < MIN_TONAL_SPREAD
            or bm.structure_share(copies) < MIN_STRUCTURE_SHARE
        ):
            raise ValidationFailed(UNUSABLE[self.kind])
        return copies


def engine_for(kind: str) -> BodyPhotoEngine:
    """The ``analysis`` engine for ``kind`` (feet, hands or pet)."""
    return BodyPhotoEngine(kind)
