"""Benchmark: a 5-second local video render.

Prints seconds and file size for each run and the median; asserts nothing about time
(the machine's load decides that). The photo is scikit-image's astronaut, with a
caption. Run it alone with ``.venv/bin/python -m pytest tests/perf/test_bench_video.py -s``.
"""

from __future__ import annotations

import statistics
import time

from PIL import Image

from prettyscore.video.engines.local import LocalVideoEngine
from tests.fixtures import photos

RUNS = 2


def test_bench_local_video_render(tmp_path):
    engine = LocalVideoEngine()
    image = Image.fromarray(photos.astronaut())
    seconds, sizes = [], []
    for run in range(RUNS):
        started = time.perf_counter()
        info = engine.render(
            image,
            prompt="Walking on the moon with a smile",
            duration_seconds=5,
            output_path=tmp_path / f"clip-{run}.mp4",
        )
        seconds.append(time.perf_counter() - started)
        sizes.append(info.size_bytes / 1_000_000)
        print(
            f"\nlocal video 5 s 1280x720@24 run {run + 1}: {seconds[-1]:.2f} s, {sizes[-1]:.2f} MB"
        )
    frames_started = time.perf_counter()
    plan = engine._plan(image, "Walking on the moon with a smile")
    for _ in engine._frames(plan, 5 * engine.fps):
        pass
    frames_only = time.perf_counter() - frames_started
    print(
        f"local video 5 s render: median {statistics.median(seconds):.2f} s over {RUNS} runs, "
        f"file {statistics.median(sizes):.2f} MB; frames alone (no encoding) {frames_only:.2f} s"
    )
    assert info.duration_seconds == 5.0
