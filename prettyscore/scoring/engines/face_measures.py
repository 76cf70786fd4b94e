"""Measures of one face: sharpness, eyes, symmetry, skin texture, proportions.

Everything here works on a ``FaceCrop``: the face cut from the grey photo and resized so
that its detected box is ``FACE_SIZE`` pixels wide. Working at one size makes each
measure independent of the photo's resolution; dividing by the face's own contrast
makes it independent of brightness, contrast and colour cast; and using luminance only
keeps hue, and so skin tone, out of every figure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

# The detected face box is resized to FACE_SIZE pixels square; the crop keeps a margin of
# CROP_MARGIN times that on every side (room to rotate, and the forehead and chin).
FACE_SIZE = 160
CROP_MARGIN = 0.25
BOX_ORIGIN = round(FACE_SIZE * CROP_MARGIN)
CROP_SIDE = FACE_SIZE + 2 * BOX_ORIGIN

# Where eyes sit in a detected box when they cannot be found (fractions of its size).
DEFAULT_EYE_HEIGHT = 0.38
DEFAULT_EYE_SPACING = 0.43
# Band of the face box (fractions of its height) searched for eyes.
EYE_BAND = (0.15, 0.62)
# Eyes are searched with the face resized to this width (pixels).
EYE_SEARCH_FACE_SIZE = 110
# A face is levelled on its eye line up to this angle; beyond, the eyes are doubtful.
MAX_LEVELLING_DEGREES = 25.0


@dataclass(frozen=True)
class FaceCrop:
    """The face at canonical size: ``pixels`` (uint8 grey, ``CROP_SIDE`` square) with the
    detected box at (``BOX_ORIGIN``, ``BOX_ORIGIN``), ``FACE_SIZE`` wide."""

    pixels: np.ndarray

    @classmethod
    def cut(cls, gray: np.ndarray, box: tuple[int, int, int]) -> FaceCrop:
        """Cut box (x, y, width) plus margin from ``gray`` and resize it to canonical size.

        Parts of the margin outside the photo are filled by reflection. Area averaging
        when shrinking means a 12-megapixel photo gives the same crop as a small one.
        """
        x, y, width = box
        margin = round(width * CROP_MARGIN)
        x0, y0, x1, y1 = x - margin, y - margin, x + width + margin, y + width + margin
        height, img_width = gray.shape
        inside = gray[max(0, y0) : min(height, y1), max(0, x0) : min(img_width, x1)]
        padded = cv2.copyMakeBorder(
            inside,
            max(0, -y0),
            max(0, y1 - height),
            max(0, -x0),
            max(0, x1 - img_width),
            cv2.BORDER_REFLECT_101,
        )
        method = cv2.INTER_AREA if padded.shape[0] > CROP_SIDE else cv2.INTER_CUBIC
        return cls(cv2.resize(padded, (CROP_SIDE, CROP_SIDE), interpolation=method))

    def box_region(self, left: float, top: float, right: float, bottom: float) -> np.ndarray:
        """Part of the face box given in fractions of its size (0..1 across, 0..1 down)."""
        o, s = BOX_ORIGIN, FACE_SIZE
        return self.pixels[
            o + round(top * s) : o + round(bottom * s), o + round(left * s) : o + round(right * s)
        ]

    def centre(self) -> np.ndarray:
        """The middle of the face (cheeks, eyes, nose, mouth), little hair or background."""
        return self.box_region(0.2, 0.2, 0.8, 0.85)

    def spread(self) -> float:
        """The face's own contrast (10th to 90th percentile of its centre), at least 1.

        Texture and sharpness are divided by it, so they do not change when the whole
        photo is made brighter, darker, or more or less contrasted.
        """
        low, high = np.percentile(self.centre(), (10, 90))
        return max(float(high - low), 1.0)


def sharpness(crop: FaceCrop) -> float:
    """Fine detail of the face relative to its contrast (Laplacian spread / face spread).

    A blurred face keeps its broad light and shade but loses the edges of eyelids, brows
    and lips, which is what the Laplacian responds to.
    """
    face = crop.box_region(0.15, 0.15, 0.85, 0.9).astype(np.float32)
    laplacian = cv2.Laplacian(face, cv2.CV_32F, ksize=3)
    return float(laplacian.std()) / crop.spread()


# ---------------------------------------------------------------------------
# Eyes
# ---------------------------------------------------------------------------
class EyeCandidate(NamedTuple):
    """One eye detection: centre and size in crop pixels."""

    x: float
    y: float
    size: float

    def near(self, other: EyeCandidate) -> bool:
        return math.dist((self.x, self.y), (other.x, other.y)) < 0.5 * max(self.size, other.size)


@dataclass(frozen=True)
class Eyes:
    """Eye centres in crop pixels; ``left`` is the one on the image's left."""

    left: tuple[float, float]
    right: tuple[float, float]

    @property
    def distance(self) -> float:
        return math.dist(self.left, self.right)

    @property
    def midpoint(self) -> tuple[float, float]:
        return ((self.left[0] + self.right[0]) / 2, (self.left[1] + self.right[1]) / 2)

    @property
    def tilt_degrees(self) -> float:
        """The eye line's angle; positive when the right-hand eye is lower."""
        dx, dy = self.right[0] - self.left[0], self.right[1] - self.left[1]
        return math.degrees(math.atan2(dy, dx))


def eye_candidates(crop: FaceCrop, cascade: cv2.CascadeClassifier) -> list[EyeCandidate]:
    """Eye detections in crop pixels, from the eye band and from its mirror image.

    The band is searched at a reduced size (face ``EYE_SEARCH_FACE_SIZE`` pixels wide,
    eyes a little above the cascade's 20-pixel window), which is several times faster
    than at full crop size. Detecting in the mirror too makes the candidates of a
    mirrored photo the mirror of the original's, so a mirrored face finds the same pair
    of eyes. Sorted, so the result does not depend on the order OpenCV returned them in.
    """
    o, s = BOX_ORIGIN, FACE_SIZE
    top, bottom = o + round(EYE_BAND[0] * s), o + round(EYE_BAND[1] * s)
    factor = EYE_SEARCH_FACE_SIZE / FACE_SIZE
    band = cv2.resize(
        crop.pixels[top:bottom, o : o + s], None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA
    )
    band = cv2.equalizeHist(band)
    width = band.shape[1]
    candidates = []
    for mirrored, image in ((False, band), (True, np.ascontiguousarray(band[:, ::-1]))):
        found = cascade.detectMultiScale(
            image,
            scaleFactor=1.08,
            minNeighbors=2,
            minSize=(20, 20),
            maxSize=(round(0.4 * EYE_SEARCH_FACE_SIZE),) * 2,
        )
        for x, y, w, h in found:
            centre_x = width - (x + w / 2) if mirrored else x + w / 2
            candidates.append(
                EyeCandidate(
                    o + centre_x / factor - 0.5, top + (y + h / 2) / factor - 0.5, w / factor
                )
            )
    return sorted(candidates)


def find_eye_candidates(
    crop: FaceCrop, eye: cv2.CascadeClassifier, eye_glasses: cv2.CascadeClassifier
) -> list[EyeCandidate]:
    """Eye candidates from the plain eye cascade, or from the glasses one when it has none
    that pair up (it is slower, and better with spectacles and half-closed eyes)."""
    candidates = eye_candidates(crop, eye)
    if best_eye_pair(candidates) is None:
        candidates = sorted(candidates + eye_candidates(crop, eye_glasses))
    return candidates


def best_eye_pair(candidates: list[EyeCandidate]) -> Eyes | None:
    """The pair of candidates most like two eyes: one each side, level, plausibly spaced."""
    axis = CROP_SIDE / 2
    lefts = [c for c in candidates if c.x < axis]
    rights = [c for c in candidates if c.x >= axis]
    best, best_cost = None, math.inf
    for left in lefts:
        for right in rights:
            cost = eye_pair_cost(left, right, candidates)
            if cost < best_cost:
                best, best_cost = Eyes((left.x, left.y), (right.x, right.y)), cost
    return best


def eye_pair_cost(left: EyeCandidate, right: EyeCandidate, candidates) -> float:
    """Lower is more eye-like; ``inf`` for pairs no face has.

    Prefers level pairs of equal size, spaced as eyes usually are in a detected face
    box, and found by several detections (original, mirror, both cascades).
    """
    dx, dy = right.x - left.x, right.y - left.y
    spacing = dx / FACE_SIZE
    if not 0.25 <= spacing <= 0.65 or abs(dy) > 0.35 * dx:
        return math.inf
    size_ratio = max(left.size, right.size) / min(left.size, right.size)
    support = sum(1 for c in candidates if left.near(c)) + sum(
        1 for c in candidates if right.near(c)
    )
    return abs(dy) / dx + (size_ratio - 1.0) + abs(spacing - DEFAULT_EYE_SPACING) - 0.05 * support


# ---------------------------------------------------------------------------
# The levelled face
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class LevelledFace:
    """The crop rotated so the eye line is horizontal (float32), with its landmarks.

    ``axis_x`` is the face's vertical axis (between the eyes), ``eye_y`` the eye line,
    ``eye_distance`` the distance between the eye centres, all in crop pixels;
    ``on_eyes`` says whether they come from the eyes (else from an average face).
    """

    pixels: np.ndarray
    axis_x: float
    eye_y: float
    eye_distance: float
    spread: float
    on_eyes: bool


def level_face(crop: FaceCrop, eyes: Eyes | None) -> LevelledFace:
    """Rotate the crop about the eyes' midpoint so that the eyes are level.

    Without eyes the crop is used as it is, with the average landmarks of a detected box.
    """
    pixels = crop.pixels.astype(np.float32)
    if eyes is None or abs(eyes.tilt_degrees) > MAX_LEVELLING_DEGREES:
        axis_x = BOX_ORIGIN + FACE_SIZE / 2
        eye_y = BOX_ORIGIN + DEFAULT_EYE_HEIGHT * FACE_SIZE
        eye_distance = DEFAULT_EYE_SPACING * FACE_SIZE
        return LevelledFace(pixels, axis_x, eye_y, eye_distance, crop.spread(), on_eyes=False)
    centre = eyes.midpoint
    rotation = cv2.getRotationMatrix2D(centre, eyes.tilt_degrees, 1.0)
    levelled = cv2.warpAffine(
        pixels,
        rotation,
        (CROP_SIDE, CROP_SIDE),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT_101,
    )
    return LevelledFace(levelled, centre[0], centre[1], eyes.distance, crop.spread(), on_eyes=True)


def mirrored_about_axis(image: np.ndarray, axis_x: float) -> np.ndarray:
    """``image`` reflected left-right about the vertical line x = ``axis_x`` (sub-pixel)."""
    reflection = np.array([[-1.0, 0.0, 2.0 * axis_x], [0.0, 1.0, 0.0]])
    return cv2.warpAffine(
        image,
        reflection,
        (image.shape[1], image.shape[0]),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT_101,
    )


def feature_structure(image: np.ndarray, spread: float) -> np.ndarray:
    """The face's features (eyes, brows, nostrils, lips, outline) without its lighting.

    A band-pass (difference of Gaussians) keeps detail between fine grain and broad
    shading; dividing by the local energy makes a feature count the same in the lit and
    the shaded half of the face.
    """
    band = cv2.GaussianBlur(image, (0, 0), 1.0) - cv2.GaussianBlur(image, (0, 0), 4.0)
    energy = cv2.GaussianBlur(band * band, (0, 0), 6.0)
    structure = band / np.sqrt(energy + (0.03 * spread) ** 2)
    return cv2.GaussianBlur(structure, (0, 0), 0.5)


# ---------------------------------------------------------------------------
# Raw measures
# ---------------------------------------------------------------------------
# Symmetry is searched around the levelled eye axis over these angles (degrees) and
# shifts (pixels at SYMMETRY_SCALE): a landmark off by a pixel or two must not change
# the figure. Without eyes the face is not levelled, so the search is wider.
SYMMETRY_SEARCH_WITH_EYES = ((-4, -2, 0, 2, 4), (-3, -2, -1, 0, 1, 2, 3))
SYMMETRY_SEARCH_WITHOUT_EYES = (tuple(range(-12, 13, 3)), tuple(range(-6, 7)))
# Symmetry is measured on the levelled face shrunk by this factor (faster, steadier).
SYMMETRY_SCALE = 0.5


def symmetry_correlation(face: LevelledFace) -> float:
    """How much the face looks like its own mirror image (-1..1; real faces 0.1–0.8).

    Compares the features of the face with their reflection about a vertical axis, over
    the region from forehead to chin and cheek to cheek, and keeps the best match over
    small tilts and shifts of that axis around the one the eyes give.
    """
    scale = SYMMETRY_SCALE
    small = cv2.resize(face.pixels, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    structure = feature_structure(small, face.spread)
    axis_x = (face.axis_x + 0.5) * scale - 0.5
    eye_y = (face.eye_y + 0.5) * scale - 0.5
    size = FACE_SIZE * scale
    y0, y1 = round(eye_y - 0.3 * size), round(eye_y + 0.55 * size)
    half_width = 0.4 * size
    angles, shifts = SYMMETRY_SEARCH_WITH_EYES if face.on_eyes else SYMMETRY_SEARCH_WITHOUT_EYES
    best = -1.0
    for angle in angles:
        rotation = cv2.getRotationMatrix2D((axis_x, eye_y), angle, 1.0)
        turned = cv2.warpAffine(
            structure, rotation, structure.shape[::-1], borderMode=cv2.BORDER_REFLECT_101
        )
        for shift in shifts:
            axis = axis_x + shift
            mirror = mirrored_about_axis(turned, axis)
            x0, x1 = round(axis - half_width), round(axis + half_width)
            best = max(best, pearson(turned[y0:y1, x0:x1], mirror[y0:y1, x0:x1]))
    return best


def pearson(a: np.ndarray, b: np.ndarray) -> float:
    a = a - a.mean()
    b = b - b.mean()
    denominator = math.sqrt(float((a * a).sum()) * float((b * b).sum()))
    return float((a * b).sum()) / denominator if denominator > 0 else 0.0


def skin_patches(face: LevelledFace) -> list[tuple[int, int, int, int]]:
    """Rectangles (x0, y0, x1, y1) on both cheeks and the forehead, placed from the eyes."""
    d, ax, ey = face.eye_distance, face.axis_x, face.eye_y
    rects = [
        (ax - 0.75 * d, ey + 0.35 * d, ax - 0.33 * d, ey + 0.72 * d),
        (ax + 0.33 * d, ey + 0.35 * d, ax + 0.75 * d, ey + 0.72 * d),
        (ax - 0.45 * d, ey - 0.8 * d, ax + 0.45 * d, ey - 0.5 * d),
    ]
    clip = lambda v: min(max(round(v), 0), CROP_SIDE)  # noqa: E731
    return [(clip(x0), clip(y0), clip(x1), clip(y1)) for x0, y0, x1, y1 in rects]


def skin_texture(face: LevelledFace) -> dict[str, float]:
    """Texture of the skin patches relative to the face's contrast (lower is smoother).

    ``fine``: the grain left after removing everything broader than a pixel or two
    (pores, fine lines, and also film grain and sensor noise); ``blotch``: unevenness at
    the scale of spots and blemishes (about 1–3% of the face's width), the energy of
    what stands out from its surroundings. Each is the median over the three patches,
    so hair over the forehead or a shadow on one cheek does not decide alone. Dividing
    by the face's contrast, never by its brightness or colour, keeps skin tone out.
    """
    image = face.pixels
    smooth_fine = cv2.GaussianBlur(image, (0, 0), 1.0)
    smooth_broad = cv2.GaussianBlur(image, (0, 0), 4.0)
    fine_detail = (image - smooth_fine) / face.spread
    blotch_detail = (smooth_fine - smooth_broad) / face.spread
    fine, blotch = [], []
    for x0, y0, x1, y1 in skin_patches(face):
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        fine.append(float(fine_detail[y0:y1, x0:x1].std()))
        blotch.append(float(blotch_detail[y0:y1, x0:x1].std()))
    if not fine:
        return {"fine": 0.0, "blotch": 0.0}
    return {"fine": float(np.median(fine)), "blotch": float(np.median(blotch))}


def proportions(eyes: Eyes | None) -> dict[str, float]:
    """What the detected box and the eyes say about the face's layout.

    ``spacing``: eye distance / face width; ``tilt``: the eye line's angle in degrees;
    ``centring``: how far the eyes' midpoint is from the box's centre line, in face
    widths; ``eye_height``: the eye line's height in the box, from its top.
    """
    if eyes is None:
        return {}
    mid_x, mid_y = eyes.midpoint
    return {
        "spacing": eyes.distance / FACE_SIZE,
        "tilt": abs(eyes.tilt_degrees),
        "centring": abs(mid_x - (BOX_ORIGIN + FACE_SIZE / 2)) / FACE_SIZE,
        "eye_height": (mid_y - BOX_ORIGIN) / FACE_SIZE,
    }
