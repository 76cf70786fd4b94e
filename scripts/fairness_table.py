"""Print the fairness tables and the score distribution for the face engine importable here.

The photos and transforms of ``tests/fixtures/corpus.py`` (this checkout's), scored with
``prettyscore.analysis.face.analyse_face`` of whichever ``prettyscore`` comes first on
the path, so an older engine can be measured the same way, e.g.::

    git worktree add /tmp/old <commit>
    cd /tmp/old && PYTHONPATH=/tmp/old /path/to/checkout/.venv/bin/python \\
        /path/to/checkout/scripts/fairness_table.py
    git worktree remove --force /tmp/old

Plain use, in this checkout: ``.venv/bin/python scripts/fairness_table.py [--lfw 20]``;
``--face-widths 75,90,110`` adds the portraits shrunk so each face is that wide.
The first run downloads the ``face_recognition`` 1.3.0 sdist's photos (package index).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_corpus():
    """This checkout's corpus module, loaded by its path (an older tree has none)."""
    spec = importlib.util.spec_from_file_location(
        "fairness_corpus", ROOT / "tests" / "fixtures" / "corpus.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def face_width_table(corpus, analyse_face, portraits, pixels: int) -> str:
    """The changes of ``TRANSFORMS`` on the portraits with each face ``pixels`` wide.

    A small face has few pixels per feature: its landmarks, grain and sharpness are read
    less precisely, and this shows how much its score moves for it.
    """
    shrunk = corpus.with_face_width(analyse_face, portraits, pixels)
    rows = corpus.measured(analyse_face, shrunk, corpus.TRANSFORMS)
    return corpus.table(f"Portraits with the face {pixels} px wide: same photo, changed", rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lfw", type=int, default=20, help="LFW faces in the tables (1-100)")
    parser.add_argument(
        "--lfw-from", type=int, default=0, help="first LFW face in the tables (held-out: 20)"
    )
    parser.add_argument(
        "--face-widths",
        default="",
        help="also measure the portraits shrunk so each face is this wide (pixels, "
        "comma-separated, e.g. 75,90,110,130,160)",
    )
    arguments = parser.parse_args()

    os.environ["SCORING_ENGINE"] = "analysis"
    # After PYTHONPATH and the working directory: an older tree given there comes first.
    sys.path.append(str(ROOT))
    corpus = load_corpus()

    import prettyscore
    from prettyscore.analysis import tiers
    from prettyscore.analysis.engines import get_face_engine
    from prettyscore.analysis.face import analyse_face

    engine = type(get_face_engine())
    print(f"engine: {engine.__module__}.{engine.__name__} ({Path(prettyscore.__file__).parent})")
    started = time.perf_counter()

    portraits = corpus.portraits()
    all_lfw = corpus.lfw_faces()
    lfw = all_lfw[arguments.lfw_from : arguments.lfw_from + arguments.lfw]
    lfw_scores = corpus.baseline(analyse_face, all_lfw)
    portrait_scores = corpus.baseline(analyse_face, portraits)
    for name, score in portrait_scores.items():
        shown = f"{score:.1f}" if isinstance(score, float) else f"refused: {score}"
        print(f"  {name:<12} {shown}")

    sets = (
        ("Portraits", portraits, portrait_scores),
        (
            f"LFW faces ({arguments.lfw_from + 1}-{arguments.lfw_from + len(lfw)})",
            lfw,
            {p.name: lfw_scores[p.name] for p in lfw},
        ),
    )
    for title, faces, before in sets:
        for transforms, heading in (
            (corpus.TRANSFORMS, "same photo, changed"),
            (corpus.QUALITY, "worse photo"),
        ):
            rows = corpus.measured(analyse_face, faces, transforms, before)
            print("\n" + corpus.table(f"{title}: {heading}", rows))

    for pixels in (int(text) for text in arguments.face_widths.split(",") if text):
        print("\n" + face_width_table(corpus, analyse_face, portraits, pixels))

    lfw_scored = [score for score in lfw_scores.values() if isinstance(score, float)]
    portraits_scored = [s for s in portrait_scores.values() if isinstance(s, float)]
    refused = [score for score in lfw_scores.values() if not isinstance(score, float)]
    reasons = ", ".join(
        f"{corpus.short_refusal(reason)} ×{refused.count(reason)}"
        for reason in sorted(set(refused))
    )
    title = (
        f"Scores of {len(lfw_scored)} LFW faces (of {len(lfw_scores)}; refused: "
        f"{reasons or 'none'}) and {len(portraits_scored)} portraits"
    )
    scores = lfw_scored + portraits_scored
    print("\n" + corpus.distribution(title, scores, lambda score: tiers.tier_for(score).label))
    print(f"\n{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
