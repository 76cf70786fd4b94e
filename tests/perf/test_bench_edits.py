"""Benchmark: the local edit engine on a 12-megapixel photo.

Prints figures; asserts nothing about time (the machine's load decides those). Run it
alone with ``.venv/bin/python -m pytest tests/perf/test_bench_edits.py -s``.

The photo is scikit-image's astronaut enlarged to 4000×3000 (``photos.twelve_megapixels``).
Each of the twelve tab presets runs ``RUNS`` times (median reported); the upscale preset
is timed from a 1024×768 photo (a real enlargement to 3840×2880) and from the 12 MP one,
and its peak memory is measured in a fresh process (Linux: the resident set's
high-water mark, reset just before, minus the resident set then).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

from prettyscore.editing import presets
from prettyscore.editing.engines.local import LocalEditEngine
from tests.fixtures import photos

RUNS = 3
ROOT = Path(__file__).resolve().parents[2]

UPSCALE_PROBE = """
import json, sys, time
import numpy as np
from PIL import Image
from prettyscore.editing import presets
from prettyscore.editing.engines.local import LocalEditEngine
from tests.fixtures import photos
width, height = int(sys.argv[1]), int(sys.argv[2])
image = Image.fromarray(photos.astronaut()).resize((width, height), Image.Resampling.BICUBIC)
engine = LocalEditEngine()
engine.edit(Image.new("RGB", (64, 48)), presets.UPSCALE_PROMPT)  # warm up the imports
def status_kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
with open("/proc/self/clear_refs", "w") as clear:
    clear.write("5")  # resets the high-water mark (VmHWM) to the current resident set
before = status_kb("VmRSS")
started = time.perf_counter()
result = engine.edit(image, presets.UPSCALE_PROMPT)
millis = (time.perf_counter() - started) * 1000.0
peak = status_kb("VmHWM")
print(json.dumps({"ms": millis, "peak_mb": (peak - before) / 1024.0, "size": result.size}))
"""


def timed_edit(engine: LocalEditEngine, image: Image.Image, prompt: str) -> float:
    started = time.perf_counter()
    result = engine.edit(image, prompt)
    millis = (time.perf_counter() - started) * 1000.0
    assert result.size == image.size
    return millis


def upscale_figures(width: int, height: int) -> dict:
    finished = subprocess.run(
        [sys.executable, "-c", UPSCALE_PROBE, str(width), str(height)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(finished.stdout.strip().splitlines()[-1])


def test_bench_local_edits_on_a_12_megapixel_photo() -> None:
    image = Image.fromarray(photos.twelve_megapixels(photos.astronaut()))
    assert image.size == (4000, 3000)
    engine = LocalEditEngine()
    print(f"\nLocal edits of a {image.width}×{image.height} photo, median of {RUNS} runs:")
    medians = {}
    for prompt in presets.TAB_PRESETS:
        millis = [timed_edit(engine, image, prompt) for _ in range(RUNS)]
        medians[prompt] = float(np.median(millis))
        runs = ", ".join(f"{m:.0f}" for m in millis)
        print(f"  {prompt:34s} {medians[prompt]:7.0f} ms  (runs: {runs})")
    print(f"  {'all twelve, median of medians':34s} {np.median(list(medians.values())):7.0f} ms")

    for width, height in ((1024, 768), (4000, 3000)):
        figures = upscale_figures(width, height)
        assert max(figures["size"]) == presets.UPSCALE_LONG_SIDE
        print(
            f"Upscale {width}×{height} → {figures['size'][0]}×{figures['size'][1]}: "
            f"{figures['ms']:.0f} ms, peak +{figures['peak_mb']:.0f} MB resident"
        )
