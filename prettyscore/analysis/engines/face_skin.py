"""The face's pixels, looked at in its own frame: exposure, sharpness and skin texture.

The face is resampled into its own frame (``face_geometry.FaceFrame``: levelled, turned
to face the camera as a plane, ``CANON_WIDTH`` pixels from cheekbone to cheekbone), as
luminance only. Everything here is measured on that one image, so:

- the photo's resolution never enters a figure: a 12-megapixel photo and a 640-pixel
  copy give the same image (a face smaller than ``CANON_WIDTH`` is enlarged, and its
  missing detail shows as softness, which is what it is);
- hue never enters a figure, and every figure is relative to the skin's own
  brightness or the face's own contrast, never to an absolute grey level: darker and
  lighter skin, and darker and brighter photos, are measured alike;
- the regions come from the mesh: skin patches are the cheeks and forehead inside the
  face's outline, away from the eyes, brows, nose and lips.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import cv2
import numpy as np

from prettyscore.analysis.engines import face_mesh_points as fp
from prettyscore.analysis.engines.face_geometry import FaceFrame

T = TypeVar("T")

# The face's width in the canonical image, in pixels, and the part of its frame the
# image covers (face widths from the mirror axis, and from the eye line downwards).
CANON_WIDTH = 128
CANON_X = (-0.62, 0.62)
CANON_Y = (-0.62, 0.98)

# Skin texture is the detail between these two scales (Gaussian sigmas in canonical
# pixels: about 0.8% and 3% of the face's width): spots, blemishes and uneven tone;
# broad shading and the finest grain (pores, sensor noise, JPEG) are left out.
TEXTURE_FINE_SIGMA = 1.0
TEXTURE_BROAD_SIGMA = 4.0
# The light falling on the face, which the skin's texture is measured against: at each
# point, the brightest skin around it, within LIGHT_RADIUS (canonical pixels, about a
# fifth of the face's width), the nose included, where the light is reflected most
# (``face_light``). Measured against the light, not against each point's own level, a
# dark skin's texture reads as the eye sees it in that light: against its own, darker
# level, the shine a studio light leaves on a darker skin (the same light, so the same
# absolute size) and its small variations counted two times larger than on a light
# skin. Taken around each point, the light follows a face lit more on one side, or a
# face whose light falls off towards its edges (measured: tests/analysis/NOTES.md,
# 'Skin texture against the light').
LIGHT_RADIUS = 28
# Encoded levels from which a pixel is clipped white: its texture is gone, so it and
# its neighbours within CLIPPED_MARGIN pixels (the texture's broad scale) are left out
# of the skin's figures.
CLIPPED_LEVEL_FOR_TEXTURE = 250.0
CLIPPED_MARGIN = 4
# What is not skin inside a patch: a dark stroke (a glasses frame, a strand of hair, a
# beard's edge) is under NOT_SKIN_LIGHT of the linear light of the skin around it, and
# under NOT_SKIN_LIGHTNESS of its lightness (CIELAB L*): the first stays the same when
# the whole photo is darker or brighter, the second when the face alone is a darker or
# lighter skin, so neither change turns skin into a stroke. It is longer than
# NOT_SKIN_LENGTH (canonical pixels, a tenth of the face's width), where a spot or a
# freckle is not; it and its neighbours within NOT_SKIN_MARGIN are left out of the
# skin's figures.
NOT_SKIN_LIGHT = 0.2
NOT_SKIN_LIGHTNESS = 0.5
NOT_SKIN_LENGTH = 13
NOT_SKIN_MARGIN = 8
# The skin's own level around each point (sigma in canonical pixels), against which a
# dark stroke is told from skin.
LOCAL_LEVEL_SIGMA = 8.0
# Added to every linear level (0-255 scale, a tenth of a level) so that black has a
# brightness to divide by.
LINEAR_FLOOR = 0.1
# A patch smaller than this (canonical pixels: hair over the forehead, a turned cheek)
# is left out.
MIN_PATCH_PIXELS = 60

# Sharpness: the features' edges are compared with a copy blurred by this sigma...
SHARPNESS_REFERENCE_SIGMA = 1.0
# ...both first smoothed by this one, where pixel grain, sensor noise and compression's
# blocks have faded: measured raw, their gradients read as sharp edges, and a noisier
# copy of a photo would look sharper (and its skin better) than the photo itself.
SHARPNESS_GRAIN_SIGMA = 1.0
# ...and with the broad shading (beyond this sigma, canonical pixels: about 6% of the
# face's width) taken away: light falling across a feature, or a darker or lighter face
# against its surroundings, adds gradients that extra blur hardly changes, and would
# read as softness.
SHARPNESS_SHADING_SIGMA = 8.0
# Below this (canonical pixels) the edges are as sharp as the canonical image can show.
MIN_BLUR_SIGMA = 0.1


# JPEG's block size (pixels), and how much the blur reading rises per unit of the blocks'
# prominence beyond none, to give back what their seams took off it (``unblocked_blur``;
# measured: tests/analysis/NOTES.md, 'JPEG blocks and the blur reading').
JPEG_BLOCK = 8
BLUR_PER_BLOCK_EXCESS = 0.15

# Grain: Immerkær's noise mask, and the step of the sample its flatness threshold is
# taken from (the median of every pixel of a 12 MP face is slow, and no more telling).
_NOISE_MASK = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
GRAIN_SAMPLE_STEP = 3
# Grain is read around the face (its landmarks' box grown by this share of its size on
# each side), on the flattest GRAIN_FLAT_PERCENT of it: on a small face every part of the
# skin has detail finer than a few pixels (lines, pores, stubble) that the noise mask
# reads as grain: read on the face alone, a small face's photo would read grainier than
# it is, and more or less grainy with the face's light (measured: tests/analysis/NOTES.md,
# 'Grain region').
GRAIN_REGION_GROW = 0.5
GRAIN_FLAT_PERCENT = 25.0
# A large region is read in bands of GRAIN_BAND_ROWS rows spread over its height, at
# most GRAIN_MAX_PIXELS in all: the whole surroundings of a 12 MP photo's face (about
# 5 MP) tell no more than a sample of them, in less time (measured:
# tests/analysis/NOTES.md, 'Grain sample').
GRAIN_BAND_ROWS = 34
GRAIN_MAX_PIXELS = 500_000


@dataclass(frozen=True)
class CanonicalFace:
    """The face's luminance in its own frame, and the mesh's landmarks on it.

    ``pixels`` is float32 (0–255); ``points`` the 478 landmarks in its pixel coordinates;
    ``from_photo`` the affine map (2×3) from photo pixels to its pixels.
    """

    pixels: np.ndarray
    points: np.ndarray
    from_photo: np.ndarray

    def to_photo(self, xy: np.ndarray) -> np.ndarray:
        """Points (N, 2) of the canonical image in photo pixels."""
        back = cv2.invertAffineTransform(self.from_photo)
        return np.hstack([xy, np.ones((len(xy), 1))]) @ back.T

    @property
    def shape(self) -> tuple[int, int]:
        return self.pixels.shape[:2]

    def polygon_mask(self, indices, dilate: float = 0.0, hull: bool = False) -> np.ndarray:
        """A 0/1 mask of the polygon through the given landmarks, in order (or of their
        convex hull), grown by ``dilate`` face widths when positive."""
        return polygon_mask(self.shape, self.points[list(indices), :2], dilate * CANON_WIDTH, hull)


def polygon_mask(
    shape: tuple[int, int], points: np.ndarray, grow: float = 0.0, hull: bool = False
) -> np.ndarray:
    """A 0/1 uint8 mask of the polygon through ``points`` (x, y), in order (or of their
    convex hull), drawn at sub-pixel precision and grown by ``grow`` pixels (rounded)."""
    mask = np.zeros(shape, np.uint8)
    outline = np.round(points * 16).astype(np.int32)
    if hull:
        outline = cv2.convexHull(outline)
    cv2.fillPoly(mask, [outline], 1, lineType=cv2.LINE_8, shift=4)
    radius = round(grow)
    if radius > 0:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
        mask = cv2.dilate(mask, kernel)
    return mask


def canonical_face(image: np.ndarray, points: np.ndarray, frame: FaceFrame) -> CanonicalFace:
    """Resample the face into its frame, as luminance (see the module's docstring)."""
    gray = luminance(image)
    region, offset, factor = shrunk_region(gray, points, frame.width)
    width = round((CANON_X[1] - CANON_X[0]) * CANON_WIDTH)
    height = round((CANON_Y[1] - CANON_Y[0]) * CANON_WIDTH)
    # Canonical pixel (u, v) is the frontal point (CANON_X[0] + u / W, CANON_Y[0] + v / W).
    corners = np.array(
        [[CANON_X[0], CANON_Y[0]], [CANON_X[1], CANON_Y[0]], [CANON_X[0], CANON_Y[1]]]
    )
    source = (frame.to_photo(corners) - offset) * factor
    target = np.array([[0.0, 0.0], [width, 0.0], [0.0, height]])
    transform = cv2.getAffineTransform(source.astype(np.float32), target.astype(np.float32))
    pixels = cv2.warpAffine(
        region.astype(np.float32),
        transform,
        (width, height),
        flags=cv2.INTER_CUBIC,
        borderMode=cv2.BORDER_REPLICATE,
    )
    from_photo = np.hstack(
        [transform[:, :2] * factor, (transform[:, 2] - transform[:, :2] @ offset * factor)[:, None]]
    )
    mapped = np.hstack([points[:, :2], np.ones((len(points), 1))]) @ from_photo.T
    return CanonicalFace(np.clip(pixels, 0.0, 255.0), mapped, from_photo)


def luminance(image: np.ndarray) -> np.ndarray:
    """The photo's luma (Rec. 601, as JPEG stores it): hue and saturation left out."""
    if image.ndim == 2:
        return image
    return cv2.cvtColor(np.ascontiguousarray(image[:, :, :3]), cv2.COLOR_RGB2GRAY)


def linear_light(encoded: np.ndarray) -> np.ndarray:
    """sRGB-encoded levels (0-255) as linear light on the same 0-255 scale (float32).

    A photo's levels are the light raised to about 1/2.4, less an offset: a contrast
    read on them grows as the skin gets darker. In linear light the same skin under
    less light, or a darker skin with the same marks, has the same contrast.
    """
    unit = np.asarray(encoded, dtype=np.float32) / 255.0
    linear = np.where(unit <= 0.04045, unit / 12.92, ((unit + 0.055) / 1.055) ** 2.4)
    return (linear * 255.0).astype(np.float32)


def measuring_scale(face_width: float) -> float:
    """How much a face this wide (photo pixels) is shrunk to be measured: to about
    ``CANON_WIDTH``, never enlarged."""
    return min(1.0, CANON_WIDTH / max(face_width, 1.0))


def shrunk_region(
    gray: np.ndarray, points: np.ndarray, face_width: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """The part of the photo around the face, area-averaged down so that the face is
    about ``CANON_WIDTH`` wide (never enlarged); its offset and scale in the photo."""
    xy = points[:, :2]
    margin = 0.5 * face_width
    height, width = gray.shape
    x0 = max(0, math.floor(xy[:, 0].min() - margin))
    y0 = max(0, math.floor(xy[:, 1].min() - margin))
    x1 = min(width, math.ceil(xy[:, 0].max() + margin))
    y1 = min(height, math.ceil(xy[:, 1].max() + margin))
    region = gray[y0:y1, x0:x1]
    factor = measuring_scale(face_width)
    if factor < 1.0:
        size = (max(1, round(region.shape[1] * factor)), max(1, round(region.shape[0] * factor)))
        factor_x, factor_y = size[0] / region.shape[1], size[1] / region.shape[0]
        region = cv2.resize(region, size, interpolation=cv2.INTER_AREA)
        factor = (factor_x + factor_y) / 2
    return region, np.array([x0, y0], dtype=np.float64), factor


def once_per_face(measure: Callable[[CanonicalFace], T]) -> Callable[[CanonicalFace], T]:
    """``measure(face)`` computed once per canonical face and kept on it.

    The gates, the measures and the explanation's overlay ask for the same masks and
    blur reading of one face: computed again each time, they would add to the analysis'
    time (measured: tests/analysis/NOTES.md, 'Masks kept per face'). Masks kept are
    read-only, so no caller can change what the next one reads.
    """
    name = f"_once_{measure.__name__}"

    @functools.wraps(measure)
    def kept(face: CanonicalFace) -> T:
        if name not in face.__dict__:
            object.__setattr__(face, name, read_only(measure(face)))
        return face.__dict__[name]

    return kept


def read_only(value):
    """``value`` with its arrays (itself, or a dict's values) made read-only."""
    arrays = value.values() if isinstance(value, dict) else [value]
    for array in arrays:
        if isinstance(array, np.ndarray):
            array.flags.writeable = False
    return value


# ---------------------------------------------------------------------------
# Regions
# ---------------------------------------------------------------------------
@once_per_face
def face_mask(face: CanonicalFace) -> np.ndarray:
    """The inside of the face's outline."""
    return face.polygon_mask(fp.FACE_OVAL)


@once_per_face
def features_mask(face: CanonicalFace) -> np.ndarray:
    """Eyes, brows, nose and lips, each with a small margin: not skin."""
    return eyes_brows_lips_mask(face) | face.polygon_mask(fp.NOSE, 0.02, hull=True)


@once_per_face
def eyes_brows_lips_mask(face: CanonicalFace) -> np.ndarray:
    """Eyes, brows and lips: the features light most rarely washes out (the nose's
    bridge and tip, often the brightest part of a face, are left out)."""
    mask = np.zeros(face.shape, np.uint8)
    for feature, grow in (
        (fp.RIGHT_EYE, 0.04),
        (fp.LEFT_EYE, 0.04),
        (fp.RIGHT_BROW + fp.RIGHT_BROW_LOWER, 0.03),
        (fp.LEFT_BROW + fp.LEFT_BROW_LOWER, 0.03),
        (fp.LIPS_OUTER, 0.04),
    ):
        mask |= face.polygon_mask(feature, grow, hull=True)
    return mask


@once_per_face
def skin_patches(face: CanonicalFace) -> dict[str, np.ndarray]:
    """Masks of the two cheeks and the forehead: skin only, inside the outline.

    Each patch is a band placed from the landmarks, then cut to the face's outline
    minus the features. Cheeks: from under the lower lids to the nose tip's height,
    between the nose's wing and the eye's outer corner: high enough to leave out the
    lines a smile draws from the nose to the mouth. Forehead: from above the brows to
    the top of the mesh, across the middle of the face.
    """
    p = face.points
    skin = face_mask(face) & (1 - features_mask(face))
    w = CANON_WIDTH
    cheek_top = max(p[fp.RIGHT_EYE_BOTTOM, 1], p[fp.LEFT_EYE_BOTTOM, 1]) + 0.05 * w
    cheek_bottom = p[fp.NOSE_TIP, 1]
    right_wing, left_wing = p[fp.NOSE_WINGS[0], 0], p[fp.NOSE_WINGS[1], 0]
    brow_top = min(p[list(fp.RIGHT_BROW + fp.LEFT_BROW), 1]) - 0.03 * w
    forehead_top = p[fp.FOREHEAD_TOP, 1] + 0.04 * w
    axis = (p[fp.NASION, 0] + p[fp.SUBNASALE, 0]) / 2
    bands = {
        "right_cheek": (p[fp.RIGHT_EYE_OUTER, 0], right_wing - 0.04 * w, cheek_top, cheek_bottom),
        "left_cheek": (left_wing + 0.04 * w, p[fp.LEFT_EYE_OUTER, 0], cheek_top, cheek_bottom),
        "forehead": (axis - 0.3 * w, axis + 0.3 * w, forehead_top, brow_top),
    }
    patches = {}
    for name, (x0, x1, y0, y1) in bands.items():
        band = np.zeros(face.shape, np.uint8)
        band[max(0, round(y0)) : max(0, round(y1)), max(0, round(x0)) : max(0, round(x1))] = 1
        patches[name] = band & skin
    return patches


# ---------------------------------------------------------------------------
# Measures
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Exposure:
    """How the face's light is spread: shares of crushed blacks and clipped whites, its
    contrast (5th to 95th percentile) and its middle level, all inside the outline; and
    the share of clipped whites on the eyes, brows and lips alone, whose detail is what a
    face is measured from (an over-exposed forehead or cheek still shows them)."""

    dark_clipped: float
    bright_clipped: float
    contrast: float
    median: float
    features_bright_clipped: float


def side_difference(face: CanonicalFace) -> float:
    """How much lighter one half of the face is than the other (grey levels between
    their medians, inside the outline): light from one side leaves the other in shade."""
    inside = face_mask(face) > 0
    middle = face.pixels.shape[1] // 2
    halves = [
        face.pixels[:, :middle][inside[:, :middle]],
        face.pixels[:, middle:][inside[:, middle:]],
    ]
    if any(half.size == 0 for half in halves):
        return 0.0
    return float(abs(np.median(halves[0]) - np.median(halves[1])))


CRUSHED_LEVEL = 4.0
CLIPPED_LEVEL = 251.0


def exposure(face: CanonicalFace) -> Exposure:
    values = face.pixels[face_mask(face) > 0]
    if values.size == 0:
        return Exposure(0.0, 0.0, 0.0, 0.0, 0.0)
    low, median, high = np.percentile(values, (5, 50, 95))
    features = face.pixels[eyes_brows_lips_mask(face) > 0]
    return Exposure(
        dark_clipped=float(np.mean(values <= CRUSHED_LEVEL)),
        bright_clipped=float(np.mean(values >= CLIPPED_LEVEL)),
        contrast=float(high - low),
        median=float(median),
        features_bright_clipped=float(np.mean(features >= CLIPPED_LEVEL)) if features.size else 0.0,
    )


@once_per_face
def blur_sigma(face: CanonicalFace) -> float:
    """How soft the features' edges are: the blur's sigma in canonical pixels.

    Around eyes, brows, nostrils and lips, the gradient's energy is compared with that of
    a copy blurred by a known sigma s, both first smoothed by g (``SHARPNESS_GRAIN_SIGMA``,
    so that grain does not count as edges) and without their broad shading
    (``SHARPNESS_SHADING_SIGMA``): for edges blurred by sigma b the ratio is
    sqrt(b² + g² + s²) / sqrt(b² + g²), whatever their contrast, so b follows. A sharp
    photo gives about 1.3–1.6 (1.0–1.25% of the face's width); a 25-pixel face enlarged
    gives 2–3.2.

    With the shading taken away, a face darkened alone reads about as sharp as it did
    (measured: tests/analysis/NOTES.md, 'Shading and the blur reading').
    """
    mask = features_mask(face) > 0
    if not mask.any():
        return math.inf
    grain, reference = SHARPNESS_GRAIN_SIGMA, SHARPNESS_REFERENCE_SIGMA
    pixels = face.pixels - cv2.GaussianBlur(face.pixels, (0, 0), SHARPNESS_SHADING_SIGMA)
    smoothed = cv2.GaussianBlur(pixels, (0, 0), grain)
    blurred = cv2.GaussianBlur(pixels, (0, 0), math.hypot(grain, reference))
    energy = gradient_energy(smoothed)[mask].mean()
    blurred_energy = gradient_energy(blurred)[mask].mean()
    if blurred_energy <= 0.0:
        return math.inf
    ratio_squared = (energy / blurred_energy) ** 2
    if ratio_squared <= 1.0:
        return math.inf
    edge_variance = reference**2 / (ratio_squared - 1.0) - grain**2
    return math.sqrt(max(edge_variance, MIN_BLUR_SIGMA**2))


def face_grain(gray: np.ndarray, points: np.ndarray, face_width: float) -> float:
    """The grain the face is measured through: the photo's (``photo_grain``) as the
    area-averaged shrink to the measuring scale leaves it (noise averaged over k × k
    pixels keeps 1/k of its spread). A large face in a grainy photo shows its skin and
    features clearly; a small one in the same grain does not."""
    return photo_grain(gray, points) * measuring_scale(face_width)


def photo_grain(gray: np.ndarray, points: np.ndarray) -> float:
    """The photo's grain (sensor noise, film grain) on the face, in grey levels.

    Immerkær's estimator ("Fast noise variance estimation", 1996): a 3×3 mask that
    cancels any plane and most smooth shading leaves the pixel-to-pixel noise, whose
    mean absolute response gives its standard deviation. It is taken at the photo's
    own resolution, over the flattest part of the face and its surroundings (see
    ``GRAIN_FLAT_PERCENT``; the rest, edges and the skin's own fine detail, would read as
    noise). A clean photo reads about 0–2; a grainy one (noise of 8 grey levels) about 5.
    """
    rows, columns = landmarks_bounds(gray.shape, points, GRAIN_REGION_GROW)
    if min(rows.stop - rows.start, columns.stop - columns.start) < 8:
        return 0.0
    responses, steepnesses = [], []
    for band in grain_bands(rows, columns.stop - columns.start):
        pixels = gray[band, columns].astype(np.float32)
        responses.append(np.abs(cv2.filter2D(pixels, cv2.CV_32F, _NOISE_MASK))[1:-1, 1:-1])
        steepnesses.append(gradient_energy(pixels)[1:-1, 1:-1])
    sample = np.concatenate(
        [s[::GRAIN_SAMPLE_STEP, ::GRAIN_SAMPLE_STEP].ravel() for s in steepnesses]
    )
    threshold = np.percentile(sample, GRAIN_FLAT_PERCENT)
    flat = np.concatenate([r[s <= threshold] for r, s in zip(responses, steepnesses, strict=True)])
    return math.sqrt(math.pi / 2.0) * float(flat.mean()) / 6.0


def grain_bands(rows: slice, width: int) -> list[slice]:
    """The rows grain is read on: all of them, or for a large region bands of
    ``GRAIN_BAND_ROWS`` spread evenly over it, ``GRAIN_MAX_PIXELS`` in all."""
    height = rows.stop - rows.start
    if height * width <= GRAIN_MAX_PIXELS or height <= GRAIN_BAND_ROWS:
        return [rows]
    count = max(1, GRAIN_MAX_PIXELS // (width * GRAIN_BAND_ROWS))
    starts = np.linspace(rows.start, rows.stop - GRAIN_BAND_ROWS, count).round().astype(int)
    return [slice(int(start), int(start) + GRAIN_BAND_ROWS) for start in starts]


def compression_blocks(gray: np.ndarray, points: np.ndarray) -> float:
    """How much the photo's JPEG grid stands out on the face: 1 where it does not.

    JPEG codes a photo in blocks of ``JPEG_BLOCK`` pixels; coded hard, their seams are
    steps between neighbouring pixels every ``JPEG_BLOCK`` columns and rows. The mean
    step along the grid's strongest phase, over the median of all phases, averaged over
    columns and rows of the face's box: about 1.0–1.1 for a photo with no blocks (a
    PNG, or a JPEG resized after), 1.1–1.4 for a camera's or the web's JPEGs, 1.5–2 at
    quality 40. The phase is searched, so a cropped JPEG is read as well as a whole one.
    """
    box = landmarks_box(gray, points)
    if min(box.shape) <= 2 * JPEG_BLOCK:
        return 1.0
    ratios = []
    for steps in (np.abs(np.diff(box, axis=1)), np.abs(np.diff(box, axis=0)).T):
        phases = np.array([steps[:, phase::JPEG_BLOCK].mean() for phase in range(JPEG_BLOCK)])
        typical = float(np.median(phases))
        ratios.append(float(phases.max()) / typical if typical > 0.0 else 1.0)
    return float(np.mean(ratios))


def unblocked_blur(blur_percent: float, blocks: float, face_width: float) -> float:
    """The blur reading with what the blocks' seams took off it.

    The seams are edges the features do not have: a photo saved at JPEG quality 40
    reads sharper than the same photo saved well (measured: tests/analysis/NOTES.md,
    'JPEG blocks and the blur reading'), which would buy a worse photo a higher score.
    The reading is raised by ``BLUR_PER_BLOCK_EXCESS`` per unit of ``compression_blocks``
    beyond 1, in proportion to the measuring scale: the shrink to the measuring width
    averages a large face's seams down, as it does its grain (``face_grain``).
    """
    excess = max(0.0, blocks - 1.0) * measuring_scale(face_width)
    return blur_percent * (1.0 + BLUR_PER_BLOCK_EXCESS * excess)


def landmarks_box(gray: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The photo's pixels (float32) inside the landmarks' bounding box."""
    rows, columns = landmarks_bounds(gray.shape, points)
    return gray[rows, columns].astype(np.float32)


def landmarks_bounds(
    shape: tuple[int, ...], points: np.ndarray, grow: float = 0.0
) -> tuple[slice, slice]:
    """The rows and columns of the landmarks' bounding box, grown by ``grow`` of its
    width and height on each side, within the photo."""
    (left, top), (right, bottom) = points[:, :2].min(axis=0), points[:, :2].max(axis=0)
    grow_x, grow_y = grow * (right - left), grow * (bottom - top)
    x0, y0 = max(0, int(left - grow_x)), max(0, int(top - grow_y))
    x1, y1 = min(shape[1], int(right + grow_x)), min(shape[0], int(bottom + grow_y))
    return slice(y0, max(y0, y1)), slice(x0, max(x0, x1))


def gradient_energy(pixels: np.ndarray) -> np.ndarray:
    gx = cv2.Sobel(pixels, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(pixels, cv2.CV_32F, 0, 1, ksize=3)
    return np.sqrt(gx * gx + gy * gy)


def skin_texture(face: CanonicalFace) -> dict[str, float]:
    """Unevenness of the skin in each patch, in percent of the light on the face.

    The band-pass detail (see ``TEXTURE_*_SIGMA``) is read in linear light
    (``linear_light``) and divided by the light falling on the face there
    (``face_light``), so it stays the same when the face is lit more or less, or is a
    darker or lighter skin of the same evenness: both multiply the detail and the light
    alike. Clipped pixels, which show no texture, are left out.

    Each patch gives its robust spread (1.4826 × the median absolute deviation): spots
    and blotches spread over the patch count fully, while a crease or two that a smile
    draws under the eyes, a small share of its pixels, weigh little. The caller takes
    the median over the patches, so hair over the forehead or a shadow on one cheek does
    not decide.
    """
    pixels = linear_light(face.pixels) + LINEAR_FLOOR
    fine = cv2.GaussianBlur(pixels, (0, 0), TEXTURE_FINE_SIGMA)
    broad = cv2.GaussianBlur(pixels, (0, 0), TEXTURE_BROAD_SIGMA)
    patches = {name: patch > 0 for name, patch in skin_patches(face).items()}
    light = face_light(fine, np.any(list(patches.values()), axis=0) | nose_mask(face))
    relative = 100.0 * (fine - broad) / light
    inside = np.any(list(patches.values()), axis=0)
    skin = ~clipped(face) & ~dark_strokes(pixels, inside)
    figures = {}
    for name, patch in patches.items():
        values = relative[patch & skin]
        if values.size >= MIN_PATCH_PIXELS:
            figures[name] = robust_spread(values)
    return figures


@once_per_face
def nose_mask(face: CanonicalFace) -> np.ndarray:
    """The nose (its landmarks' hull), where the light is often reflected most."""
    return face.polygon_mask(fp.NOSE, hull=True) > 0


def face_light(smoothed: np.ndarray, bright_skin: np.ndarray) -> np.ndarray:
    """The light at each pixel: the brightest of ``bright_skin`` within
    ``LIGHT_RADIUS`` (of the finely smoothed linear image), itself smoothed; never below
    the pixel's own level."""
    size = 2 * LIGHT_RADIUS + 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    brightest = cv2.dilate(np.where(bright_skin, smoothed, 0.0).astype(np.float32), disc)
    light = cv2.GaussianBlur(brightest, (0, 0), LIGHT_RADIUS / 2)
    return np.maximum(light, smoothed)


def lightness(linear: np.ndarray) -> np.ndarray:
    """CIELAB L* (0–100) of linear light on the 0–255 scale."""
    unit = np.clip(linear / 255.0, 0.0, 1.0)
    cube = np.where(unit > 0.008856, np.cbrt(unit), 7.787 * unit + 16.0 / 116.0)
    return (116.0 * cube - 16.0).astype(np.float32)


def dark_strokes(linear: np.ndarray, patches: np.ndarray) -> np.ndarray:
    """Dark strokes across the skin ``patches`` that are not skin (see
    ``NOT_SKIN_LIGHT``), grown by ``NOT_SKIN_MARGIN``: long dark shapes, not the spots of
    the skin itself (and not the brows or eyes beside the patches)."""
    light = lightness(linear - LINEAR_FLOOR)
    dark = (linear < NOT_SKIN_LIGHT * cv2.GaussianBlur(linear, (0, 0), LOCAL_LEVEL_SIGMA)) & (
        light < NOT_SKIN_LIGHTNESS * cv2.GaussianBlur(light, (0, 0), LOCAL_LEVEL_SIGMA)
    )
    dark = (dark & patches).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
    long = np.zeros(count, bool)
    long[1:] = np.maximum(stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]) >= (
        NOT_SKIN_LENGTH
    )
    strokes = long[labels].astype(np.uint8)
    size = 2 * NOT_SKIN_MARGIN + 1
    return cv2.dilate(strokes, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))) > 0


@once_per_face
def clipped(face: CanonicalFace) -> np.ndarray:
    """Pixels clipped white, grown by ``CLIPPED_MARGIN``."""
    white = (face.pixels >= CLIPPED_LEVEL_FOR_TEXTURE).astype(np.uint8)
    size = 2 * CLIPPED_MARGIN + 1
    return cv2.dilate(white, np.ones((size, size), np.uint8)) > 0


def robust_spread(values: np.ndarray) -> float:
    """The standard deviation the values would have without their outliers (MAD-based)."""
    return 1.4826 * float(np.median(np.abs(values - np.median(values))))
