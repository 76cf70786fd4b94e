"""Benchmark: which tiers ordinary people's photos reach, on the score's reference.

Prints figures; asserts nothing. The reference population of the 1–10 scale is the
London and Canada sets (142 studio photos of ordinary adults, ``tests/fixtures/faces/``,
CC BY 4.0); each is analysed as an upload is and scored with the committed model. The
results page's claims are about these shares: "top 1%" for 9.5 and over, "top 0.01%"
for 9.9, a world record for exactly 10. The same shares, by the fitted model's
predictions before rounding, are what ``tests/analysis/test_agreement.py`` bounds.
Run it alone with ``make bench PYTEST_ARGS="-k score_tiers"``.
"""

from __future__ import annotations

import collections
from pathlib import Path

import numpy as np
from PIL import Image

from prettyscore.analysis import tiers
from prettyscore.analysis.engines.face_mesh import FaceMeshEngine

FACES = Path(__file__).resolve().parents[1] / "fixtures" / "faces"


def reference_scores() -> dict[str, list[float]]:
    engine = FaceMeshEngine()
    scores: dict[str, list[float]] = {}
    for folder in ("london", "canada"):
        for path in sorted((FACES / folder).glob("*.jpg")):
            with Image.open(path) as photo:
                pixels = np.array(photo.convert("RGB"))
            scores.setdefault(folder, []).append(engine.analyse(pixels).score)
    return scores


def test_tier_shares_on_the_reference_population(capsys):
    by_set = reference_scores()
    everyone = [score for scores in by_set.values() for score in scores]
    counted = collections.Counter(tiers.tier_for(score).label for score in everyone)
    lines = [f"Tier shares of the reference population ({len(everyone)} studio photos)"]
    for tier in tiers.TIERS:
        count = counted.get(tier.label, 0)
        lines.append(
            f"  {tier.label:24s} from {tier.min_score:>4}   {count:4d}  "
            f"{100 * count / len(everyone):5.1f}%"
        )
    for name, scores in by_set.items():
        p5, p50, p95 = np.percentile(scores, [5, 50, 95])
        lines.append(
            f"  {name:8s} n {len(scores):3d}  p5 {p5:.1f}  median {p50:.1f}  p95 {p95:.1f}"
            f"  best {max(scores):.1f}"
        )
    shares = {
        threshold: sum(score >= threshold for score in everyone) / len(everyone)
        for threshold in (9.5, 9.9, 10.0)
    }
    lines.append("  reaching 9.5: {:.1%}, 9.9: {:.1%}, 10: {:.1%}".format(*shares.values()))
    with capsys.disabled():
        print("\n" + "\n".join(lines))
