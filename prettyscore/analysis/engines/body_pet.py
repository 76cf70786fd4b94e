"""Finding a cat's face with OpenCV's bundled cat-face cascades.

``haarcascade_frontalcatface.xml`` and ``_extended.xml`` (in ``cv2.data.haarcascades``)
were trained on upright, frontal cat faces, ears included. Pet photos are often close-ups
with the ears cut off by the frame, and heads tilted, so the search is adapted:

1. The photo's grey view is shrunk to ``PROPOSE_LONG_SIDE`` pixels and padded on every
   side by repeating its border, so a face that fills the frame (or runs out of it) still
   fits in the detector's window. It is searched upright first, then turned by each of
   ``TILT_DEGREES`` in turn until a face is confirmed (a tilted head is common).
2. The extended cascade proposes: its raw hits (before OpenCV's grouping) are grouped,
   and groups of at least two hits become candidates, most supported first.
3. A candidate is a face when both cascades, run again on the candidate cut from the
   view at a fixed size, strongly agree (``CONFIRM_MIN_HITS`` raw hits together): on
   cat faces they give 15 to 45, on the false candidates a handful at most.

The search looks at the small grey view only, so its cost per tilt does not grow with the
photo's resolution (measured: tests/analysis/NOTES.md, 'Cat-face search').

Dogs and other pets have no cat face to find: the pet engine then judges the photo by
its other measures. Threads: each thread loads its own cascades (OpenCV's cascade
objects must not be shared between threads).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from prettyscore.analysis.engines.body_measures import shrink
from prettyscore.analysis.engines.cascades import ThreadCascades

PROPOSE_LONG_SIDE = 128
PAD_SHARE = 0.15  # of the long side, on each side
TILT_DEGREES = (0.0, -12.0, 12.0)
PROPOSE_SCALE_FACTOR = 1.15
PROPOSE_MIN_SIZE = 24  # the cascades' window: a face of 19% of the photo's long side
MAX_CANDIDATES = 3
CONFIRM_FACE_SIZE = 64
CONFIRM_MARGIN = 0.3  # of the face's width, on each side
CONFIRM_MIN_HITS = 12

CASCADE_FILES = {
    "propose": "haarcascade_frontalcatface_extended.xml",
    "confirm": "haarcascade_frontalcatface.xml",
}

CAT_CASCADES = ThreadCascades(CASCADE_FILES)


@dataclass(frozen=True)
class CatFace:
    """A confirmed cat face, in fractions of the photo.

    ``centre`` (x, y) from the top-left corner (it may lie a little outside the frame
    when the ears are cut off); ``size``: the face's width over the photo's long side;
    ``tilt``: the head's tilt in degrees; ``hits``: how strongly both cascades agree.
    """

    centre: tuple[float, float]
    size: float
    tilt: float
    hits: int


def find_cat_face(gray_view: np.ndarray) -> CatFace | None:
    """The best-confirmed cat face in the photo's grey view, or None.

    Tilts are tried in ``TILT_DEGREES``' order and the search stops at the first that
    gives a confirmed face: most cats are photographed upright, and one pass is the cost.
    """
    small = shrink(gray_view, PROPOSE_LONG_SIDE)
    factor = gray_view.shape[1] / small.shape[1]
    pad = round(PAD_SHARE * max(small.shape))
    padded_small = cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    big_pad = round(pad * factor)
    padded_view = cv2.copyMakeBorder(
        gray_view, big_pad, big_pad, big_pad, big_pad, cv2.BORDER_REPLICATE
    )
    height, width = gray_view.shape
    for tilt in TILT_DEGREES:
        turned_view = _turned(padded_view, tilt)
        best_hits, best_box = 0, None
        for box in _candidates(_turned(padded_small, tilt)):
            x, y, w = (v * factor for v in box[:3])
            hits = _confirming_hits(turned_view, (x, y, w))
            if hits >= CONFIRM_MIN_HITS and hits > best_hits:
                best_hits, best_box = hits, (x, y, w)
        if best_box is not None:
            x, y, w = best_box
            cx, cy = _unturned(padded_view.shape, tilt, (x + w / 2, y + w / 2))
            return CatFace(
                centre=(float(cx - big_pad) / width, float(cy - big_pad) / height),
                size=float(w) / max(width, height),
                tilt=tilt,
                hits=best_hits,
            )
    return None


def _turned(image: np.ndarray, degrees: float) -> np.ndarray:
    """``image`` turned about its centre (borders repeated), or itself for 0 degrees."""
    if not degrees:
        return image
    height, width = image.shape
    rotation = cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1.0)
    return cv2.warpAffine(
        image, rotation, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def _unturned(shape: tuple[int, int], degrees: float, point: tuple[float, float]):
    """Where ``point`` of the turned image lies in the unturned one."""
    if not degrees:
        return point
    height, width = shape
    rotation = cv2.getRotationMatrix2D((width / 2, height / 2), -degrees, 1.0)
    x, y = point
    return (
        rotation[0, 0] * x + rotation[0, 1] * y + rotation[0, 2],
        rotation[1, 0] * x + rotation[1, 1] * y + rotation[1, 2],
    )


def _candidates(small: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Boxes grouping the proposing cascade's raw hits, most supported first.

    Sorted on plain values, so the result does not depend on the order OpenCV returns
    its hits in (which may depend on how it split the work between threads).
    """
    hits = CAT_CASCADES.get()["propose"].detectMultiScale(
        small,
        scaleFactor=PROPOSE_SCALE_FACTOR,
        minNeighbors=0,
        minSize=(PROPOSE_MIN_SIZE, PROPOSE_MIN_SIZE),
    )
    if len(hits) == 0:
        return []
    rows = sorted([int(v) for v in hit] for hit in hits)
    groups, support = cv2.groupRectangles(rows, 1, 0.35)
    found = sorted(
        (-int(count), -int(box[2]), tuple(int(v) for v in box))
        for box, count in zip(groups, np.asarray(support).ravel(), strict=True)
    )
    return [box for _, _, box in found[:MAX_CANDIDATES]]


def _confirming_hits(view: np.ndarray, box: tuple[float, float, float]) -> int:
    """Raw hits of both cascades on the candidate, cut with a margin and resized so the
    face is ``CONFIRM_FACE_SIZE`` pixels wide; only faces of about that size count."""
    x, y, width = box
    margin = CONFIRM_MARGIN * width
    x0, y0 = max(0, round(x - margin)), max(0, round(y - margin))
    x1, y1 = round(x + width + margin), round(y + width + margin)
    crop = view[y0:y1, x0:x1]
    if crop.size == 0:
        return 0
    scale = CONFIRM_FACE_SIZE / width
    method = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    crop = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=method)
    sizes = {
        "minSize": (round(CONFIRM_FACE_SIZE * 0.7),) * 2,
        "maxSize": (round(CONFIRM_FACE_SIZE * 1.4),) * 2,
    }
    return sum(
        len(cascade.detectMultiScale(crop, scaleFactor=1.05, minNeighbors=0, **sizes))
        for cascade in CAT_CASCADES.get().values()
    )
