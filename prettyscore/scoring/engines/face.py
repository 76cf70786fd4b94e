"""The ``analysis`` engine: a real, deterministic look at the face in a photo.

It uses only OpenCV 4's bundled Haar cascades (``cv2.data.haarcascades``), so it works
offline and gives the same score for the same pixels every time. The steps:

1. Grey copy, then a small equalised copy (long side ``DETECT_LONG_SIDE``) on which the
   default frontal cascade proposes faces: a 12-megapixel photo is searched at that
   size, so the cost hardly depends on the upload's resolution.
2. Each proposal, largest first, is cut from the full-resolution grey image and resized
   (area averaging) to a canonical size, so every later measure sees the same number of
   pixels whatever the photo's resolution: a 12-megapixel copy scores like the photo.
3. A proposal is a face when a second cascade (alt2) strongly agrees and an eye is seen
   in it; that removes the false positives of the first (the astronaut's neck ring is
   one). No face, or a second face of real size, is refused with the user's text.
4. Exposure and sharpness of the face decide whether it can be judged at all.
5. The eyes are paired, and ``calibration`` levels the face on them, measures it
   (``face_measures``) and maps the measures to the breakdown and the score.

The face must be at least ``DETECT_MIN_FACE / DETECT_LONG_SIDE`` (7%) of the photo's long
side: a selfie or a portrait, not a distant figure.

Threads: OpenCV's cascade objects must not be shared between threads, so each thread
loads its own (once, some tens of milliseconds). Results do not depend on OpenCV's
thread count (proposals are sorted before use, hits only counted); tests check this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

import cv2
import numpy as np

from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed
from prettyscore.scoring.engines import calibration, face_measures
from prettyscore.scoring.engines.base import FaceAnalysis
from prettyscore.scoring.engines.cascades import ThreadCascades

# Face detection runs on a copy whose long side is this many pixels.
DETECT_LONG_SIDE = 400
DETECT_SCALE_FACTOR = 1.1
DETECT_MIN_NEIGHBOURS = 4
# Smallest face searched for, in pixels of the detection copy (7% of its long side).
DETECT_MIN_FACE = 28
# A second face counts when it is at least this wide relative to the largest one;
# smaller ones are background people or false positives.
SECOND_FACE_MIN_RELATIVE_WIDTH = 0.3
# The confirming cascade looks at the face crop resized so that the box is
# CONFIRM_FACE_SIZE pixels wide, and wants this many raw hits.
CONFIRM_FACE_SIZE = 80
CONFIRM_MIN_HITS = 10

# Sharpness of the face (``face_measures.sharpness``): sharp photos measure 0.3–0.6,
# a Gaussian blur of 2% of the face's width about 0.12.
TOO_BLURRED_BELOW = 0.15

# Exposure of the face (mean grey level of its centre, 0–255).
TOO_DARK_BELOW = 45.0
TOO_BRIGHT_ABOVE = 228.0
# Share of the face centre's pixels that are clipped to white.
TOO_MANY_CLIPPED = 0.3

CASCADE_FILES = {
    "face": "haarcascade_frontalface_default.xml",
    "confirm": "haarcascade_frontalface_alt2.xml",
    "eye": "haarcascade_eye.xml",
    "eye_glasses": "haarcascade_eye_tree_eyeglasses.xml",
}

FACE_CASCADES = ThreadCascades(CASCADE_FILES)


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle in pixels."""

    x: int
    y: int
    w: int
    h: int

    def scaled(self, factor: float) -> Box:
        return Box(*(round(v * factor) for v in (self.x, self.y, self.w, self.h)))

    def overlap_share(self, other: Box) -> float:
        """The share of this box's area that ``other`` covers."""
        dx = min(self.x + self.w, other.x + other.w) - max(self.x, other.x)
        dy = min(self.y + self.h, other.y + other.h) - max(self.y, other.y)
        if dx <= 0 or dy <= 0:
            return 0.0
        return dx * dy / (self.w * self.h)


class HaarFaceEngine:
    """Scores the one frontal face in a photo from what OpenCV can measure of it."""

    name = "analysis"

    def analyse(self, image: np.ndarray) -> FaceAnalysis:
        gray = to_gray(image)
        face = find_single_face(gray)
        check_exposure(face.crop)
        check_sharpness(face.crop)
        eyes = face_measures.best_eye_pair(face.eye_candidates)
        result = calibration.score_face(face.crop, eyes)
        return FaceAnalysis(
            score=result.score,
            breakdown=result.breakdown,
            face_box=(face.box.x, face.box.y, face.box.w, face.box.h),
            engine=self.name,
            measures=result.measures,
        )


def to_gray(image: np.ndarray) -> np.ndarray:
    """The luminance of an RGB (or RGBA, or already grey) ``uint8`` image.

    The analysis only ever looks at luminance: skin texture, symmetry and proportions do
    not need colour, and leaving hue out keeps the score independent of skin tone.
    """
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise TypeError("expected a uint8 numpy array")
    if image.ndim == 2:
        return np.ascontiguousarray(image)
    if image.ndim == 3 and image.shape[2] == 3:
        return cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_RGB2GRAY)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_RGBA2GRAY)
    raise ValueError(f"expected an RGB image of shape (h, w, 3), got {image.shape}")


@dataclass(frozen=True)
class FoundFace:
    """A face the analysis believes in: its box, its canonical crop, its eye detections."""

    box: Box
    crop: face_measures.FaceCrop
    eye_candidates: list[face_measures.EyeCandidate]


def find_single_face(gray: np.ndarray) -> FoundFace:
    """The one face in the photo; refuses a photo with none or with several.

    Candidates are taken largest first, so the first real face is the main one; after
    it, only a candidate at least ``SECOND_FACE_MIN_RELATIVE_WIDTH`` as wide, and not
    the same face found twice, can be a second face. Smaller ones (people far in the
    background, false positives) are not even checked.
    """
    main = None
    for box in sorted(candidate_boxes(gray), key=lambda box: (-box.w, box.y, box.x)):
        if main is not None:
            if box.w < SECOND_FACE_MIN_RELATIVE_WIDTH * main.box.w:
                break
            if box.overlap_share(main.box) >= 0.3:
                continue
        face = checked_face(gray, box)
        if face is None:
            continue
        if main is not None:
            raise ValidationFailed(messages.SEVERAL_FACES)
        main = face
    if main is None:
        refuse_faceless(gray)
    return main


def refuse_faceless(gray: np.ndarray) -> NoReturn:
    """No face found: say why if the whole photo is too dark or too bright to look at."""
    mean = float(gray.mean())
    if mean < TOO_DARK_BELOW:
        raise ValidationFailed(messages.FACE_TOO_DARK)
    if mean > TOO_BRIGHT_ABOVE:
        raise ValidationFailed(messages.FACE_TOO_BRIGHT)
    raise ValidationFailed(messages.NO_FACE_FOUND)


def checked_face(gray: np.ndarray, box: Box) -> FoundFace | None:
    """The face in ``box`` if it passes the checks, else None.

    The first cascade only proposes; a face is kept when a second cascade strongly
    agrees and at least one eye is seen in it.
    """
    cascades = FACE_CASCADES.get()
    crop = face_measures.FaceCrop.cut(gray, (box.x, box.y, box.w))
    if not confirmed_face(crop, cascades["confirm"]):
        return None
    eyes = face_measures.find_eye_candidates(crop, cascades["eye"], cascades["eye_glasses"])
    return FoundFace(box, crop, eyes) if eyes else None


def candidate_boxes(gray: np.ndarray) -> list[Box]:
    """What the frontal-face cascade proposes, in full-resolution pixels.

    Callers sort them: OpenCV's order may depend on how it split the work between
    threads, the set does not.
    """
    small, factor = detection_copy(gray)
    found = FACE_CASCADES.get()["face"].detectMultiScale(
        small,
        scaleFactor=DETECT_SCALE_FACTOR,
        minNeighbors=DETECT_MIN_NEIGHBOURS,
        minSize=(DETECT_MIN_FACE, DETECT_MIN_FACE),
    )
    return [Box(*map(int, row)).scaled(1.0 / factor) for row in found]


def detection_copy(gray: np.ndarray) -> tuple[np.ndarray, float]:
    """A histogram-equalised copy with long side ``DETECT_LONG_SIDE`` (never enlarged).

    Equalising makes detection indifferent to brightness and contrast.
    """
    factor = min(1.0, DETECT_LONG_SIDE / max(gray.shape))
    small = gray
    if factor < 1.0:
        size = (max(1, round(gray.shape[1] * factor)), max(1, round(gray.shape[0] * factor)))
        small = cv2.resize(gray, size, interpolation=cv2.INTER_AREA)
    return cv2.equalizeHist(small), factor


def confirmed_face(crop: face_measures.FaceCrop, cascade: cv2.CascadeClassifier) -> bool:
    """Whether a second cascade agrees, strongly, that the crop holds a face.

    The crop is shrunk so that the face is ``CONFIRM_FACE_SIZE`` pixels wide and the
    second cascade's raw hits (before grouping) are counted: on real faces, even small
    or laughing ones, they number 20 and more; on the false positives the first cascade
    finds (a space suit's neck ring, a patterned shirt) a handful.
    """
    factor = CONFIRM_FACE_SIZE / face_measures.FACE_SIZE
    region = cv2.resize(crop.pixels, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    hits = cascade.detectMultiScale(
        cv2.equalizeHist(region),
        scaleFactor=1.05,
        minNeighbors=0,
        minSize=(round(CONFIRM_FACE_SIZE * 0.7),) * 2,
        maxSize=(round(CONFIRM_FACE_SIZE * 1.4),) * 2,
    )
    return len(hits) >= CONFIRM_MIN_HITS


def check_exposure(crop: face_measures.FaceCrop) -> None:
    """Refuse a face too dark or too bright for its texture and shape to be measured."""
    centre = crop.centre()
    mean = float(centre.mean())
    if mean < TOO_DARK_BELOW:
        raise ValidationFailed(messages.FACE_TOO_DARK)
    clipped = float((centre >= 250).mean())
    if mean > TOO_BRIGHT_ABOVE or clipped > TOO_MANY_CLIPPED:
        raise ValidationFailed(messages.FACE_TOO_BRIGHT)


def check_sharpness(crop: face_measures.FaceCrop) -> None:
    """Refuse a face too blurred for its texture and features to be judged."""
    if face_measures.sharpness(crop) < TOO_BLURRED_BELOW:
        raise ValidationFailed(messages.FACE_TOO_BLURRED)
