"""Benchmark: the face analysis of a 12-megapixel JPEG.

Prints figures; asserts nothing about time (the machine's load decides those). Target:
p95 of the analysis ≤ 75 ms on a 2-core machine, the face descriptor included, decode
and the documents' deliberate 3-second wait excluded (the earlier Haar-cascade analysis
took 149 ms). Also printed:
the memory one analysis takes, the memory each photo-work thread's own copy of the
models costs, and the engine's cold start (importing MediaPipe, building the models).
Run it alone with ``make bench`` or ``.venv/bin/python -m pytest tests/perf -s``.

The photo is scikit-image's astronaut enlarged to 4000×3000 and JPEG-encoded; it is
decoded as the upload flow does (``prettyscore.core.images``: Pillow, EXIF orientation,
sRGB, then an RGB array), once at full size and once with the JPEG decoder's reduced-
size ("draft") mode that ``decode_upload(max_side=...)`` offers.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from prettyscore.analysis.engines import face_descriptor, face_mesh
from prettyscore.analysis.engines.face_mesh import FaceMeshEngine
from prettyscore.core import images
from tests.fixtures import photos

RUNS = 30
DRAFT_RUNS = 10
DRAFT_MAX_SIDE = 2000


def twelve_megapixel_jpeg() -> bytes:
    big = Image.fromarray(photos.twelve_megapixels(photos.astronaut()))
    return images.encode_jpeg(big, quality=90)


def decode(data: bytes, max_side: int | None = None) -> np.ndarray:
    """As the upload flow decodes a photo for the analysis."""
    return images.to_array(images.decode_upload(data, max_side=max_side))


def timed(work: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    result = work()
    return (time.perf_counter() - started) * 1000.0, result


def summary(label: str, millis: list[float]) -> str:
    median, p95 = np.percentile(millis, [50, 95])
    return f"  {label:<44} median {median:7.1f} ms   p95 {p95:7.1f} ms"


# Run in a fresh interpreter, so that the memory one analysis needs is not hidden by
# memory an earlier run already took from the system.
MEMORY_PROBE = """
import gc, pathlib, sys, threading, time, tracemalloc
started = time.perf_counter()
import numpy as np
from prettyscore.core import images
from prettyscore.analysis.engines import face_descriptor, face_mesh
from prettyscore.analysis.engines.face_mesh import FaceMeshEngine
imported = time.perf_counter()

def kib(field):
    for line in pathlib.Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])

pixels = images.to_array(images.decode_upload(pathlib.Path(sys.argv[1]).read_bytes()))
engine = FaceMeshEngine()
decoded = time.perf_counter()
engine.analyse(pixels)  # the first analysis builds this thread's models
first = time.perf_counter() - decoded
gc.collect()
before = kib("VmRSS")
pathlib.Path("/proc/self/clear_refs").write_text("5")
engine.analyse(pixels)
peak = kib("VmHWM")
gc.collect()
tracemalloc.start()
engine.analyse(pixels)
traced = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
gc.collect()
one_thread = kib("VmRSS")
worker = threading.Thread(target=engine.analyse, args=(pixels,))
worker.start()
worker.join()
gc.collect()
per_thread = kib("VmRSS") - one_thread
print(before, peak, traced, per_thread, round((imported - started) * 1000), round(first * 1000))
"""


def measure_memory(jpeg: Path) -> list[str]:
    """Memory and cold start of the analysis, measured in a fresh process.

    Resident memory: the kernel's high-water mark (reset just before) minus what the
    process held with the photo decoded and the models loaded. Allocated: the peak of
    Python and numpy allocations (tracemalloc). Per thread: what the process grows by
    when a second thread analyses a photo (it builds its own copy of the models).
    """
    if not Path("/proc/self/clear_refs").exists():
        return ["  memory: not measured (needs Linux /proc)"]
    probe = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(jpeg)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    before_kib, peak_kib, traced, per_thread_kib, import_ms, first_ms = map(
        int, probe.stdout.split()
    )
    return [
        f"  peak memory of one analysis: +{(peak_kib - before_kib) / 1024:.1f} MB resident "
        f"(over {before_kib / 1024:.0f} MB with the photo decoded and the models loaded), "
        f"{traced / 2**20:.1f} MB peak allocated by Python/numpy (tracemalloc)",
        f"  memory per photo-work thread (its own models): +{per_thread_kib / 1024:.1f} MB",
        f"  cold start: import {import_ms} ms, first analysis (builds the models) {first_ms} ms",
    ]


@pytest.fixture
def one_opencv_thread():
    """As on the app's photo-work threads (``core.workers``): OpenCV on one core."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    yield
    cv2.setNumThreads(threads)


def test_bench_face_analysis_of_a_12_megapixel_jpeg(tmp_path, one_opencv_thread):
    data = twelve_megapixel_jpeg()
    jpeg = tmp_path / "twelve-megapixels.jpg"
    jpeg.write_bytes(data)
    engine = FaceMeshEngine()
    full = decode(data)
    assert full.shape == (3000, 4000, 3)
    first = engine.analyse(full)  # warm-up: builds this thread's models

    decode_ms, analyse_ms, draft_decode_ms, draft_analyse_ms = [], [], [], []
    for _ in range(RUNS):
        millis, pixels = timed(lambda: decode(data))
        decode_ms.append(millis)
        millis, result = timed(lambda pixels=pixels: engine.analyse(pixels))
        analyse_ms.append(millis)
        assert result == first
    for _ in range(DRAFT_RUNS):
        millis, small = timed(lambda: decode(data, max_side=DRAFT_MAX_SIDE))
        draft_decode_ms.append(millis)
        millis, draft_result = timed(lambda small=small: engine.analyse(small))
        draft_analyse_ms.append(millis)

    measured = engine.measure(full)
    gray = face_mesh.luminance(full)
    descriptor_ms = [
        timed(lambda: face_descriptor.descriptor(gray, measured.points))[0] for _ in range(RUNS)
    ]
    total_ms = [d + a for d, a in zip(decode_ms, analyse_ms, strict=True)]
    draft_total_ms = [d + a for d, a in zip(draft_decode_ms, draft_analyse_ms, strict=True)]
    lines = [
        "",
        f"[bench] face analysis of a 12 MP JPEG ({full.shape[1]}×{full.shape[0]}, "
        f"{len(data) / 2**20:.1f} MB), {RUNS} runs ({DRAFT_RUNS} for the draft; "
        "p95 by linear interpolation):",
        summary("decode at full size (Pillow)", decode_ms),
        summary("analysis, decode excluded", analyse_ms),
        summary("  of which the face descriptor (dlib)", descriptor_ms),
        summary("decode + analysis", total_ms),
        summary(f"draft decode (max side {DRAFT_MAX_SIDE})", draft_decode_ms),
        summary(f"analysis of the {small.shape[1]}×{small.shape[0]} draft", draft_analyse_ms),
        summary("draft decode + analysis", draft_total_ms),
        f"  score {first.score} at full size, {draft_result.score} from the draft; "
        f"breakdown {first.breakdown}",
        *measure_memory(jpeg),
    ]
    print("\n".join(lines))
    assert 1.0 <= first.score <= 10.0
    assert abs(draft_result.score - first.score) <= 0.5
