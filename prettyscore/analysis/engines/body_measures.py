"""Measures of a feet, hands or pet photo: light, colour, sharpness, the subject's shape.

Everything works on two small copies of the photo, so that a 12-megapixel upload costs
about what a phone thumbnail does and its figures depend little on its resolution:

- the *view* (long side ``VIEW_LONG_SIDE``, RGB): exposure, contrast, colour, and the
  subject (its mask, size, placement, symmetry and outline);
- the *detail* copy (long side ``DETAIL_LONG_SIDE``, grey): sharpness and skin texture,
  which need finer pixels than the view keeps.

Figures that describe texture or edges are divided by the photo's (or the subject's)
own contrast, so a brighter, darker or flatter copy of the same scene measures alike;
skin is found by its chroma, and texture is measured on luminance only, so skin tone
moves no figure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

VIEW_LONG_SIDE = 320
DETAIL_LONG_SIDE = 960

# Skin in YCrCb (OpenCV's 8-bit scale): the classic chroma box, which holds every skin
# tone (they differ mostly in luminance), with too-dark pixels left out.
SKIN_CR = (135, 180)
SKIN_CB = (80, 135)
SKIN_MIN_Y = 40
# A skin region counts as the subject when it covers at least this share of the frame.
MIN_SKIN_SHARE = 0.02
# Other regions join the largest one in the subject (two feet, two hands, a pet's body
# split by a collar) when they are at least this share of its area.
COMPANION_SHARE = 0.3


@dataclass(frozen=True)
class Copies:
    """The photo's two working copies (see the module's docstring)."""

    view: np.ndarray  # RGB uint8, long side VIEW_LONG_SIDE (never enlarged)
    gray: np.ndarray  # the view's luminance, uint8
    detail: np.ndarray  # luminance, uint8, long side DETAIL_LONG_SIDE (never enlarged)


def integer_reduction(image: np.ndarray, long_side: int) -> np.ndarray:
    """``image`` shrunk by the largest whole factor that keeps its long side at least
    ``long_side`` (itself when that factor is 1).

    Averaging whole blocks of pixels is OpenCV's fast path, several times quicker than
    an arbitrary ratio; the few rows and columns past the last whole block are dropped.
    """
    factor = max(image.shape[:2]) // long_side
    if factor < 2:
        return image
    height, width = (image.shape[0] // factor), (image.shape[1] // factor)
    cropped = image[: height * factor, : width * factor]
    return cv2.resize(cropped, (width, height), interpolation=cv2.INTER_AREA)


def shrink(image: np.ndarray, long_side: int) -> np.ndarray:
    """``image`` with its long side ``long_side`` (area averaging), or itself if smaller."""
    reduced = integer_reduction(image, long_side)
    factor = long_side / max(reduced.shape[:2])
    if factor >= 1.0:
        return reduced
    size = (max(1, round(reduced.shape[1] * factor)), max(1, round(reduced.shape[0] * factor)))
    return cv2.resize(reduced, size, interpolation=cv2.INTER_AREA)


def levels_at(values: np.ndarray, percents: tuple[float, ...]) -> list[float]:
    """Percentiles of ``uint8`` values (the lowest level reaching each share), read
    from their histogram: much quicker than sorting a photo's worth of pixels."""
    counts = np.cumsum(np.bincount(values.ravel(), minlength=256))
    if counts[-1] == 0:
        return [0.0 for _ in percents]
    return [float(np.searchsorted(counts, p / 100.0 * counts[-1])) for p in percents]


def as_rgb(image: np.ndarray) -> np.ndarray:
    """An RGB ``uint8`` array from an RGB, RGBA or grey ``uint8`` image."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise TypeError("expected a uint8 numpy array")
    if image.ndim == 2:
        return cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_GRAY2RGB)
    if image.ndim == 3 and image.shape[2] == 3:
        return np.ascontiguousarray(image)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_RGBA2RGB)
    raise ValueError(f"expected an RGB image of shape (h, w, 3), got {image.shape}")


def working_copies(image: np.ndarray) -> Copies:
    """The view and the detail copy; the full-size photo is read only once, to shrink it."""
    base = integer_reduction(as_rgb(image), DETAIL_LONG_SIDE)
    view = shrink(base, VIEW_LONG_SIDE)
    detail = shrink(cv2.cvtColor(base, cv2.COLOR_RGB2GRAY), DETAIL_LONG_SIDE)
    return Copies(view=view, gray=cv2.cvtColor(view, cv2.COLOR_RGB2GRAY), detail=detail)


# ---------------------------------------------------------------------------
# Whether there is anything to judge
# ---------------------------------------------------------------------------
def structure_share(copies: Copies, step: int = 12) -> float:
    """The share of the view's pixels on an edge: a local change of more than ``step``
    grey levels (or as much in one colour channel) within 3×3 pixels.

    A blank wall, a plain sheet or a smooth gradient has almost none; any photo of a
    thing, even a dark or soft one, has a few percent at least.
    """
    kernel = np.ones((3, 3), np.uint8)
    change = cv2.morphologyEx(copies.view, cv2.MORPH_GRADIENT, kernel).max(axis=2)
    return float((change > step).mean())


def tonal_spread(copies: Copies) -> float:
    """Grey levels between the 1st and 99th percentile of the view (0–255)."""
    low, high = levels_at(copies.gray, (1, 99))
    return high - low


# ---------------------------------------------------------------------------
# Light and colour
# ---------------------------------------------------------------------------
def exposure(copies: Copies) -> dict[str, float]:
    """Where the photo's light sits, each 0–1: its mean brightness, its highlights (the
    99th percentile of brightness), and the shares of pixels crushed to black or blown
    to white.

    An under-exposed photo has no bright highlights, whatever its subject's own colour:
    a dark coat or a deep skin tone still has its highlights, where a photo taken in
    too little light has none.
    """
    gray = copies.gray
    (highlights,) = levels_at(gray, (99,))
    return {
        "brightness": float(gray.mean()) / 255.0,
        "highlights": highlights / 255.0,
        "shadows_clipped": float(np.count_nonzero(gray <= 8)) / gray.size,
        "highlights_clipped": float(np.count_nonzero(gray >= 247)) / gray.size,
    }


def contrast(copies: Copies) -> float:
    """How far apart the photo's tones and colours spread, about 0–1.

    The 5th-to-95th percentile spreads of CIELAB lightness and of both colour axes,
    combined: a subject stands out from its background by brightness or by colour
    (deep skin on a blue towel differs little in brightness, much in colour).
    """
    lab = cv2.cvtColor(copies.view, cv2.COLOR_RGB2LAB)
    spreads = []
    for channel in cv2.split(lab):
        low, high = levels_at(channel, (5, 95))
        spreads.append(high - low)
    return math.hypot(*spreads) / 255.0


def colour(copies: Copies) -> dict[str, float]:
    """Colourfulness, colour cast and warmth of the view.

    ``colourfulness`` is Hasler and Süsstrunk's measure (0 grey; about 15 dull, 33
    moderate, 45 quite, 59 very, 80+ extremely colourful). ``cast`` is how far the
    average colour is from neutral in CIELAB a*b* units (a tint over everything);
    ``warmth`` is the average b* minus a third of |a*|: yellow-orange light is warm,
    blue light cold.
    """
    rgb = copies.view.astype(np.float32)
    red, green, blue = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    rg = red - green
    yb = 0.5 * (red + green) - blue
    colourfulness = math.hypot(float(rg.std()), float(yb.std())) + 0.3 * math.hypot(
        float(rg.mean()), float(yb.mean())
    )
    lab = cv2.cvtColor(copies.view, cv2.COLOR_RGB2LAB).astype(np.float32)
    mean_a = float(lab[..., 1].mean()) - 128.0
    mean_b = float(lab[..., 2].mean()) - 128.0
    return {
        "colourfulness": colourfulness,
        "cast": math.hypot(mean_a, mean_b),
        "warmth": mean_b - abs(mean_a) / 3.0,
    }


# ---------------------------------------------------------------------------
# Sharpness
# ---------------------------------------------------------------------------
# Edges count when their EDGE_WINDOW × EDGE_WINDOW neighbourhood spans at least this
# many grey levels, and is among the photo's top fifth.
EDGE_MIN_RANGE = 24
EDGE_WINDOW = 9
EDGE_TOP_SHARE = 0.2


def sharpness(detail: np.ndarray, mask: np.ndarray | None = None) -> float:
    """How crisp the photo's best edges are: 0.5 for a one-pixel step, less when blurred.

    For each pixel on a strong edge, the steepest slope (Sobel) is divided by the range
    of grey levels around it: a blur spreads the same step over more pixels, so the
    ratio falls roughly as one over the edge's width, whatever its contrast. The 90th
    percentile keeps the photo's sharpest edges (the part in focus) and ignores a soft
    background. ``mask`` (``detail``'s size) limits the edges to part of the photo.
    """
    gx = cv2.Sobel(detail, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(detail, cv2.CV_32F, 0, 1, ksize=3)
    kernel = np.ones((EDGE_WINDOW, EDGE_WINDOW), np.uint8)
    local_range = cv2.subtract(cv2.dilate(detail, kernel), cv2.erode(detail, kernel))
    (top_level,) = levels_at(local_range, (100 * (1 - EDGE_TOP_SHARE),))
    strong = local_range >= max(EDGE_MIN_RANGE, top_level)
    if mask is not None:
        strong &= mask > 0
    if int(np.count_nonzero(strong)) < 20:
        return 0.0
    slope = cv2.magnitude(gx[strong], gy[strong]).ravel() / 8.0
    ratios = slope / local_range[strong].astype(np.float32)
    return float(np.percentile(ratios, 90))


# ---------------------------------------------------------------------------
# The subject
# ---------------------------------------------------------------------------
def skin_mask(view: np.ndarray) -> np.ndarray:
    """Pixels whose colour is skin's (0 or 255), cleaned of specks and pinholes."""
    ycrcb = cv2.cvtColor(view, cv2.COLOR_RGB2YCrCb)
    skin = cv2.inRange(
        ycrcb,
        np.array([SKIN_MIN_Y, SKIN_CR[0], SKIN_CB[0]], np.uint8),
        np.array([255, SKIN_CR[1], SKIN_CB[1]], np.uint8),
    )
    skin = cv2.morphologyEx(skin, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(skin, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


SALIENCY_SIDE = 64


def saliency_mask(gray: np.ndarray) -> np.ndarray:
    """What stands out of the photo (0 or 255), by Hou and Zhang's spectral residual.

    The log amplitude spectrum of a natural image is smooth; what a local average does
    not predict of it belongs to the unexpected, salient parts. The map is computed at
    ``SALIENCY_SIDE`` pixels, smoothed, brought back to the view's size and cut at
    Otsu's threshold.
    """
    small = cv2.resize(gray, (SALIENCY_SIDE, SALIENCY_SIDE), interpolation=cv2.INTER_AREA)
    spectrum = np.fft.fft2(small.astype(np.float64))
    log_amplitude = np.log(np.abs(spectrum) + 1e-9)
    residual = log_amplitude - cv2.blur(log_amplitude, (3, 3), borderType=cv2.BORDER_REPLICATE)
    saliency = np.abs(np.fft.ifft2(np.exp(residual + 1j * np.angle(spectrum)))) ** 2
    saliency = cv2.GaussianBlur(saliency.astype(np.float32), (0, 0), 2.5)
    saliency = cv2.resize(saliency, gray.shape[::-1], interpolation=cv2.INTER_LINEAR)
    scaled = cv2.normalize(saliency, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    _, mask = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))


def main_regions(mask: np.ndarray) -> np.ndarray:
    """The largest region of ``mask`` with the others at least ``COMPANION_SHARE`` its
    size (0 or 255); an empty mask stays empty."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count <= 1:
        return np.zeros_like(mask)
    areas = stats[1:, cv2.CC_STAT_AREA]
    keep = np.flatnonzero(areas >= COMPANION_SHARE * areas.max()) + 1
    return np.where(np.isin(labels, keep), 255, 0).astype(np.uint8)


def subject_mask(copies: Copies, prefer_skin: bool) -> tuple[np.ndarray, bool]:
    """The subject's mask on the view, and whether it was found by its skin.

    Feet and hands are looked for by their colour first; a photo with too little skin
    (socks, gloves, a black-and-white photo, a pet) falls back to what stands out.
    """
    if prefer_skin:
        skin = main_regions(skin_mask(copies.view))
        if float((skin > 0).mean()) >= MIN_SKIN_SHARE:
            return skin, True
    return main_regions(saliency_mask(copies.gray)), False


@dataclass(frozen=True)
class Shape:
    """The subject's silhouette, measured on the view.

    Of the whole subject (both feet of a pair): ``area``, its share of the frame;
    ``offset``, the distance of its centre of mass from the frame's centre in
    half-diagonals (0 centred, 1 in a corner); ``elongation``, the ratio of its principal
    axes (1 round, 3 long); ``symmetry``, its best overlap (IoU) with its own mirror
    image; ``length``, about its extent along its principal axis, in view pixels.

    Of its largest region's outline: ``solidity``, area over convex hull area;
    ``smoothness``, hull perimeter over outline perimeter (1 a clean outline, lower a
    ragged one); ``lobes``, deep notches (the gaps between fingers or toes), and
    ``notch_depth``, the deepest, in subject lengths.
    """

    area: float
    offset: float
    elongation: float
    solidity: float
    smoothness: float
    symmetry: float
    lobes: int
    notch_depth: float
    length: float


EMPTY_SHAPE = Shape(0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0, 0.0, 0.0)
# A notch between two fingers or toes is at least this deep, in subject lengths.
LOBE_MIN_DEPTH = 0.06


def shape_of(mask: np.ndarray) -> Shape:
    """Measure the silhouette ``mask`` (0 or 255); ``EMPTY_SHAPE`` when there is none."""
    moments = cv2.moments(mask, binaryImage=True)
    if moments["m00"] < 16:
        return EMPTY_SHAPE
    height, width = mask.shape
    cx, cy = moments["m10"] / moments["m00"], moments["m01"] / moments["m00"]
    offset = math.hypot(cx - width / 2, cy - height / 2) / math.hypot(width / 2, height / 2)
    mu20, mu02, mu11 = (moments[k] / moments["m00"] for k in ("mu20", "mu02", "mu11"))
    spread = math.sqrt(4 * mu11**2 + (mu20 - mu02) ** 2)
    major = math.sqrt(max((mu20 + mu02 + spread) / 2, 1e-9))
    minor = math.sqrt(max((mu20 + mu02 - spread) / 2, 1e-9))
    angle = 0.5 * math.atan2(2 * mu11, mu20 - mu02)
    outline = largest_outline(mask)
    hull = cv2.convexHull(outline)
    hull_area = max(cv2.contourArea(hull), 1.0)
    length = 4.0 * major  # about the full extent along the principal axis
    lobes, notch_depth = notches(outline, length)
    return Shape(
        area=moments["m00"] / mask.size,
        offset=min(offset, 1.0),
        elongation=major / minor,
        solidity=min(cv2.contourArea(outline) / hull_area, 1.0),
        smoothness=min(cv2.arcLength(hull, True) / max(cv2.arcLength(outline, True), 1.0), 1.0),
        symmetry=mirror_symmetry(mask, (cx, cy), angle),
        lobes=lobes,
        notch_depth=notch_depth,
        length=length,
    )


def largest_outline(mask: np.ndarray) -> np.ndarray:
    """The outline of the mask's largest region (OpenCV contour points)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return max(contours, key=lambda contour: (cv2.contourArea(contour), len(contour)))


def notches(outline: np.ndarray, length: float) -> tuple[int, float]:
    """How many deep notches the outline has, and the deepest (in subject lengths)."""
    simplified = cv2.approxPolyDP(outline, max(1.0, 0.01 * length), True)
    if len(simplified) < 4:
        return 0, 0.0
    try:
        hull = cv2.convexHull(simplified, returnPoints=False)
        defects = cv2.convexityDefects(simplified, hull)
    except cv2.error:  # a self-touching outline: no reliable notches
        return 0, 0.0
    if defects is None:
        return 0, 0.0
    depths = defects[:, 0, 3] / 256.0 / max(length, 1.0)
    return int((depths >= LOBE_MIN_DEPTH).sum()), float(depths.max())


def mirror_symmetry(mask: np.ndarray, centre: tuple[float, float], angle: float) -> float:
    """The best overlap (intersection over union) of the mask with its mirror image,
    about its principal axes and the frame's vertical and horizontal through its centre.

    A pair of feet side by side, an open hand, a pet facing the camera: each is close
    to its own mirror image about one of these lines.
    """
    cx, cy = centre
    best = 0.0
    inside = mask > 0
    for axis in (angle, angle + math.pi / 2, math.pi / 2, 0.0):
        c, s = math.cos(2 * axis), math.sin(2 * axis)
        reflection = np.array(
            [[c, s, cx - c * cx - s * cy], [s, -c, cy - s * cx + c * cy]], np.float64
        )
        mirrored = cv2.warpAffine(
            mask, reflection, mask.shape[::-1], flags=cv2.INTER_NEAREST, borderValue=0
        )
        mirrored_inside = mirrored > 0
        union = int((inside | mirrored_inside).sum())
        if union:
            best = max(best, int((inside & mirrored_inside).sum()) / union)
    return best


# ---------------------------------------------------------------------------
# Skin
# ---------------------------------------------------------------------------
def detail_mask(mask: np.ndarray, detail_shape: tuple[int, int], erode: int) -> np.ndarray:
    """A view mask brought to the detail copy's size, eroded by ``erode`` detail pixels
    so that measures stay clear of the outline."""
    big = cv2.resize(mask, detail_shape[::-1], interpolation=cv2.INTER_NEAREST)
    if erode > 0:
        big = cv2.erode(big, np.ones((2 * erode + 1, 2 * erode + 1), np.uint8))
    return big


def skin_texture(copies: Copies, mask: np.ndarray) -> dict[str, float]:
    """Texture and evenness of the subject's skin (lower is smoother and more even).

    ``fine``: grain finer than a pixel or two of the detail copy; ``blotch``: unevenness
    at the scale of spots and marks (a few pixels); both robust spreads (see
    ``robust_spread``) relative to the subject's own tonal spread, so its brightness and
    tone do not count. ``tone``: the spread of
    chroma (Cr, Cb) over the skin, in 8-bit units: patches, redness, uneven tan.
    """
    inner = detail_mask(mask, copies.detail.shape, erode=3)
    if cv2.countNonZero(inner) < 50:
        return {"fine": 0.0, "blotch": 0.0, "tone": 0.0}
    x0, y0, width, height = cv2.boundingRect(inner)
    window = (slice(y0, y0 + height), slice(x0, x0 + width))
    pixels = copies.detail[window]
    inside = inner[window]
    low, high = levels_at(pixels[inside > 0], (10, 90))
    spread = max(high - low, 8.0)
    region = pixels.astype(np.float32)
    smooth_fine = cv2.GaussianBlur(region, (0, 0), 1.0)
    smooth_broad = cv2.GaussianBlur(region, (0, 0), 4.0)
    fine = robust_spread((region - smooth_fine)[inside > 0]) / spread
    blotch = robust_spread((smooth_fine - smooth_broad)[inside > 0]) / spread
    view_inside = cv2.erode(mask, np.ones((3, 3), np.uint8))
    if cv2.countNonZero(view_inside) < 10:
        view_inside = mask
    ycrcb = cv2.cvtColor(copies.view, cv2.COLOR_RGB2YCrCb)
    chroma_spread = cv2.meanStdDev(ycrcb, mask=view_inside)[1].ravel()
    tone = math.hypot(float(chroma_spread[1]), float(chroma_spread[2]))
    return {"fine": fine, "blotch": blotch, "tone": tone}


def robust_spread(values: np.ndarray) -> float:
    """The standard deviation a normal spread with the same interquartile range has:
    nails, a ring or a tattoo among the skin do not count as its texture."""
    low, high = np.percentile(values, (25, 75))
    return float(high - low) / 1.349


def extremity_patches(mask: np.ndarray, count: int = 5) -> list[tuple[int, int]]:
    """Up to ``count`` tips of the silhouette, farthest from its centre first, in view
    pixels: where fingernails and toenails are, on an open hand or a foot."""
    if not cv2.countNonZero(mask):
        return []
    outline = largest_outline(mask)
    moments = cv2.moments(outline)
    if moments["m00"] <= 0:
        return []
    cx, cy = moments["m10"] / moments["m00"], moments["m01"] / moments["m00"]
    hull = cv2.convexHull(outline)[:, 0, :]
    ordered = sorted(
        (tuple(int(v) for v in point) for point in hull),
        key=lambda p: (-math.hypot(p[0] - cx, p[1] - cy), p),
    )
    tips: list[tuple[int, int]] = []
    min_gap = 0.08 * math.sqrt(float(cv2.countNonZero(mask)))
    for point in ordered:
        if all(math.dist(point, tip) >= min_gap for tip in tips):
            tips.append(point)
        if len(tips) == count:
            break
    return tips


def tip_detail(
    copies: Copies,
    mask: np.ndarray,
    tips: list[tuple[float, float]] | None = None,
    tip_radius: float | None = None,
) -> dict[str, float]:
    """Crispness and gloss at the silhouette's tips (the nails of a hand or a foot).

    ``crisp``: the sharpness (as ``sharpness``) of the edges within the tip patches;
    ``gloss``: how much brighter the brightest part of a tip is than the subject's
    median, relative to its spread (a clean, well-lit nail catches the light). Where
    the nails are and how large, in view pixels, when known (``tips``, ``tip_radius``:
    a hand's landmarks say so); otherwise the silhouette's extremities are taken.
    """
    if tips is None:
        tips = [(float(x), float(y)) for x, y in extremity_patches(mask)]
    if not tips or not cv2.countNonZero(mask):
        return {"crisp": 0.0, "gloss": 0.0}
    factor = copies.detail.shape[1] / copies.view.shape[1]
    if tip_radius is None:
        tip_radius = 0.05 * math.sqrt(float(cv2.countNonZero(mask)))
    radius = max(4, round(tip_radius * factor))
    big_mask = detail_mask(mask, copies.detail.shape, erode=0)
    patches = np.zeros(copies.detail.shape, np.uint8)
    for x, y in tips:
        cv2.circle(patches, (round(x * factor), round(y * factor)), radius, 255, -1)
    if not cv2.countNonZero(patches):  # every tip outside the photo
        return {"crisp": 0.0, "gloss": 0.0}
    x0, y0, width, height = cv2.boundingRect(patches)
    window = (slice(y0, y0 + height), slice(x0, x0 + width))
    near_subject = cv2.dilate(big_mask[window], np.ones((5, 5), np.uint8))
    crisp = sharpness(copies.detail[window], patches[window] & near_subject)
    inside = copies.detail[big_mask > 0]
    tip_values = copies.detail[window][(patches[window] > 0) & (big_mask[window] > 0)]
    if not tip_values.size:
        return {"crisp": crisp, "gloss": 0.0}
    low, median, high = levels_at(inside, (10, 50, 90))
    (tip_bright,) = levels_at(tip_values, (90,))
    gloss = (tip_bright - median) / max(high - low, 8.0)
    return {"crisp": crisp, "gloss": gloss}
