"""The editor's sliders applied on the server, with the meaning of the CSS filter functions.

The browser previews ``filter: brightness() contrast() saturate() blur()`` on the photo
while the sliders move; the server applies the same four functions, in the same order,
to the stored pixels, so the saved or downloaded file looks like the preview:

- brightness(b): every channel multiplied by b;
- contrast(c): every channel moved away from (or towards) mid grey: (v - 0.5)·c + 0.5;
- saturate(s): the Filter Effects colour matrix (Rec. 709 luminance weights), s = 0 leaves
  the grey level of each pixel, s > 1 strengthens colours;
- blur(r): a Gaussian whose standard deviation is r pixels of the photo.

Channels are 0–1 sRGB values, clamped after each step. Values arrive from the browser,
so ``Adjustments.clamped`` brings them into the sliders' ranges before anything is done.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

PERCENT_MIN, PERCENT_MAX, PERCENT_DEFAULT = 0, 200, 100
BLUR_MIN, BLUR_MAX, BLUR_STEP, BLUR_DEFAULT = 0.0, 10.0, 0.1, 0.0

# Luminance weights of the CSS saturate() matrix (Filter Effects Module, feColorMatrix).
_LUMA = np.array([0.213, 0.715, 0.072], dtype=np.float32)


def _number(value: Any, default: float) -> float:
    """A finite float from whatever the browser sent, else ``default``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return number if math.isfinite(number) else default


def _within(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


@dataclass(frozen=True)
class Adjustments:
    """Slider values: brightness, contrast and saturation in percent, blur in pixels."""

    brightness: float = PERCENT_DEFAULT
    contrast: float = PERCENT_DEFAULT
    saturation: float = PERCENT_DEFAULT
    blur: float = BLUR_DEFAULT

    @classmethod
    def clamped(cls, values: dict | None) -> Adjustments:
        """The sliders' values from an untrusted mapping, brought into their ranges.

        Missing or unreadable values take their defaults; blur is rounded to its step.
        """
        values = values or {}

        def percent(name: str) -> float:
            number = _number(values.get(name), PERCENT_DEFAULT)
            return _within(round(number), PERCENT_MIN, PERCENT_MAX)

        blur = _within(_number(values.get("blur"), BLUR_DEFAULT), BLUR_MIN, BLUR_MAX)
        return cls(
            brightness=percent("brightness"),
            contrast=percent("contrast"),
            saturation=percent("saturation"),
            blur=round(round(blur / BLUR_STEP) * BLUR_STEP, 1),
        )

    @property
    def is_identity(self) -> bool:
        """True when the sliders are at their defaults: the photo stays as it is."""
        return self == Adjustments()

    def describe(self) -> str:
        """A short account of the change, e.g. for the photo's edit history."""
        parts = [
            f"{name} {value:g}%"
            for name, value in (
                ("brightness", self.brightness),
                ("contrast", self.contrast),
                ("saturation", self.saturation),
            )
            if value != PERCENT_DEFAULT
        ]
        if self.blur:
            parts.append(f"blur {self.blur:g}px")
        return "Adjusted " + ", ".join(parts) if parts else "No adjustments"


def apply_adjustments(pixels: np.ndarray, adjustments: Adjustments) -> np.ndarray:
    """``pixels`` (H×W×3 RGB uint8) with the four filters applied in the CSS order."""
    if adjustments.is_identity:
        return pixels.copy()
    values = pixels.astype(np.float32) * np.float32(1 / 255)
    values = brightness(values, adjustments.brightness / 100)
    values = contrast(values, adjustments.contrast / 100)
    values = saturate(values, adjustments.saturation / 100)
    result = np.rint(values * 255).astype(np.uint8)
    return gaussian_blur(result, adjustments.blur)


def brightness(values: np.ndarray, amount: float) -> np.ndarray:
    """CSS brightness(): a linear scale of every channel."""
    return np.clip(values * np.float32(amount), 0, 1)


def contrast(values: np.ndarray, amount: float) -> np.ndarray:
    """CSS contrast(): slope ``amount`` around mid grey (0 gives uniform grey)."""
    return np.clip((values - 0.5) * np.float32(amount) + 0.5, 0, 1)


def saturate(values: np.ndarray, amount: float) -> np.ndarray:
    """CSS saturate(): the Filter Effects matrix, mixing each pixel with its grey level."""
    grey = values @ _LUMA
    return np.clip(grey[..., None] + (values - grey[..., None]) * np.float32(amount), 0, 1)


def gaussian_blur(pixels: np.ndarray, sigma: float) -> np.ndarray:
    """CSS blur(): a Gaussian of standard deviation ``sigma`` pixels (0 changes nothing).

    The kernel reaches 3σ on each side, like browsers' own blur; edges are extended.
    """
    if sigma <= 0:
        return pixels.copy()
    size = 2 * math.ceil(3 * sigma) + 1
    return cv2.GaussianBlur(
        pixels, (size, size), sigmaX=sigma, sigmaY=sigma, borderType=cv2.BORDER_REPLICATE
    )
