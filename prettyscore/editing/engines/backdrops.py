"""Generated backgrounds: an outdoor scene (sky, soft bokeh, grass) and a studio backdrop.

Both are drawn on a small canvas and enlarged (they are smooth, so nothing is lost), with
fixed random seeds: the same photo size always gets the same backdrop.
"""

from __future__ import annotations

import cv2
import numpy as np

from prettyscore.editing.engines import colour

CANVAS_LONG_SIDE = 480
BOKEH_SEED = 4
BOKEH_COUNT = 28


def canvas_size(width: int, height: int) -> tuple[int, int]:
    factor = min(1.0, CANVAS_LONG_SIDE / max(width, height))
    return max(8, round(width * factor)), max(8, round(height * factor))


def vertical_gradient(height: int, width: int, stops: list[tuple[float, tuple]]) -> np.ndarray:
    """Colours interpolated down the rows between ``(position 0–1, RGB)`` stops."""
    rows = np.linspace(0.0, 1.0, height, dtype=np.float32)
    positions = [p for p, _ in stops]
    channels = [np.interp(rows, positions, [c[i] for _, c in stops]) for i in range(3)]
    column = np.stack(channels, axis=1).astype(np.float32)
    return np.repeat(column[:, None, :], width, axis=1)


def outdoor(width: int, height: int) -> np.ndarray:
    """A soft, out-of-focus park: blue sky, a line of trees, sunlit bokeh, grass."""
    w, h = canvas_size(width, height)
    scene = vertical_gradient(
        h,
        w,
        [
            (0.0, (118, 172, 226)),
            (0.45, (186, 214, 236)),
            (0.55, (96, 140, 78)),
            (0.7, (120, 168, 86)),
            (1.0, (84, 132, 60)),
        ],
    )
    rng = np.random.default_rng(BOKEH_SEED)
    lights = np.zeros((h, w), np.float32)
    for _ in range(BOKEH_COUNT):
        centre = (int(rng.integers(0, w)), int(rng.integers(0, round(h * 0.65))))
        radius = int(rng.integers(max(2, w // 60), max(3, w // 18)))
        cv2.circle(lights, centre, radius, float(rng.uniform(0.35, 1.0)), -1)
    lights = cv2.GaussianBlur(lights, (0, 0), max(1.0, w / 160))
    scene += lights[..., None] * np.array([70, 64, 40], np.float32)
    scene = cv2.GaussianBlur(scene, (0, 0), max(1.0, w / 120))
    return colour.resized(colour.as_uint8(scene), width, height)


def studio(width: int, height: int) -> np.ndarray:
    """A neutral grey backdrop lit from the front: light behind the head, darker corners."""
    w, h = canvas_size(width, height)
    ys = np.linspace(-1.0, 1.0, h, dtype=np.float32)[:, None]
    xs = np.linspace(-1.0, 1.0, w, dtype=np.float32)[None, :]
    distance = np.sqrt((xs * 0.9) ** 2 + (ys + 0.25) ** 2)
    light = np.clip(1.0 - distance / 1.6, 0.0, 1.0) ** 1.3
    grey = 78.0 + 120.0 * light
    backdrop = grey[..., None] * np.array([1.0, 1.0, 1.03], np.float32)
    return colour.resized(colour.as_uint8(backdrop), width, height)
