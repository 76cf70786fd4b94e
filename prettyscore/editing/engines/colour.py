"""Pixel operations on RGB ``uint8`` arrays, and blending an edit through a soft mask.

Colour work happens in OpenCV's float Lab (L 0–100, a and b about −127…127), where
lightness and colour can be moved independently.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

Region = tuple[slice, slice]


def as_uint8(values: np.ndarray) -> np.ndarray:
    """Rounded and saturated to 0–255 (OpenCV's saturating conversion: fast on big photos)."""
    floats = np.maximum(values, 0, dtype=np.float32)
    if floats.ndim == 3 and floats.shape[2] > 4:
        return np.minimum(np.rint(floats), 255).astype(np.uint8)
    return cv2.convertScaleAbs(np.ascontiguousarray(floats))


def to_lab(rgb: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(rgb.astype(np.float32) * np.float32(1 / 255), cv2.COLOR_RGB2LAB)


def from_lab(lab: np.ndarray) -> np.ndarray:
    rgb = cv2.cvtColor(lab.astype(np.float32), cv2.COLOR_LAB2RGB)
    return as_uint8(rgb * 255.0)


def mix(base: np.ndarray, edited: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``edited`` where ``mask`` is 1, ``base`` where it is 0, blended between."""
    weight = np.ascontiguousarray(mask, dtype=np.float32)
    return cv2.blendLinear(
        np.ascontiguousarray(edited), np.ascontiguousarray(base), weight, 1.0 - weight
    )


def bounding_region(mask: np.ndarray, threshold: float = 0.004) -> Region | None:
    """The smallest rectangle holding every pixel of ``mask`` above ``threshold``."""
    rows = np.flatnonzero((mask > threshold).any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero((mask[rows[0] : rows[-1] + 1] > threshold).any(axis=0))
    return slice(int(rows[0]), int(rows[-1]) + 1), slice(int(cols[0]), int(cols[-1]) + 1)


def edit_in_region(
    image: np.ndarray,
    mask: np.ndarray,
    edit: Callable[[np.ndarray, tuple[int, int]], np.ndarray],
) -> np.ndarray:
    """``image`` with ``edit`` applied through ``mask``; only the mask's box is processed.

    ``edit(crop, (top, left))`` gets the crop and its position in the photo.
    """
    region = bounding_region(mask)
    if region is None:
        return image.copy()
    crop = image[region]
    edited = edit(crop, (region[0].start, region[1].start))
    result = image.copy()
    result[region] = mix(crop, edited, mask[region])
    return result


def remapped(image: np.ndarray, map_x: np.ndarray, map_y: np.ndarray) -> np.ndarray:
    """``image`` sampled (bilinear) at ``(map_x, map_y)``; edges repeat outside it."""
    return cv2.remap(
        np.ascontiguousarray(image),
        np.ascontiguousarray(map_x, dtype=np.float32),
        np.ascontiguousarray(map_y, dtype=np.float32),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def scale_max(image: np.ndarray, long_side: int) -> np.ndarray:
    factor = long_side / max(image.shape[:2])
    if factor >= 1.0:
        return image
    size = (max(1, round(image.shape[1] * factor)), max(1, round(image.shape[0] * factor)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def resized(image: np.ndarray, width: int, height: int) -> np.ndarray:
    if image.shape[1] == width and image.shape[0] == height:
        return image
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_CUBIC)


def gaussian(image: np.ndarray, sigma: float) -> np.ndarray:
    """A Gaussian blur; a wide one runs on a reduced copy (same look, far less work)."""
    if sigma < 0.3:
        return image.copy()
    height, width = image.shape[:2]
    if sigma <= 8:
        return cv2.GaussianBlur(image, (0, 0), sigma)
    factor = 4.0 / sigma
    small = cv2.resize(
        image,
        (max(1, round(width * factor)), max(1, round(height * factor))),
        interpolation=cv2.INTER_AREA,
    )
    return resized(cv2.GaussianBlur(small, (0, 0), 4.0), width, height)


def smoothed(image: np.ndarray, strength: float, reference: float) -> np.ndarray:
    """An edge-preserving (bilateral) smoothing at a scale relative to ``reference`` px.

    Big photos are smoothed on a copy where ``reference`` is about 160 pixels, then
    enlarged: the result looks the same at every resolution and costs the same.
    """
    height, width = image.shape[:2]
    factor = min(1.0, 160.0 / max(reference, 1.0))
    small = image
    if factor < 1.0:
        size = (max(1, round(width * factor)), max(1, round(height * factor)))
        small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    result = cv2.bilateralFilter(small, 9, 25 + 50 * strength, 3 + 5 * strength)
    return resized(result, width, height)


def despeckled(light: np.ndarray, reference: float, width: float) -> np.ndarray:
    """``light`` (0–100) without details thinner than ``width`` × ``reference`` pixels (a
    median: a badge's rim, a cord), broad shapes kept. Worked on a copy where
    ``reference`` is about 160 pixels, so it costs the same at every resolution."""
    height, width_px = light.shape[:2]
    factor = min(1.0, 160.0 / max(reference, 1.0))
    size = (max(1, round(width_px * factor)), max(1, round(height * factor)))
    small = cv2.resize(light, size, interpolation=cv2.INTER_AREA) if factor < 1.0 else light
    levels = np.clip(small * 2.55, 0, 255).astype(np.uint8)
    kernel = max(3, int(width * reference * factor) | 1)
    median = cv2.medianBlur(levels, kernel).astype(np.float32) / np.float32(2.55)
    return resized(median, width_px, height)


def unsharp(image: np.ndarray, sigma: float, amount: float) -> np.ndarray:
    base = image.astype(np.float32)
    return as_uint8(base + (base - gaussian(image, sigma).astype(np.float32)) * amount)


def brightness(image: np.ndarray, factor: float, offset: float = 0.0) -> np.ndarray:
    return as_uint8(image.astype(np.float32) * factor + offset)


def contrast(image: np.ndarray, factor: float) -> np.ndarray:
    mean = float(image.mean())
    return as_uint8((image.astype(np.float32) - mean) * factor + mean)


def channel_gains(image: np.ndarray, red: float, green: float, blue: float) -> np.ndarray:
    return as_uint8(image.astype(np.float32) * np.array([red, green, blue], np.float32))


def greyscale(image: np.ndarray) -> np.ndarray:
    return np.repeat(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)[..., None], 3, axis=2)


def saturation(image: np.ndarray, factor: float) -> np.ndarray:
    """Colour pushed away from (or towards) its grey, keeping luminance."""
    grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY).astype(np.float32)[..., None]
    return as_uint8(grey + (image.astype(np.float32) - grey) * factor)


def vibrance(image: np.ndarray, amount: float) -> np.ndarray:
    """Saturation raised more where colour is weak than where it is already strong."""
    lab = to_lab(image)
    chroma = np.sqrt(lab[..., 1] ** 2 + lab[..., 2] ** 2)
    gain = 1.0 + amount * (1.0 - np.clip(chroma / 60.0, 0.0, 1.0))
    lab[..., 1] *= gain
    lab[..., 2] *= gain
    return from_lab(lab)


SEPIA = np.array([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]], np.float32)


def vintage(image: np.ndarray) -> np.ndarray:
    """Sepia-toned, slightly faded, with a soft vignette."""
    toned = cv2.transform(image.astype(np.float32), SEPIA)
    mixed = 0.8 * toned + 0.2 * image.astype(np.float32)
    faded = mixed * 0.88 + 18.0
    height, width = image.shape[:2]
    ys = np.linspace(-1.0, 1.0, height, dtype=np.float32)[:, None]
    xs = np.linspace(-1.0, 1.0, width, dtype=np.float32)[None, :]
    vignette = 1.0 - 0.28 * np.clip(xs * xs + ys * ys - 0.3, 0.0, None)
    return as_uint8(faded * vignette[..., None])
