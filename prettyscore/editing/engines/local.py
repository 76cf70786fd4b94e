"""The ``local`` edit engine: real edits with image processing, offline and deterministic.

Each preset of document 000 §9 changes its own part of the photo (``masks.Regions``
finds the subject, hair, outfit and face): the background presets replace or blur what
is not the subject, the hair presets work on the hair (down to the ends of long hair,
never on the skin), the outfit presets on the clothes of the body's torso and arms, the
hair left in front; a new suit or sweater also covers the bare skin of the old
garment's neckline below its own collar. The upscale preset enlarges to a 3840-pixel
long side (Lanczos, then an unsharp mask).

Custom prompts are read for keywords (``understanding.KEYWORD_EDITS``); several combine, applied in
a fixed order whatever the order of the words. A prompt with none is refused with
``messages.EDIT_NOT_SUPPORTED`` (code ``unsupported_edit``: no free edit is used).

Same photo and prompt, same pixels: GrabCut's RNG is seeded and generated textures use
fixed seeds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageFilter

from prettyscore.core import messages
from prettyscore.editing import presets
from prettyscore.editing.engines import backdrops, colour
from prettyscore.editing.engines.base import require_prompt, unsupported
from prettyscore.editing.engines.masks import Regions, smoothstep


class Photo:
    """The pixels being edited, with their regions worked out once, when first needed."""

    def __init__(self, pixels: np.ndarray):
        self.pixels = pixels
        self._regions: Regions | None = None

    @property
    def regions(self) -> Regions:
        if self._regions is None:
            self._regions = Regions(self.pixels)
        return self._regions


Edit = Callable[[Photo], np.ndarray]


# --- Background ------------------------------------------------------------------------


def with_backdrop(photo: Photo, backdrop: np.ndarray) -> np.ndarray:
    return colour.mix(backdrop, photo.pixels, photo.regions.subject)


def remove_background(photo: Photo) -> np.ndarray:
    return with_backdrop(photo, np.full_like(photo.pixels, 255))


def blur_background(photo: Photo) -> np.ndarray:
    sigma = max(3.0, 0.015 * max(photo.pixels.shape[:2]))
    return with_backdrop(photo, colour.gaussian(photo.pixels, sigma))


def outdoor_background(photo: Photo) -> np.ndarray:
    height, width = photo.pixels.shape[:2]
    return with_backdrop(photo, backdrops.outdoor(width, height))


def studio_background(photo: Photo) -> np.ndarray:
    height, width = photo.pixels.shape[:2]
    return with_backdrop(photo, backdrops.studio(width, height))


# --- Hair --------------------------------------------------------------------------------
#
# A hair or outfit preset is an ``Edit`` of its own: it finds its region in ``photo.regions``
# and blends its change through that region's soft mask, so no edge of the change shows.


def hair_edit(change: Edit) -> Edit:
    """A preset of the Hair tab (``change`` works on the whole photo and its hair mask)."""
    return change


def in_hair(change: Callable[[np.ndarray, tuple[int, int], Regions], np.ndarray]) -> Edit:
    """``change(crop, origin, regions)`` applied to the hair, through its soft mask."""

    def run(photo: Photo) -> np.ndarray:
        regions = photo.regions
        return colour.edit_in_region(
            photo.pixels, regions.hair, lambda crop, origin: change(crop, origin, regions)
        )

    return run


@dataclass(frozen=True)
class HeadFrame:
    """An ellipse around the head and its hair: centre at ear level on the face's midline;
    ``rho`` is 1 on the top of the hair, ``hairline`` where the hair meets the forehead."""

    cx: float
    cy: float
    ax: float
    ay: float
    hairline: float

    def rho(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        return np.sqrt(((cols - self.cx) / self.ax) ** 2 + ((rows - self.cy) / self.ay) ** 2)


def head_frame(regions: Regions) -> HeadFrame:
    """The head's ellipse: its top is the subject's top above the face (the hair's top);
    the hairline is the lowest row of hair above the forehead on the face's midline."""
    head = regions.head
    cx, cy, face_h = head.chin_x, head.cheek_y, head.face_height
    half = max(2, round(0.2 * head.face_width))
    columns = slice(max(0, round(cx) - half), max(1, round(cx) + half))
    above = slice(0, max(1, round(head.forehead_y + 0.1 * face_h)))
    solid = np.flatnonzero((regions.subject[above, columns] > 0.5).mean(axis=1) > 0.6)
    top = float(solid[0]) if solid.size else head.forehead_y - 0.25 * face_h
    top = min(top, head.forehead_y - 0.05 * face_h)
    ay = max(cy - top, 0.3 * face_h)
    hair = np.flatnonzero(regions.hair[above, columns].mean(axis=1) > 0.35)
    hair = hair[hair > top]
    hairline = float(hair[-1]) if hair.size else head.forehead_y
    rho = (cy - hairline) / ay
    return HeadFrame(cx, cy, 0.62 * head.face_width, ay, float(np.clip(rho, 0.45, 0.9)))


def crop_box(frame: HeadFrame, reach: float, shape: tuple[int, ...]) -> tuple[slice, slice]:
    top = max(0, int(frame.cy - reach * frame.ay))
    bottom = min(shape[0], int(frame.cy + 0.35 * frame.ay) + 1)
    left = max(0, int(frame.cx - reach * frame.ax))
    right = min(shape[1], int(frame.cx + reach * frame.ax) + 1)
    return slice(top, max(top + 1, bottom)), slice(left, max(left + 1, right))


VOLUME_GAIN = 0.13
VOLUME_REACH = 1.9
# The most the warp's rise may stretch the hair (a steeper one would fold it over).
VOLUME_MAX_SLOPE = 0.45


def _volume(photo: Photo) -> np.ndarray:
    """Fuller hair: the hair pushed outward from the head (a liquify starting at the
    hairline: the face is untouched), set over the photo's own background, then its light
    and shade deepened a little."""
    regions = photo.regions
    frame = head_frame(regions)
    box = crop_box(frame, VOLUME_REACH, photo.pixels.shape)
    rows = np.arange(box[0].start, box[0].stop, dtype=np.float32)[:, None]
    cols = np.arange(box[1].start, box[1].stop, dtype=np.float32)[None, :]
    rho = frame.rho(rows, cols) + np.float32(1e-4)
    upward = smoothstep((frame.cy - rows) / (frame.ay * rho), -0.15, 0.45)
    start = frame.hairline - 0.04
    gain = min(VOLUME_GAIN, VOLUME_MAX_SLOPE * (1.1 - start) / 1.5)
    rise = smoothstep(rho, start, 1.1)
    fall = 1.0 - smoothstep(rho, 1.25, VOLUME_REACH)
    ratio = 1.0 - gain * rise * fall * upward / rho
    map_x = (frame.cx + (cols - frame.cx) * ratio - box[1].start).astype(np.float32)
    map_y = (frame.cy + (rows - frame.cy) * ratio - box[0].start).astype(np.float32)

    def warp(values: np.ndarray) -> np.ndarray:
        return colour.remapped(values[box], map_x, map_y)

    crop = photo.pixels[box]
    warped = warp(photo.pixels)
    hair = warp(regions.hair)
    lab = colour.to_lab(warped)
    light = lab[..., 0]
    base = colour.gaussian(light, 0.05 * regions.face_box.w)
    lab[..., 0] = np.clip(base + (light - base) * 1.6 + 3.0, 0, 100)
    lab[..., 1:] *= 1.08
    toned = colour.mix(warped, colour.from_lab(lab), hair)
    result = photo.pixels.copy()
    result[box] = colour.mix(crop, toned, warp(regions.subject))
    return result


def _blonde_tone(crop: np.ndarray, origin: tuple[int, int], regions: Regions) -> np.ndarray:
    """Lightness lifted to a golden-blonde level, texture kept; colour moved to gold."""
    lab = colour.to_lab(crop)
    light = lab[..., 0]
    mask = regions.hair[
        origin[0] : origin[0] + crop.shape[0], origin[1] : origin[1] + crop.shape[1]
    ]
    inside = mask > 0.5
    mean = float(light[inside].mean()) if inside.any() else float(light.mean())
    lab[..., 0] = np.clip(70.0 + (light - mean) * 1.1, 24, 95)
    lab[..., 1] = 5.0 + lab[..., 1] * 0.25
    lab[..., 2] = 36.0 + lab[..., 2] * 0.25
    return colour.from_lab(lab)


# Highlights are painted from a fixed texture of streaks, laid around the head: its
# columns run once around the crown, its rows down the hair's length
# (``STREAK_LENGTH`` head heights from the crown in all). The streaks are random noise
# stretched along the hair, thresholded: a colourist's foils, of uneven width, gap and
# strength, not a regular comb. Fixed seed: the same photo always gets the same streaks.
STREAK_SEED = 11
STREAK_TEXTURE = (48, 1536)
STREAK_LENGTH = 4.0
# Noise blurred by these many texels across and along the hair: broad ribbons and fine
# babylights.
STREAK_RIBBONS = (2.5, 6.0)
STREAK_BABYLIGHTS = (1.0, 4.0)
# The roots stay the hair's own up to this share of the head's height from the crown,
# and the streaks reach full strength by the second: no sunburst where they converge.
STREAK_ROOTS = (0.05, 0.25)


@functools.cache
def _streak_texture() -> np.ndarray:
    """The streaks (0–1), ``STREAK_TEXTURE`` texels, wrapping around the head."""
    rng = np.random.default_rng(STREAK_SEED)

    def layer(across: float, along: float) -> np.ndarray:
        noise = rng.standard_normal(STREAK_TEXTURE).astype(np.float32)
        pad = int(4 * max(across, along))
        wrapped = np.pad(noise, pad, mode="wrap")
        blurred = cv2.GaussianBlur(wrapped, (0, 0), sigmaX=across, sigmaY=along)
        blurred = blurred[pad:-pad, pad:-pad]
        return (blurred - blurred.mean()) / blurred.std()

    ribbons = smoothstep(layer(*STREAK_RIBBONS), -0.2, 1.2)
    babylights = smoothstep(layer(*STREAK_BABYLIGHTS), 0.3, 1.6)
    return np.clip(ribbons + 0.6 * babylights, 0.0, 1.0).astype(np.float32)


def _streaks(crop_shape: tuple[int, int], origin: tuple[int, int], regions: Regions):
    """Where the highlights are (0–1): the streak texture laid from the crown, fanning out
    as hair falls over the head and, below the ears, running straight down (long hair);
    sized by the head, so a close-up and a full figure get the same streaks."""
    frame = head_frame(regions)
    crown_y = frame.cy - 0.8 * frame.ay
    rows = np.arange(crop_shape[0], dtype=np.float32)[:, None] + origin[0]
    cols = np.arange(crop_shape[1], dtype=np.float32)[None, :] + origin[1]
    fanning = np.minimum(rows, frame.cy)
    angle = np.arctan2(cols - frame.cx, fanning - crown_y + 0.15 * frame.ay)
    reach = np.hypot(cols - frame.cx, rows - crown_y) / frame.ay
    texture = _streak_texture()
    height, width = texture.shape
    around = (angle / (2 * np.pi)) % 1.0 + 0.004 * np.sin(reach * 6.0 + angle * 2.0)
    map_x = np.broadcast_to(around * width, crop_shape).astype(np.float32)
    map_y = np.broadcast_to(reach * (height / STREAK_LENGTH), crop_shape).astype(np.float32)
    streaks = cv2.remap(texture, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
    # Near the crown a texel is finer than a pixel: softened there, a streak's edge is
    # the hair's, not an aliased step.
    streaks = cv2.GaussianBlur(streaks, (0, 0), max(0.8, 0.004 * frame.ax))
    return streaks * smoothstep(reach, *STREAK_ROOTS)


def _highlights_tone(crop: np.ndarray, origin: tuple[int, int], regions: Regions):
    """Honey-coloured strands: lifted towards a caramel-blonde lightness (dark hair) or
    warmed to gold (light hair), strongest on the hair's own lit fibres."""
    lab = colour.to_lab(crop)
    light = lab[..., 0]
    fibres = light - colour.gaussian(light, 0.02 * regions.face_box.w)
    lit = np.clip(0.85 + fibres / 15.0, 0.5, 1.25)
    weight = np.clip(_streaks(crop.shape[:2], origin, regions) * lit, 0.0, 1.0)
    lift = np.maximum(58.0 + 0.25 * light - light, 12.0)
    lab[..., 0] = np.clip(light + weight * lift, 0, 100)
    lab[..., 1] += weight * (10.0 - 0.4 * lab[..., 1])
    lab[..., 2] += weight * (30.0 - 0.4 * lab[..., 2])
    return colour.from_lab(lab)


def _polished_tone(crop: np.ndarray, origin: tuple[int, int], regions: Regions):
    """Sleek hair: frizz smoothed (the strands' finest detail partly kept), colour
    deepened, a glossy band of shine that follows the curve of the head (softer on light
    hair, which would only glare), and grey hair toned silver."""
    frame = head_frame(regions)
    smooth = colour.smoothed(crop, 1.3, regions.face_box.w).astype(np.float32)
    original = crop.astype(np.float32)
    strands = original - colour.gaussian(original, max(0.8, 0.004 * frame.ax))
    lab = colour.to_lab(colour.as_uint8(smooth + 0.3 * strands))
    rows = np.arange(crop.shape[0], dtype=np.float32)[:, None] + origin[0]
    cols = np.arange(crop.shape[1], dtype=np.float32)[None, :] + origin[1]
    rho = frame.rho(rows, cols)
    upward = smoothstep((frame.cy - rows) / (frame.ay * (rho + 1e-4)), 0.15, 0.65)
    gloss_at = 0.45 * frame.hairline + 0.55
    shine = np.exp(-(((rho - gloss_at) / 0.11) ** 2)) * upward
    light = lab[..., 0]
    deeper = light - 20.0 * (1.0 - light / 100.0) * (light / 100.0)
    lab[..., 0] = np.clip(deeper + shine * (36.0 - 0.32 * light), 0, 100)
    lab[..., 1:] *= 1.15
    # Grey and white hair toned silver (its yellow cast taken out), as a stylist would.
    lab[..., 2] -= smoothstep(light, 55.0, 80.0) * np.clip(lab[..., 2], 0.0, 10.0)
    return colour.from_lab(lab)


_blonde = in_hair(_blonde_tone)
_highlights = in_hair(_highlights_tone)
_polished = in_hair(_polished_tone)


# --- Outfit ------------------------------------------------------------------------------


def outfit_edit(change: Edit) -> Edit:
    """A preset of the Outfit tab (``change`` works on the whole photo and its outfit mask)."""
    return change


def in_outfit(
    change: Callable[[np.ndarray, tuple[int, int], Regions], np.ndarray],
    opening: Callable[[Regions, np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> Edit:
    """``change(crop, origin, regions)`` applied to the clothes, through their soft mask.

    A new garment may also cover the skin of the old one's opening (a V-neck under a
    suit's shirt, under a crew-neck sweater): ``opening(regions, rows, cols)`` says where
    (0–1, from the head's geometry), and only the person there, not the face or hair.
    """

    def run(photo: Photo) -> np.ndarray:
        regions = photo.regions
        mask = regions.outfit
        if opening is not None:
            mask = np.maximum(mask, covered_opening(regions, opening))
        return colour.edit_in_region(
            photo.pixels, mask, lambda crop, origin: change(crop, origin, regions)
        )

    return run


def covered_opening(
    regions: Regions, opening: Callable[[Regions, np.ndarray, np.ndarray], np.ndarray]
) -> np.ndarray:
    """The bare skin inside ``opening``, neither face nor hair (0–1, full size)."""
    rows = np.arange(regions.height, dtype=np.float32)[:, None]
    cols = np.arange(regions.width, dtype=np.float32)[None, :]
    keep_out = np.maximum(regions.face, regions.hair)
    skin = regions.bare_skin * (1.0 - keep_out)
    return (opening(regions, rows, cols) * skin).astype(np.float32)


@dataclass(frozen=True)
class Suit:
    """The colours (Lab) of a drawn suit: cloth, shirt and tie; the lapels' sheen (L)."""

    cloth: tuple[float, float, float]
    shirt: tuple[float, float, float]
    tie: tuple[float, float, float]
    sheen: float


# A black-tie dinner jacket: near-black cloth, satin lapels, white shirt, black tie.
FORMAL = Suit(cloth=(13.0, 0.5, -2.5), shirt=(94.0, 0.0, -1.5), tie=(9.0, 0.5, -2.0), sheen=10.0)
# A business suit: navy cloth, light blue shirt, burgundy tie.
BUSINESS = Suit(
    cloth=(22.0, 2.0, -20.0), shirt=(90.0, -2.0, -8.0), tie=(27.0, 32.0, 11.0), sheen=3.0
)

CLOTH_SEED = 7


def _cloth_grain(shape: tuple[int, int]) -> np.ndarray:
    """A faint, fixed woven texture (L units), so the cloth does not look painted."""
    rng = np.random.default_rng(CLOTH_SEED)
    grain = rng.standard_normal(shape, dtype=np.float32)
    return colour.gaussian(grain, 0.7) * np.float32(1.6)


def _shading(
    light: np.ndarray, origin: tuple[int, int], regions: Regions, scale: float, depth: float
) -> tuple[np.ndarray, np.ndarray]:
    """The clothes' folds (detail about ``scale`` face widths, about ``depth`` L deep
    whatever the garment's own contrast) and the light across them, for new cloth.

    Light things on the clothes (a shirt front, a badge) are first pulled down to the
    garment's usual lightness, and thin ones (a badge's rim, a cord) taken out, so they do
    not show through the new cloth; broad shadows and folds stay.
    """
    fw = regions.head.face_width
    worn = regions.outfit[
        origin[0] : origin[0] + light.shape[0], origin[1] : origin[1] + light.shape[1]
    ]
    inside = worn > 0.5
    usual = float(np.median(light[inside])) if inside.any() else float(light.mean())
    light = colour.despeckled(np.minimum(light, usual + 6.0), fw, 0.12)
    broad = colour.gaussian(light, 0.35 * fw)
    typical = float((broad * worn).sum() / max(float(worn.sum()), 1.0))
    folds = colour.gaussian(light, scale * fw) - broad
    spread = float(np.sqrt((folds**2 * worn).sum() / max(float(worn.sum()), 1.0)))
    folds = np.clip(folds * min(1.5, depth / max(spread, 1e-3)), -2.5 * depth, depth)
    return folds, np.clip(broad - typical, -12.0, 12.0)


def _suit_layer(crop: np.ndarray, origin: tuple[int, int], regions: Regions, suit: Suit):
    """A suit drawn over the clothes: a V opening at the neck over a shirt and tie, the
    lapels along it, the jacket closed below; the clothes' own folds and light kept."""
    head = regions.head
    fw, fh = head.face_width, head.face_height
    rows = np.arange(crop.shape[0], dtype=np.float32)[:, None] + origin[0]
    offset = np.arange(crop.shape[1], dtype=np.float32)[None, :] + origin[1] - head.chin_x
    across = np.abs(offset)
    soft = max(1.0, 0.008 * fw)
    collar = head.chin_y + 0.2 * fh
    apex = head.chin_y + 1.45 * fh
    closing = np.clip((apex - rows) / (apex - collar), 0.0, 1.0)
    opening = 0.3 * fw * closing + np.clip(collar - rows, 0.0, None) * 0.6
    lapel = opening + 0.42 * fw * closing**0.8
    above_apex = smoothstep(apex - rows, -soft, soft)
    shirt = smoothstep(opening - across, -soft, soft) * above_apex
    lapels = smoothstep(lapel - across, -soft, soft) * (1.0 - shirt) * above_apex
    knot_end = collar + 0.12 * fh
    knot = rows < knot_end
    # The knot tapers down to where the blade starts; the blade widens towards the waist.
    tie_half = np.where(
        knot,
        0.085 * fw - 0.03 * fw * np.clip((rows - collar) / (knot_end - collar), 0.0, 1.0),
        0.055 * fw + 0.08 * fw * (rows - knot_end) / (apex - knot_end),
    )
    tie = smoothstep(tie_half - across, -soft, soft) * smoothstep(
        rows - collar + 0.06 * fh, 0, soft
    )

    lab = colour.to_lab(crop)
    folds, lighting = _shading(lab[..., 0], origin, regions, 0.02, 6.0)
    edge = np.exp(-(((across - lapel) / (0.018 * fw)) ** 2)) * above_apex * (closing > 0)
    front = np.exp(-((across / (0.012 * fw)) ** 2)) * (1.0 - above_apex)
    cloth_light = (
        suit.cloth[0]
        + 0.5 * folds
        + 0.2 * lighting
        + _cloth_grain(crop.shape[:2])
        + lapels * (suit.sheen + _lapel_roll(across, opening, lapel))
        - 8.0 * edge
        - 6.0 * front
        + _body_relief(rows, offset, across, lapel, apex, fw, fh)
    )
    shade = np.exp(-(((opening - across) / (0.05 * fw)) ** 2))
    shirt_light = (
        suit.shirt[0]
        + 0.2 * np.clip(folds, -25.0, 4.0)
        - 14.0 * shade
        - 16.0 * _collar_lines(rows, across, collar, fw, fh)
    )
    tie_light = suit.tie[0] + 0.3 * folds + _tie_relief(rows, offset, tie_half, knot_end, fw)

    out = np.empty_like(lab)
    for channel, values in enumerate((cloth_light, suit.cloth[1], suit.cloth[2])):
        out[..., channel] = values
    shirt_lab = (shirt_light, suit.shirt[1], suit.shirt[2])
    tie_lab = (tie_light, suit.tie[1], suit.tie[2])
    tie_weight = tie * shirt
    for channel in range(3):
        out[..., channel] += (shirt_lab[channel] - out[..., channel]) * shirt
        out[..., channel] += (tie_lab[channel] - out[..., channel]) * tie_weight
    out[..., 0] = np.clip(out[..., 0], 0, 100)
    return colour.from_lab(out)


# A jacket's light (L): how much darker its sides are than its front, the shadow its
# lapels cast on it, and its buttons.
JACKET_SIDES_SHADE = 9.0
LAPEL_SHADOW = 9.0
BUTTON_SHADE = 14.0


def _lapel_roll(across: np.ndarray, opening: np.ndarray, lapel: np.ndarray) -> np.ndarray:
    """A lapel rolls: lighter where it turns at the opening, darker towards its edge."""
    position = np.clip((lapel - across) / np.maximum(lapel - opening, 1.0), 0.0, 1.0)
    return 5.0 * position - 2.5


def _body_relief(
    rows: np.ndarray,
    offset: np.ndarray,
    across: np.ndarray,
    lapel: np.ndarray,
    apex: float,
    fw: float,
    fh: float,
) -> np.ndarray:
    """The jacket's shape in light: the torso turns away at the sides (darker), each
    lapel casts a soft shadow just outside its edge, and two buttons close it below the
    V (a small dark disc each, lit on top)."""
    sides = -JACKET_SIDES_SHADE * np.clip(across / (1.4 * fw), 0.0, 1.0) ** 2
    cast = np.exp(-(((across - lapel - 0.025 * fw) / (0.02 * fw)) ** 2)) * (rows < apex)
    relief = sides - LAPEL_SHADOW * cast
    radius = 0.028 * fw
    for row in (apex + 0.12 * fh, apex + 0.62 * fh):
        distance = np.hypot(offset + 0.05 * fw, rows - row)
        disc = 1.0 - smoothstep(distance, 0.8 * radius, radius)
        lit = np.clip((row - rows) / radius, 0.0, 1.0)
        relief = relief - disc * (BUTTON_SHADE - 10.0 * lit)
    return relief


def _collar_lines(
    rows: np.ndarray, across: np.ndarray, collar: float, fw: float, fh: float
) -> np.ndarray:
    """The shade (0–1) along the edges of the shirt's two collar points, which run from
    the neck's sides down to a point beside the knot."""
    top = np.array([0.26 * fw, collar - 0.04 * fh], np.float32)
    tip = np.array([0.1 * fw, collar + 0.16 * fh], np.float32)
    direction = (tip - top) / np.linalg.norm(tip - top)
    offset_x, offset_y = across - top[0], rows - top[1]
    along = offset_x * direction[0] + offset_y * direction[1]
    distance = np.abs(offset_x * direction[1] - offset_y * direction[0])
    on_edge = (along > 0) & (along < np.linalg.norm(tip - top))
    return np.exp(-((distance / (0.012 * fw)) ** 2)) * on_edge


def _tie_relief(
    rows: np.ndarray, offset: np.ndarray, half: np.ndarray, knot_end: float, fw: float
) -> np.ndarray:
    """A tie's light (L): rounded across its width, a fold of shadow under the knot,
    and faint diagonal stripes of silk (``offset``: signed pixels from the midline)."""
    rounded = 8.0 * (1.0 - np.clip(np.abs(offset) / np.maximum(half, 1.0), 0.0, 1.0) ** 2) - 4.0
    dimple = -10.0 * np.exp(-(((rows - knot_end) / (0.02 * fw)) ** 2))
    stripes = 3.0 * np.sin((rows + offset) * (2 * np.pi / max(3.0, 0.07 * fw)))
    return rounded + dimple + stripes


def _suit_opening(regions: Regions, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The suit's front (shirt, tie, lapels) from the shirt's collar down: what it covers
    of bare skin (a V-neck's, an open collar's)."""
    head = regions.head
    fw, fh = head.face_width, head.face_height
    soft = max(1.5, 0.03 * fw)
    across = np.abs(cols - head.chin_x)
    # The collar stands up around the neck's sides and opens in front, under the knot.
    collar = head.chin_y + 0.22 * fh - 0.12 * fh * smoothstep(across, 0.06 * fw, 0.4 * fw)
    return smoothstep(rows - collar, -soft, soft) * (1.0 - smoothstep(across, 0.7 * fw, 0.8 * fw))


def suited(suit: Suit) -> Edit:
    """The suit drawn over the clothes, blended through their soft mask; its shirt and tie
    cover the bare skin of an open neckline below the collar."""
    return in_outfit(
        lambda crop, origin, regions: _suit_layer(crop, origin, regions, suit), _suit_opening
    )


# A heather-blue knit.
SWEATER = (54.0, -4.0, -22.0)


def _neckline(head, cols: np.ndarray) -> np.ndarray:
    """The sweater's round neckline: the row (photo pixels) of its top at each column."""
    across = (cols - head.chin_x) / (0.5 * head.face_width)
    return head.chin_y + 0.22 * head.face_height + 0.28 * head.face_height * (1.0 - across**2)


def _sweater_opening(regions: Regions, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Below the sweater's neckline, across the chest: the bare skin of a V-neck or an
    open collar that the sweater covers."""
    head = regions.head
    soft = max(2.5, 0.04 * head.face_width)
    below = smoothstep(rows - _neckline(head, cols), -soft, soft)
    across = np.abs(cols - head.chin_x) / head.face_width
    return below * (1.0 - smoothstep(across, 0.7, 0.8))


def _casual_tone(crop: np.ndarray, origin: tuple[int, int], regions: Regions) -> np.ndarray:
    """A crew-neck sweater over the clothes: a soft heather-blue knit with a ribbed round
    neckline below the neck (the shirt's collar may show above it), the body's folds kept."""
    head = regions.head
    fw, fh = head.face_width, head.face_height
    rows = np.arange(crop.shape[0], dtype=np.float32)[:, None] + origin[0]
    cols = np.arange(crop.shape[1], dtype=np.float32)[None, :] + origin[1]
    neckline = _neckline(head, cols)
    soft = max(3.0, 0.06 * fw)
    below = smoothstep(rows - neckline, -soft, soft)
    depth = rows - neckline
    band = smoothstep(depth, 0.0, soft) * (1.0 - smoothstep(depth, 0.09 * fh, 0.09 * fh + soft))

    lab = colour.to_lab(crop)
    folds, lighting = _shading(lab[..., 0], origin, regions, 0.03, 8.0)
    ribs = np.sin(cols * (2 * np.pi / max(3.0, 0.03 * fw)))
    knit = _cloth_grain(crop.shape[:2]) * 1.3 + 1.2 * ribs * band
    knit_light = SWEATER[0] + 0.8 * folds + 0.3 * lighting + knit - 7 * band
    sweater = np.empty_like(lab)
    sweater[..., 0] = np.clip(knit_light, 0, 100)
    sweater[..., 1] = SWEATER[1]
    sweater[..., 2] = SWEATER[2] + 0.08 * (knit_light - SWEATER[0])
    return colour.mix(crop, colour.from_lab(sweater), below)


# How much "Improve clothing colors" spreads the clothes' lightness around their middle.
CLOTHES_CONTRAST = 1.35


def _clothing_colours_tone(crop: np.ndarray, origin: tuple[int, int], regions: Regions):
    """Richer colour (vibrance and saturation), more contrast around the clothes' own
    middle tone (a dark suit's folds show, a pale shirt gets depth), a little clarity;
    black stays black and white stays white."""
    vivid = colour.vibrance(colour.saturation(crop, 1.6), 1.6)
    clear = colour.unsharp(vivid, 0.05 * regions.face_box.w, 0.9)
    lab = colour.to_lab(clear)
    worn = regions.outfit[
        origin[0] : origin[0] + crop.shape[0], origin[1] : origin[1] + crop.shape[1]
    ]
    inside = worn > 0.5
    middle = float(np.median(lab[..., 0][inside])) if inside.any() else 50.0
    light = lab[..., 0]
    lab[..., 0] = np.clip(middle + (light - middle) * CLOTHES_CONTRAST, 0.0, 100.0)
    lab[..., 1:] *= 1.15
    return colour.from_lab(lab)


_professional = suited(BUSINESS)
_jacket = suited(FORMAL)
_casual = in_outfit(_casual_tone, _sweater_opening)
_clothing_colours = in_outfit(_clothing_colours_tone)


# --- Face, whole photo, upscale ------------------------------------------------------------

# How much of the skin's own texture the smoothing replaces (1: all of it, a plastic look).
SKIN_SMOOTHING = 0.85


def smooth_skin(photo: Photo) -> np.ndarray:
    """Skin evened as a retoucher does it: cheeks, forehead, nose bridge and chin
    smoothed (an edge-preserving filter, a little of the texture left so it still looks
    like skin), the eyes, brows, nostrils, lips and the jaw line left sharp."""
    regions = photo.regions
    return colour.edit_in_region(
        photo.pixels,
        regions.retouch_skin * SKIN_SMOOTHING,
        lambda crop, origin: colour.smoothed(crop, 1.0, regions.face_box.w),
    )


def upscale(pixels: np.ndarray) -> np.ndarray:
    """A 3840-pixel long side: Lanczos resampling, then an unsharp mask."""
    height, width = pixels.shape[:2]
    factor = presets.UPSCALE_LONG_SIDE / max(height, width)
    size = (max(1, round(width * factor)), max(1, round(height * factor)))
    image = Image.fromarray(pixels).resize(size, Image.Resampling.LANCZOS)
    radius = max(1.0, 1.2 * factor) if factor > 1 else 1.0
    image = image.filter(ImageFilter.UnsharpMask(radius=radius, percent=70, threshold=2))
    return np.asarray(image)


def whole(change: Callable[[np.ndarray], np.ndarray]) -> Edit:
    return lambda photo: change(photo.pixels)


PRESET_EDITS: dict[str, Edit] = {
    presets.REMOVE_BACKGROUND: remove_background,
    presets.BLUR_BACKGROUND: blur_background,
    presets.OUTDOOR_BACKGROUND: outdoor_background,
    presets.STUDIO_BACKGROUND: studio_background,
    presets.HAIR_VOLUME: hair_edit(_volume),
    presets.HAIR_BLONDE: hair_edit(_blonde),
    presets.HAIR_HIGHLIGHTS: hair_edit(_highlights),
    presets.HAIR_POLISHED: hair_edit(_polished),
    presets.PROFESSIONAL_ATTIRE: outfit_edit(_professional),
    presets.CASUAL_OUTFIT: outfit_edit(_casual),
    presets.FORMAL_JACKET: outfit_edit(_jacket),
    presets.CLOTHING_COLORS: outfit_edit(_clothing_colours),
    presets.UPSCALE_PROMPT: whole(upscale),
}

# --- Custom prompts: what each edit a prompt can ask for does -----------------------------
# ``understanding`` reads the prompt (its words, synonyms and what cannot be done).
from prettyscore.editing.engines import understanding  # noqa: E402
from prettyscore.editing.engines.understanding import understood  # noqa: E402

NAMED_EDITS: dict[str, Edit] = {
    **{understanding.PRESET_EDITS[preset]: edit for preset, edit in PRESET_EDITS.items()},
    understanding.SMOOTH_SKIN: smooth_skin,
    understanding.BRIGHTER: whole(lambda p: colour.brightness(p, 1.12, 14.0)),
    understanding.DARKER: whole(lambda p: colour.brightness(p, 0.8)),
    understanding.MORE_CONTRAST: whole(lambda p: colour.contrast(p, 1.3)),
    understanding.LESS_CONTRAST: whole(lambda p: colour.contrast(p, 0.8)),
    understanding.WARMER: whole(lambda p: colour.channel_gains(p, 1.1, 1.02, 0.86)),
    understanding.COOLER: whole(lambda p: colour.channel_gains(p, 0.88, 0.98, 1.1)),
    understanding.MORE_COLOUR: whole(lambda p: colour.saturation(p, 1.45)),
    understanding.LESS_COLOUR: whole(lambda p: colour.saturation(p, 0.55)),
    understanding.BLACK_AND_WHITE: whole(colour.greyscale),
    understanding.VINTAGE: whole(colour.vintage),
    understanding.SHARPER: whole(
        lambda p: colour.unsharp(p, max(1.0, max(p.shape[:2]) / 500), 0.8)
    ),
}


def edits_for(prompt: str) -> list[Edit]:
    """The edits ``prompt`` asks for, in the order they are applied; empty when the
    engine cannot do all of what it asks."""
    preset = presets.preset_named(prompt)
    if preset is not None:
        return [PRESET_EDITS[preset]]
    return [NAMED_EDITS[name] for name in understood(prompt)]


class LocalEditEngine:
    """Edits with OpenCV and Pillow on this machine; no network, no model files."""

    name = "local"

    def edit(self, image: Image.Image, prompt: str) -> Image.Image:
        text = require_prompt(prompt)
        edits = edits_for(text)
        if not edits:
            raise unsupported(messages.EDIT_NOT_SUPPORTED)
        pixels = np.ascontiguousarray(np.asarray(image.convert("RGB")))
        for edit in edits:
            photo = Photo(pixels)
            pixels = edit(photo)
        return Image.fromarray(np.ascontiguousarray(pixels), "RGB")


__all__ = ["NAMED_EDITS", "PRESET_EDITS", "LocalEditEngine", "edits_for", "understood"]
