"""The ``local`` edit engine: real edits with image processing, offline and deterministic.

Each preset of document 000 §9 changes its own part of the photo (``masks.Regions``
finds the subject, hair, outfit and face): the background presets replace or blur what
is not the subject, the hair presets work above and around the face, the outfit presets
below the chin. The upscale preset enlarges to a 3840-pixel long side (Lanczos, then an
unsharp mask).

Custom prompts are read for keywords (``KEYWORD_EDITS``); several combine, applied in
a fixed order whatever the order of the words. A prompt with none is refused with
``messages.EDIT_NOT_SUPPORTED`` (code ``unsupported_edit``: no free edit is used).

Same photo and prompt, same pixels: GrabCut's RNG is seeded and generated textures use
fixed seeds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

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


def hair_edit(change: Callable[[np.ndarray, tuple[int, int], Regions], np.ndarray]) -> Edit:
    def run(photo: Photo) -> np.ndarray:
        regions = photo.regions
        return colour.edit_in_region(
            photo.pixels, regions.hair, lambda crop, origin: change(crop, origin, regions)
        )

    return run


def _volume(crop: np.ndarray, origin: tuple[int, int], regions: Regions) -> np.ndarray:
    """Dodge and burn: the hair's own light and shade deepened, a little lift overall."""
    lab = colour.to_lab(crop)
    light = lab[..., 0]
    base = colour.gaussian(light, 0.06 * regions.face_box.w)
    lab[..., 0] = np.clip(base + (light - base) * 2.0 + 4.0, 0, 100)
    lab[..., 1:] *= 1.1
    return colour.from_lab(lab)


def _blonde(crop: np.ndarray, origin: tuple[int, int], regions: Regions) -> np.ndarray:
    """Lightness lifted to a golden-blonde level, texture kept; colour moved to gold."""
    lab = colour.to_lab(crop)
    light = lab[..., 0]
    mask = regions.hair[
        origin[0] : origin[0] + crop.shape[0], origin[1] : origin[1] + crop.shape[1]
    ]
    inside = mask > 0.5
    mean = float(light[inside].mean()) if inside.any() else float(light.mean())
    lab[..., 0] = np.clip(68.0 + (light - mean) * 1.2, 20, 96)
    lab[..., 1] = 6.0 + lab[..., 1] * 0.25
    lab[..., 2] = 34.0 + lab[..., 2] * 0.25
    return colour.from_lab(lab)


def _streaks(crop_shape: tuple[int, int], origin: tuple[int, int], regions: Regions):
    """Thin, wavy, roughly vertical strands (0–1), sized by the face, not the photo."""
    box = regions.face_box
    rows = (np.arange(crop_shape[0], dtype=np.float32)[:, None] + origin[0] - box.y) / box.h
    cols = (np.arange(crop_shape[1], dtype=np.float32)[None, :] + origin[1] - box.x) / box.w
    phase = cols * 7.0 + 0.25 * np.sin(rows * 5.0) + 0.6 * np.sin(cols * 2.3 + 1.0)
    strands = (0.5 + 0.5 * np.sin(2 * np.pi * phase)) ** 4
    variation = 0.6 + 0.4 * np.sin(2 * np.pi * (cols * 2.9 + 0.4))
    return strands * variation


def _highlights(crop: np.ndarray, origin: tuple[int, int], regions: Regions) -> np.ndarray:
    lab = colour.to_lab(crop)
    streaks = _streaks(crop.shape[:2], origin, regions)
    lab[..., 0] = np.clip(lab[..., 0] + 36.0 * streaks, 0, 100)
    lab[..., 2] += 14.0 * streaks
    lab[..., 1] += 3.0 * streaks
    return colour.from_lab(lab)


def _polished(crop: np.ndarray, origin: tuple[int, int], regions: Regions) -> np.ndarray:
    """Smoothed flyaways and frizz, and a band of shine across the crown."""
    box = regions.face_box
    smooth = colour.smoothed(crop, 1.0, box.w)
    lab = colour.to_lab(smooth)
    rows = np.arange(crop.shape[0], dtype=np.float32)[:, None] + origin[0]
    shine = np.exp(-(((rows - (box.y - 0.3 * box.h)) / (0.22 * box.h)) ** 2))
    lab[..., 0] = np.clip(lab[..., 0] * 1.06 + 14.0 * shine, 0, 100)
    lab[..., 1:] *= 1.1
    return colour.from_lab(lab)


# --- Outfit ------------------------------------------------------------------------------


def outfit_edit(change: Callable[[np.ndarray, tuple[int, int], Regions], np.ndarray]) -> Edit:
    def run(photo: Photo) -> np.ndarray:
        regions = photo.regions
        return colour.edit_in_region(
            photo.pixels, regions.outfit, lambda crop, origin: change(crop, origin, regions)
        )

    return run


def _professional(crop: np.ndarray, origin: tuple[int, int], regions: Regions) -> np.ndarray:
    """Muted and darkened towards navy and charcoal, the fabric's folds kept."""
    lab = colour.to_lab(crop)
    lab[..., 0] = lab[..., 0] * 0.45 + 6.0
    lab[..., 1] = lab[..., 1] * 0.2 + 1.0
    lab[..., 2] = lab[..., 2] * 0.2 - 14.0
    return colour.from_lab(lab)


def _casual(crop: np.ndarray, origin: tuple[int, int], regions: Regions) -> np.ndarray:
    """Warmer, lighter and more colourful."""
    lab = colour.to_lab(crop)
    lab[..., 0] = np.clip(lab[..., 0] * 0.92 + 9.0, 0, 100)
    lab[..., 1] = lab[..., 1] * 1.4 + 7.0
    lab[..., 2] = lab[..., 2] * 1.4 + 22.0
    return colour.from_lab(lab)


def _jacket(crop: np.ndarray, origin: tuple[int, int], regions: Regions) -> np.ndarray:
    """Dark charcoal sides with a V opening over a lighter shirt front."""
    box = regions.face_box
    rows = np.arange(crop.shape[0], dtype=np.float32)[:, None] + origin[0]
    cols = np.arange(crop.shape[1], dtype=np.float32)[None, :] + origin[1]
    chin = box.y + 1.2 * box.h
    opening = 0.12 * box.w + 0.3 * np.clip(rows - chin, 0, None)
    opening = np.minimum(opening, 0.45 * box.w)
    sides = smoothstep(np.abs(cols - box.centre_x) - opening, 0.0, 0.06 * box.w)
    lab = colour.to_lab(crop)
    light = lab[..., 0]
    jacket = np.empty_like(lab)
    jacket[..., 0] = 20.0 + (light - float(light.mean())) * 0.35
    jacket[..., 1] = lab[..., 1] * 0.15
    jacket[..., 2] = lab[..., 2] * 0.15 - 4.0
    shirt = lab.copy()
    shirt[..., 0] = np.clip(light * 0.85 + 18.0, 0, 100)
    shirt[..., 1:] *= 0.3
    mixed = shirt + (jacket - shirt) * sides[..., None]
    return colour.from_lab(mixed)


def _clothing_colours(crop: np.ndarray, origin: tuple[int, int], regions: Regions):
    """Richer colour (vibrance) and a little clarity."""
    vivid = colour.vibrance(colour.saturation(crop, 1.35), 0.9)
    clear = colour.unsharp(vivid, 0.05 * regions.face_box.w, 0.6)
    return colour.contrast(clear, 1.15)


# --- Face, whole photo, upscale ------------------------------------------------------------


def smooth_skin(photo: Photo) -> np.ndarray:
    regions = photo.regions
    return colour.edit_in_region(
        photo.pixels,
        regions.face * 0.9,
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
