"""The face descriptor: 128 numbers that describe a person's face, not the photo.

dlib's ResNet face descriptor (``dlib_face_recognition_resnet_model_v1.dat``, released
into the public domain by its author, shipped in the CC0 package
``face_recognition_models``) was trained to place photos of one person close together
and photos of different people far apart, whatever the light, the camera or the
expression. The score's learned term is a small linear model on it
(``face_score``), so the score follows the person rather than the photo.

The network reads a 150 × 150 chip of the face, aligned on five points: the corners of
both eyes and the base of the nose. We take them from MediaPipe's landmarks, which the
analysis already has (no second face detector, so every face the checks accept gets a
descriptor); measured on the 210 faces of the test sets, these five landmarks fall within
1–1.6% of the eye distance of where dlib's own five-point model puts them. The same
package holds a 68-point model whose training data excludes commercial use: it is
never loaded.

Like the rest of the analysis the descriptor sees brightness only (the chip is grey,
the same in its three channels), so the colour of the skin or of the light cannot enter
it; its levels are stretched over the face's own range, so a dim photo reads as a
well-exposed one. The same pixels always give the same numbers (no jitter).
"""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np

from prettyscore.analysis.engines import face_landmarks

# dlib's five points (its order: the image-right eye's outer and inner corner, the
# image-left eye's outer and inner corner, the base of the nose) as MediaPipe indices:
# the landmark nearest each on the rated faces.
FIVE_POINTS = (263, 382, 33, 155, 2)
CHIP_SIZE = 150
CHIP_PADDING = 0.25
# Before the chip is cut, a large face is reduced so that its eyes' outer corners lie
# this many pixels apart (the chip's own distance is about 60): the chip is then
# identical in what it shows and the 12-megapixel photo is not resampled whole.
WORKING_EYE_DISTANCE = 120.0
# The chip's levels are stretched between these percentiles of its middle (the face).
LEVEL_PERCENTILES = (1.0, 99.0)
LENGTH = 128

MODEL_FILE = "dlib_face_recognition_resnet_model_v1.dat"

_local = threading.local()


def model_path() -> Path:
    import face_recognition_models

    return Path(face_recognition_models.__file__).parent / "models" / MODEL_FILE


def _network():
    """This thread's network (dlib's is not shared between threads), loaded on first use."""
    network = getattr(_local, "network", None)
    if network is None:
        import dlib

        network = dlib.face_recognition_model_v1(str(model_path()))
        _local.network = network
    return network


def descriptor(gray: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The face's 128 numbers from the photo's luminance and its MediaPipe landmarks
    (photo pixels)."""
    chip = face_chip(gray, points)
    three = np.ascontiguousarray(np.repeat(chip[:, :, None], 3, axis=2))
    return np.asarray(_network().compute_face_descriptor(three, 0), dtype=np.float64)


def face_chip(gray: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The aligned 150 × 150 grey chip the network reads, its levels stretched."""
    import dlib

    five = points[list(FIVE_POINTS), :2].astype(np.float64)
    region, origin, scale = working_region(gray, five)
    # Pixel centres: a resize maps x to (x + 0.5) * scale - 0.5.
    local = (five - origin + 0.5) * scale - 0.5
    x0, y0 = local.min(axis=0)
    x1, y1 = local.max(axis=0)
    shape = dlib.full_object_detection(
        dlib.rectangle(int(x0), int(y0), int(x1), int(y1)),
        [dlib.point(int(round(x)), int(round(y))) for x, y in local],
    )
    three = np.ascontiguousarray(np.repeat(region[:, :, None], 3, axis=2))
    chip = np.asarray(dlib.get_face_chip(three, shape, size=CHIP_SIZE, padding=CHIP_PADDING))
    return levelled(chip[:, :, 0])


def working_region(gray: np.ndarray, five: np.ndarray):
    """The part of the photo around the face, reduced when the face is large:
    (pixels, their origin in the photo, the reduction's scale per axis (x, y)).

    Whole blocks of pixels are averaged first, which OpenCV does several times faster
    than an arbitrary scale (a 12-megapixel photo's face: 13 ms the other way), then
    the rest; the scale is read from the sizes, so the points land where the pixels did.
    """
    eye_distance = float(np.linalg.norm(five[0] - five[2]))
    margin = 1.5 * eye_distance
    height, width = gray.shape
    x0 = int(max(0, five[:, 0].min() - margin))
    y0 = int(max(0, five[:, 1].min() - margin))
    x1 = int(min(width, five[:, 0].max() + margin))
    y1 = int(min(height, five[:, 1].max() + 1.3 * margin))
    region = gray[y0:y1, x0:x1]
    origin = np.array([x0, y0], np.float64)
    wanted = min(1.0, WORKING_EYE_DISTANCE / max(eye_distance, 1.0))
    if wanted >= 1.0:
        return np.ascontiguousarray(region), origin, np.ones(2)
    step = int(1.0 / wanted)
    if step >= 2:
        region = face_landmarks.block_averaged(region, step)
        origin_scale = 1.0 / step
    else:
        origin_scale = 1.0
    size = (max(1, round((x1 - x0) * wanted)), max(1, round((y1 - y0) * wanted)))
    before = np.array([region.shape[1], region.shape[0]], np.float64)
    if (region.shape[1], region.shape[0]) != size:
        region = cv2.resize(region, size, interpolation=cv2.INTER_AREA)
    scale = origin_scale * np.array(size, np.float64) / before
    return np.ascontiguousarray(region), origin, scale


def levelled(chip: np.ndarray) -> np.ndarray:
    """The chip's levels stretched over its middle's range: the face fills 0–255."""
    side = chip.shape[0]
    middle = chip[side // 5 : side * 4 // 5, side // 4 : side * 3 // 4]
    low, high = np.percentile(middle, LEVEL_PERCENTILES)
    if high - low < 1.0:
        return chip
    stretched = (chip.astype(np.float32) - low) * (255.0 / (high - low))
    return np.clip(stretched, 0, 255).astype(np.uint8)
