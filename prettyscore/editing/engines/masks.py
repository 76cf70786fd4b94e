"""Where the person is: the face box and soft masks for the subject, hair, outfit and face.

Everything is worked out on a small copy (long side ``WORK_LONG_SIDE``), so the cost
hardly depends on the photo's resolution, then enlarged and feathered on demand:

- the face box comes from the scoring engine's Haar detector (the largest face when
  there are several; a centred box when there is none);
- the subject (foreground) is OpenCV's GrabCut, seeded by that box: the face's centre and
  the chest below it are certainly the subject, the hair above, the face box and a
  shoulders-wide body region below are probably the subject, the top and side borders
  are certainly background and the rest probably is. The RNG is seeded, so the same
  photo always gives the same mask;
- hair is a band from above the face box down to its top third, widened to the temples,
  within the subject, minus the oval of the face;
- the outfit is the subject below the chin; the face is the oval inside the face box.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from prettyscore.core.errors import ValidationFailed
from prettyscore.scoring.engines import face as face_engine

WORK_LONG_SIDE = 512
# GrabCut's cost grows with its pixels: it runs on a still smaller copy.
GRABCUT_LONG_SIDE = 384
GRABCUT_ITERATIONS = 3
GRABCUT_SEED = 20261121


@dataclass(frozen=True)
class FaceBox:
    x: float
    y: float
    w: float
    h: float

    def scaled(self, factor: float) -> FaceBox:
        return FaceBox(self.x * factor, self.y * factor, self.w * factor, self.h * factor)

    @property
    def centre_x(self) -> float:
        return self.x + self.w / 2


def work_copy(image: np.ndarray, long_side: int = WORK_LONG_SIDE) -> tuple[np.ndarray, float]:
    """A copy with long side at most ``long_side``, and the factor it was scaled by."""
    factor = min(1.0, long_side / max(image.shape[:2]))
    if factor >= 1.0:
        return image, 1.0
    size = (max(1, round(image.shape[1] * factor)), max(1, round(image.shape[0] * factor)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA), factor


def detect_face(small: np.ndarray) -> FaceBox:
    """The main face in ``small`` (RGB), or a centred guess when none is found."""
    gray = face_engine.to_gray(small)
    try:
        box = face_engine.find_single_face(gray).box
    except ValidationFailed:
        candidates = face_engine.candidate_boxes(gray)
        if not candidates:
            return centred_box(small.shape[1], small.shape[0])
        box = max(candidates, key=lambda b: (b.w, -b.y, -b.x))
    return FaceBox(float(box.x), float(box.y), float(box.w), float(box.h))


def centred_box(width: int, height: int) -> FaceBox:
    """Where a portrait's face usually is: centred, in the upper part."""
    side = 0.28 * min(width, height)
    return FaceBox(width / 2 - side / 2, 0.22 * height, side, side)


def _rect(mask: np.ndarray, x0: float, y0: float, x1: float, y1: float, value: int) -> None:
    h, w = mask.shape
    xa, xb = max(0, round(x0)), min(w, round(x1))
    ya, yb = max(0, round(y0)), min(h, round(y1))
    if xa < xb and ya < yb:
        mask[ya:yb, xa:xb] = value


def face_oval(shape: tuple[int, int], box: FaceBox) -> np.ndarray:
    """A filled ellipse (0/1 uint8) over the face inside its box, forehead included."""
    oval = np.zeros(shape, np.uint8)
    centre = (round(box.centre_x), round(box.y + 0.56 * box.h))
    axes = (max(1, round(0.40 * box.w)), max(1, round(0.58 * box.h)))
    cv2.ellipse(oval, centre, axes, 0, 0, 360, 1, -1)
    return oval


def grabcut_seed(shape: tuple[int, int], box: FaceBox) -> np.ndarray:
    """GrabCut's starting labels for a portrait with its face in ``box``."""
    h, w = shape
    seed = np.full(shape, cv2.GC_PR_BGD, np.uint8)
    border = max(2, round(0.03 * max(h, w)))
    seed[:border, :] = cv2.GC_BGD
    seed[:, :border] = cv2.GC_BGD
    seed[:, w - border :] = cv2.GC_BGD
    fx, fy, fw, fh, cx = box.x, box.y, box.w, box.h, box.centre_x
    # Probably the subject: hair above the face, the face, neck and shoulders below.
    _rect(seed, fx - 0.15 * fw, fy - 0.45 * fh, fx + 1.15 * fw, fy + fh, cv2.GC_PR_FGD)
    _rect(seed, cx - 0.45 * fw, fy + fh, cx + 0.45 * fw, fy + 1.4 * fh, cv2.GC_PR_FGD)
    _rect(seed, cx - 1.5 * fw, fy + 1.4 * fh, cx + 1.5 * fw, h, cv2.GC_PR_FGD)
    # Certainly the subject: the middle of the face and the chest under the chin.
    seed[face_oval(shape, FaceBox(fx + 0.2 * fw, fy + 0.15 * fh, 0.6 * fw, 0.7 * fh)) > 0] = (
        cv2.GC_FGD
    )
    _rect(seed, cx - 0.3 * fw, fy + 1.5 * fh, cx + 0.3 * fw, fy + 2.6 * fh, cv2.GC_FGD)
    return seed


def grabcut_subject(image: np.ndarray, image_box: FaceBox) -> np.ndarray:
    """The subject as a 0/1 uint8 mask of ``image``'s size (worked out on a smaller copy)."""
    small, factor = work_copy(image, GRABCUT_LONG_SIDE)
    box = image_box.scaled(factor)
    seed = grabcut_seed(small.shape[:2], box)
    background = np.zeros((1, 65), np.float64)
    foreground = np.zeros((1, 65), np.float64)
    cv2.setRNGSeed(GRABCUT_SEED)
    bgr = cv2.cvtColor(np.ascontiguousarray(small), cv2.COLOR_RGB2BGR)
    cv2.grabCut(bgr, seed, None, background, foreground, GRABCUT_ITERATIONS, cv2.GC_INIT_WITH_MASK)
    subject = np.isin(seed, (cv2.GC_FGD, cv2.GC_PR_FGD)).astype(np.uint8)
    subject = filled(keep_face_component(cleaned(subject), box))
    if factor < 1.0:
        size = (image.shape[1], image.shape[0])
        subject = cv2.resize(subject * 255, size, interpolation=cv2.INTER_LINEAR) > 127
    return subject.astype(np.uint8)


def filled(mask: np.ndarray) -> np.ndarray:
    """The mask with its holes filled (a badge or a buckle is part of the subject)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    result = np.zeros_like(mask)
    cv2.drawContours(result, contours, -1, 1, thickness=cv2.FILLED)
    return result


def cleaned(mask: np.ndarray) -> np.ndarray:
    size = max(3, round(0.012 * max(mask.shape)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
    return cv2.morphologyEx(closed, cv2.MORPH_OPEN, kernel)


def keep_face_component(mask: np.ndarray, box: FaceBox) -> np.ndarray:
    """Only the connected part that holds the face (islands in the background go)."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count <= 2:
        return mask
    oval = face_oval(mask.shape, box) > 0
    overlap = np.bincount(labels[oval], minlength=count)
    overlap[0] = 0
    best = int(np.argmax(overlap)) if overlap.max() > 0 else int(np.argmax(stats[1:, 4]) + 1)
    return (labels == best).astype(np.uint8)


def smoothstep(values: np.ndarray, edge0: float, edge1: float) -> np.ndarray:
    t = np.clip((values - edge0) / max(edge1 - edge0, 1e-6), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


class Regions:
    """The masks of one photo; each is computed once, at full size, when first asked for.

    Masks are float32 arrays of the photo's height×width with values in [0, 1].
    """

    def __init__(self, image: np.ndarray):
        self.height, self.width = image.shape[:2]
        self.small, self.factor = work_copy(image)
        self.small_box = detect_face(self.small)
        self.face_box = self.small_box.scaled(1.0 / self.factor)

    @functools.cached_property
    def small_subject(self) -> np.ndarray:
        return grabcut_subject(self.small, self.small_box)

    def enlarged(self, small_mask: np.ndarray, feather: float) -> np.ndarray:
        """A 0/1 (or soft) work-size mask, feathered and enlarged to the photo's size."""
        soft = small_mask.astype(np.float32)
        sigma = feather * max(soft.shape)
        if sigma > 0.3:
            soft = cv2.GaussianBlur(soft, (0, 0), sigma)
        if soft.shape != (self.height, self.width):
            soft = cv2.resize(soft, (self.width, self.height), interpolation=cv2.INTER_LINEAR)
        return np.clip(soft, 0.0, 1.0)

    @functools.cached_property
    def subject(self) -> np.ndarray:
        return self.enlarged(self.small_subject, 0.004)

    def _rows_cols(self) -> tuple[np.ndarray, np.ndarray]:
        h, w = self.small.shape[:2]
        return np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]

    @functools.cached_property
    def small_hair(self) -> np.ndarray:
        box = self.small_box
        rows, cols = self._rows_cols()
        top = smoothstep(rows, box.y - 0.75 * box.h, box.y - 0.35 * box.h)
        bottom = 1.0 - smoothstep(rows, box.y + 0.25 * box.h, box.y + 0.45 * box.h)
        across = 1.0 - smoothstep(np.abs(cols - box.centre_x), 0.55 * box.w, 0.8 * box.w)
        band = top * bottom * across
        outside_face = 1.0 - face_oval(self.small.shape[:2], box).astype(np.float32)
        return band * outside_face * self.small_subject

    @functools.cached_property
    def hair(self) -> np.ndarray:
        return self.enlarged(self.small_hair, 0.006)

    @functools.cached_property
    def small_outfit(self) -> np.ndarray:
        box = self.small_box
        rows, _ = self._rows_cols()
        below_chin = smoothstep(rows, box.y + 1.2 * box.h, box.y + 1.5 * box.h)
        return below_chin * self.small_subject

    @functools.cached_property
    def outfit(self) -> np.ndarray:
        return self.enlarged(self.small_outfit, 0.006)

    @functools.cached_property
    def face(self) -> np.ndarray:
        return self.enlarged(face_oval(self.small.shape[:2], self.small_box), 0.01)
