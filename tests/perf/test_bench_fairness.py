"""Benchmark: the fairness tables, every set of faces under every change, printed.

The rows of ``tests/analysis/test_fairness.py`` (the portraits, the first 20 LFW faces
and the portraits with their face 110, 90 and 75 pixels wide; each changed as a camera,
the light or an editor changes it, and made worse), measured with the engine of this
checkout and printed as tables, with how long they took (about two minutes on a 2-core
machine). The targets of every row are asserted by ``test_fairness.py`` in the normal
test run; this prints the whole picture. Run it alone with
``make bench PYTEST_ARGS="-k fairness"``; ``scripts/fairness_table.py`` prints the same
tables for an older engine.
"""

from __future__ import annotations

import time

from tests.analysis import test_fairness as fairness
from tests.fixtures import corpus


def test_the_fairness_tables():
    started = time.perf_counter()
    titles = (
        ("portraits", "Portraits"),
        ("lfw", f"LFW faces (first {fairness.LFW_SAMPLE})"),
        *(
            (name, f"Portraits with the face {px} px wide")
            for name, px in fairness.SMALL_FACE_WIDTHS.items()
        ),
    )
    sections, measured = [], {}
    for name, title in titles:
        for table, heading in (("transform", "same photo, changed"), ("quality", "worse photo")):
            rows = [fairness.row(name, table, each) for each in fairness.TABLES[table]]
            sections.append(corpus.table(f"{title}: {heading}", rows))
            measured[name] = measured.get(name, []) + rows
    print("\n\n" + "\n\n".join(sections))
    print(f"\nfairness tables: {time.perf_counter() - started:.0f} s")
    # Every change was measured on nearly every face scored as it is.
    for name, rows in measured.items():
        assert all(
            each.faces >= fairness.MEASURED_SHARE * len(fairness.faces(name)) for each in rows
        )
