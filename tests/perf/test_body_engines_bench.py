"""Benchmark: the feet, hands and pet analysis of a 2560×1920 photo, per kind.

Prints figures; asserts nothing about time (the machine's load decides those). Target:
well under 150 ms per analysis, the documents' deliberate wait excluded. Run it alone
with ``make bench`` or ``.venv/bin/python -m pytest tests/perf -s``.

2560 pixels is the long side the upload flow stores a photo at, and so the largest the
analysis ever sees. The photos: drawn feet at that size, a real open hand (OpenCV's
640×480 photo, ``body_photos.REAL_HANDS``) and scikit-image's cat cut to 4:3, both
enlarged; each is JPEG-encoded and decoded as the upload flow does
(``prettyscore.core.images``) before the analysis. The hands analysis includes finding
the hand with MediaPipe Hands, twice (the photo and its mirror image). Besides the wall
time, the process's CPU time (all of OpenCV's threads together) is printed: on a
machine others are busy on, it says what the analysis itself costs.
"""

from __future__ import annotations

import time

import cv2
import numpy as np
from PIL import Image

from prettyscore.analysis import kinds
from prettyscore.analysis.engines.body import engine_for
from prettyscore.core import images
from tests.fixtures import body_photos, photos
from tests.perf.test_bench_analysis import summary, timed

RUNS = 20
SIZE = (2560, 1920)


def photo_for(kind: str) -> np.ndarray:
    if kind == kinds.FEET:
        return body_photos.feet(body_photos.Scene(width=SIZE[0], height=SIZE[1]))
    if kind == kinds.HANDS:
        hand = body_photos.real_hand("adult-palm")
        return cv2.resize(hand, SIZE, interpolation=cv2.INTER_CUBIC)
    four_by_three = photos.chelsea()[:, 25:425]
    return cv2.resize(four_by_three, SIZE, interpolation=cv2.INTER_CUBIC)


def as_uploaded(photo: np.ndarray) -> np.ndarray:
    """Stored as a JPEG and decoded again, as the upload flow hands it to the engine."""
    stored = images.encode_jpeg(Image.fromarray(photo), quality=90)
    return images.to_array(images.decode_upload(stored))


def test_bench_body_analysis_of_a_2560_by_1920_photo():
    lines = [
        "",
        f"[bench] feet, hands and pet analysis of a {SIZE[0]}×{SIZE[1]} photo, {RUNS} runs "
        f"each (p95 by linear interpolation; OpenCV threads: {cv2.getNumThreads()}):",
    ]
    for kind in kinds.BODY_KINDS:
        pixels = as_uploaded(photo_for(kind))
        assert pixels.shape == (SIZE[1], SIZE[0], 3)
        engine = engine_for(kind)
        first = engine.analyse(pixels)  # warm-up: loads this thread's cascades and models
        millis, cpu_millis = [], []
        for _ in range(RUNS):
            cpu_started = time.process_time()
            elapsed, result = timed(lambda engine=engine, pixels=pixels: engine.analyse(pixels))
            cpu_millis.append((time.process_time() - cpu_started) * 1000.0)
            millis.append(elapsed)
            assert result == first
        label = kinds.label_for(kind, first.score).label
        lines.append(summary(f"{kind} analysis, wall time", millis))
        lines.append(summary(f"{kind} analysis, CPU time", cpu_millis))
        lines.append(f"    score {first.score} ({label}); breakdown {first.breakdown}")
        assert 1.0 <= first.score <= 10.0
    print("\n".join(lines))
