"""The analysis is a library under the app: it imports ``core`` and nothing else of ours.

``prettyscore/analysis/`` (the vision engines, the score's result, tiers and kinds) is
the floor that photos, edits, video and the score's flow stand on. If it imported one
of them, the floor would depend on a room above it, and a change to a page could break
the measures. Other areas reach the engines only through the package's public names
(``prettyscore.analysis.__all__``), never a module of ``analysis/engines/``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import prettyscore.analysis

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "prettyscore"
ANALYSIS = PACKAGE / "analysis"
ALLOWED_IN_ANALYSIS = ("prettyscore.core", "prettyscore.analysis")
ENGINES = "prettyscore.analysis.engines"


def imported_modules(source: str) -> list[str]:
    """Every absolute module a source imports, with the names it takes from each
    (``from prettyscore import analysis`` imports ``prettyscore.analysis``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            found += [f"{node.module}.{alias.name}" for alias in node.names]
    return found


def outside_the_floor(source: str) -> list[str]:
    """The app's modules a module of the analysis may not import."""
    ours = [name for name in imported_modules(source) if name.split(".")[0] == "prettyscore"]
    return [
        name
        for name in ours
        if name != "prettyscore"
        and not any(name == a or name.startswith(f"{a}.") for a in ALLOWED_IN_ANALYSIS)
    ]


def engine_internals(source: str) -> list[str]:
    """The engines' modules a module outside the analysis imports directly."""
    return [
        name
        for name in imported_modules(source)
        if name == ENGINES or name.startswith(f"{ENGINES}.")
    ]


def test_the_analysis_imports_only_core():
    offending = {
        path.relative_to(ROOT).as_posix(): outside
        for path in sorted(ANALYSIS.rglob("*.py"))
        if (outside := outside_the_floor(path.read_text()))
    }
    assert len(list(ANALYSIS.rglob("*.py"))) >= 20
    assert offending == {}


def test_other_areas_use_the_analysis_through_its_public_names():
    offending = {
        path.relative_to(ROOT).as_posix(): internals
        for path in sorted(PACKAGE.rglob("*.py"))
        if ANALYSIS not in path.parents and (internals := engine_internals(path.read_text()))
    }
    assert offending == {}


def test_every_public_name_of_the_analysis_resolves():
    for name in prettyscore.analysis.__all__:
        assert getattr(prettyscore.analysis, name) is not None, name


def test_the_checks_refuse_what_they_are_for():
    """Not vacuous: an import of an area, in any of its forms, is caught."""
    assert outside_the_floor("from prettyscore.photos import service\n") == [
        "prettyscore.photos",
        "prettyscore.photos.service",
    ]
    assert outside_the_floor("from prettyscore import editing\n") == ["prettyscore.editing"]
    assert outside_the_floor("import prettyscore.ui.score\n") == ["prettyscore.ui.score"]
    assert outside_the_floor("from prettyscore.core import messages\n") == []
    assert outside_the_floor("from prettyscore.analysis.engines import base\n") == []
    assert engine_internals("from prettyscore.analysis.engines import face_skin\n")
    assert engine_internals("from prettyscore.analysis import mesh_points\n") == []
