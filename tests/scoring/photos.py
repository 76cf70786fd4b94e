"""Real photos for the scoring tests, and the everyday changes people make to them.

scikit-image ships a public-domain NASA portrait (``astronaut``: one real face), a cat
(``chelsea``), a cup of coffee and a man filming in profile (``camera``); matplotlib, a
public-domain US Navy portrait (``grace_hopper``). Every variant below is something a
phone, an editor or a careless upload really does to a photo.
"""

from __future__ import annotations

import functools
import io
from pathlib import Path

import cv2
import matplotlib
import numpy as np
from PIL import Image
from skimage import data


@functools.cache
def _astronaut() -> np.ndarray:
    return data.astronaut()


def astronaut() -> np.ndarray:
    """A fresh copy, so a test cannot change what the next one sees."""
    return _astronaut().copy()


@functools.cache
def _grace_hopper() -> np.ndarray:
    path = Path(matplotlib.get_data_path()) / "sample_data" / "grace_hopper.jpg"
    with Image.open(path) as photo:
        return np.array(photo.convert("RGB"))


def grace_hopper() -> np.ndarray:
    """matplotlib's sample portrait of Grace Hopper (public domain, 512×600), a copy."""
    return _grace_hopper().copy()


def chelsea() -> np.ndarray:
    return data.chelsea()


def coffee() -> np.ndarray:
    return data.coffee()


def camera_man() -> np.ndarray:
    """A man in profile behind a video camera, as RGB."""
    return np.dstack([data.camera()] * 3)


def as_uint8(values: np.ndarray) -> np.ndarray:
    return np.clip(np.round(values), 0, 255).astype(np.uint8)


def brighter(image: np.ndarray, amount: float) -> np.ndarray:
    return as_uint8(image.astype(np.float32) + amount)


def scaled_light(image: np.ndarray, factor: float) -> np.ndarray:
    """Every channel multiplied: an under- or over-exposed copy."""
    return as_uint8(image.astype(np.float32) * factor)


def contrast(image: np.ndarray, factor: float) -> np.ndarray:
    return as_uint8((image.astype(np.float32) - 128.0) * factor + 128.0)


def colour_cast(image: np.ndarray, red: float, green: float, blue: float) -> np.ndarray:
    """A white-balance shift (warm or cool light, a filter)."""
    return as_uint8(image.astype(np.float32) * np.array([red, green, blue], dtype=np.float32))


def greyscale(image: np.ndarray) -> np.ndarray:
    """A black-and-white copy, still three channels."""
    return np.dstack([cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)] * 3)


def mirrored(image: np.ndarray) -> np.ndarray:
    """A selfie camera's mirror image."""
    return np.ascontiguousarray(image[:, ::-1])


def rotated(image: np.ndarray, degrees: float) -> np.ndarray:
    """The photo turned about its centre, as if the camera or the head had been rolled.

    Resampled with Lanczos' kernel, which keeps the photo's sharpness: a bilinear
    rotation softens it (a 75-pixel face's edge blur read 1.24 → 1.42% of its width),
    which is a worse photo, not a roll of the head."""
    height, width = image.shape[:2]
    rotation = cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1.0)
    return cv2.warpAffine(
        image,
        rotation,
        (width, height),
        flags=cv2.INTER_LANCZOS4,
        borderMode=cv2.BORDER_REFLECT,
    )


def symmetric_halves(image: np.ndarray, midline: np.ndarray) -> dict[str, np.ndarray]:
    """The two perfectly symmetric faces a portrait holds: each half of the face with its
    own mirror image in place of the other half.

    ``midline`` are points (x, y) down the middle of the face: the photo is first turned
    so that the line fitted through them is upright (Lanczos' kernel, which keeps its
    sharpness), then each side is mirrored onto the other about that line.
    """
    slope, intercept = np.polyfit(midline[:, 1], midline[:, 0], 1)
    centre_y = float(midline[:, 1].mean())
    centre_x = slope * centre_y + intercept
    height, width = image.shape[:2]
    upright = cv2.warpAffine(
        image,
        cv2.getRotationMatrix2D((centre_x, centre_y), -np.degrees(np.arctan(slope)), 1.0),
        (width, height),
        flags=cv2.INTER_LANCZOS4,
        borderMode=cv2.BORDER_REFLECT,
    )
    axis = round(centre_x)
    reach = min(axis, width - axis)
    left_half, right_half = upright[:, axis - reach : axis], upright[:, axis : axis + reach]
    image_left, image_right = upright.copy(), upright.copy()
    image_left[:, axis : axis + reach] = left_half[:, ::-1]
    image_right[:, axis - reach : axis] = right_half[:, ::-1]
    return {"image's left half": image_left, "image's right half": image_right}


def blurred(image: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(image, (0, 0), sigma)


def jpeg_round_trip(image: np.ndarray, quality: int) -> np.ndarray:
    """Encoded and decoded again with Pillow, as an upload is stored and read back."""
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, "JPEG", quality=quality)
    return np.array(Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"))


def twelve_megapixels(image: np.ndarray) -> np.ndarray:
    """The square portrait enlarged to 3000×3000 and widened to 4000×3000 (12 MP).

    Widened by reflecting the sides, so the face keeps its proportions.
    """
    enlarged = cv2.resize(image, (3000, 3000), interpolation=cv2.INTER_CUBIC)
    return cv2.copyMakeBorder(enlarged, 0, 0, 500, 500, cv2.BORDER_REFLECT)


def side_by_side(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    return np.hstack([left, right])


def with_background_face(relative_size: float) -> np.ndarray:
    """A large portrait in one corner and a smaller copy of the same head in the other.

    The main face is about 300 pixels wide on an 800×800 canvas (the coffee photo as
    background); the second is ``relative_size`` times the first's scale.
    """
    canvas = cv2.resize(coffee(), (800, 800), interpolation=cv2.INTER_AREA)
    head = astronaut()[20:250, 130:320]
    main = cv2.resize(head, None, fx=3, fy=3, interpolation=cv2.INTER_CUBIC)
    canvas[: main.shape[0], : main.shape[1]] = main
    scale = 3 * relative_size
    small = cv2.resize(head, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    canvas[800 - small.shape[0] :, 800 - small.shape[1] :] = small
    return canvas


@functools.cache
def lfw_patches() -> tuple[list[np.ndarray], list[np.ndarray]]:
    """scikit-image's LFW subset: 100 real faces and 100 non-face patches of real photos.

    Each 25×25 grey patch is enlarged to 150 pixels and given a plain margin, so the
    detector (which needs about 30 pixels) can see it. Enlarged this much, a face is
    far too soft to pass the sharpness check: tests score them past that check.
    """
    patches = []
    for patch in data.lfw_subset():
        grey = as_uint8(patch * 255.0)
        enlarged = cv2.resize(grey, (150, 150), interpolation=cv2.INTER_CUBIC)
        patches.append(cv2.copyMakeBorder(enlarged, 60, 60, 60, 60, cv2.BORDER_REPLICATE))
    return patches[:100], patches[100:]


def with_blemishes(image: np.ndarray, count: int = 40, seed: int = 1) -> np.ndarray:
    """The astronaut with small reddish-brown spots dotted over both cheeks."""
    spotted = image.copy()
    rng = np.random.default_rng(seed)
    placed = 0
    while placed < count:
        x, y = int(rng.uniform(185, 265)), int(rng.uniform(115, 150))
        if 212 < x < 238:  # keep the nose clear: spots on the cheeks only
            continue
        cv2.circle(spotted, (x, y), 2, (150, 90, 80), -1)
        placed += 1
    return spotted
