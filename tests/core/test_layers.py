"""The layer rule, checked: only the Reflex layer imports Reflex.

Services, models, engines, the API and ``core`` are plain Python; Reflex state, pages and
components call them (DESIGN.md). Ruff's banned-api rule (TID251, configured in
pyproject.toml) refuses a direct ``import reflex`` outside the files its per-file-ignores
name; this test runs that rule, shows that it is in force, and checks what ruff cannot
see: that importing a module outside the Reflex layer does not load Reflex through
another module either.
"""

from __future__ import annotations

import ast
import fnmatch
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "prettyscore"

#: Modules outside the Reflex layer that load Reflex through another module, and why.
LOADS_REFLEX = {
    # Fills a prerendered page's HTML with the helper beside the component that draws
    # the frame it fills (ui.early_photo).
    "prettyscore.photos.early",
}


def _ruff(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "TID251", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_no_module_outside_the_reflex_layer_imports_reflex():
    result = _ruff("prettyscore")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_rule_refuses_reflex_in_a_service():
    """The check above is not vacuous: the rule is configured and refuses Reflex in a
    service (and in the Reflex packages published beside it)."""
    source = "import reflex as rx\nfrom reflex_base import constants\n"
    result = _ruff("--stdin-filename", "prettyscore/analysis/service.py", "-", stdin=source)
    assert result.returncode == 1
    assert "`reflex` is banned" in result.stdout
    assert "`reflex_base` is banned" in result.stdout


def _reflex_layer_patterns() -> list[str]:
    """The files allowed to import Reflex, as pyproject.toml's per-file-ignores name them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    ignores = config["tool"]["ruff"]["lint"]["per-file-ignores"]
    return [glob for glob, rules in ignores.items() if "TID251" in rules and glob[0] != "!"]


def _modules_outside_the_reflex_layer() -> list[str]:
    patterns = _reflex_layer_patterns()
    modules = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if path.name == "__main__.py" or any(fnmatch.fnmatch(relative, p) for p in patterns):
            continue
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        if name not in LOADS_REFLEX:
            modules.append(name)
    return modules


# Imports each module named in argv in turn and prints the first one after which Reflex
# is loaded (nothing when none is).
_FIRST_TO_LOAD_REFLEX = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
    if "reflex" in sys.modules:
        print(name)
        break
"""


def test_no_module_outside_the_reflex_layer_loads_reflex_when_imported():
    modules = _modules_outside_the_reflex_layer()
    assert "prettyscore.analysis.service" in modules
    assert "prettyscore.accounts.models" in modules
    assert "prettyscore.scoring.state" not in modules
    result = subprocess.run(
        [sys.executable, "-c", _FIRST_TO_LOAD_REFLEX, *modules],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"importing {result.stdout.strip()} loads Reflex"


def test_every_table_lives_in_its_areas_models_module():
    """Tables are found by file name (``core.all_models``): a table declared anywhere but
    an area's models.py would be missing from the engine's and alembic's view."""
    from prettyscore.core import all_models

    declared = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                keyword.arg == "table" for keyword in node.keywords
            ):
                declared[node.name] = path.relative_to(PACKAGE).as_posix()
    assert len(declared) >= 30
    misplaced = {
        name: where
        for name, where in declared.items()
        if not (where.endswith("/models.py") and where.count("/") == 1)
    }
    assert misplaced == {}
    found = {model.__name__ for module in all_models.area_models for model in _tables(module)}
    assert found == set(declared)


def _tables(module) -> list[type]:
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and value.__module__ == module.__name__
        and getattr(value, "__table__", None) is not None
    ]
