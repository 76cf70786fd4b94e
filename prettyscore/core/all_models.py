"""Imports every area's tables so that SQLModel's metadata (and alembic) sees them all.

Each area keeps its tables in its own ``models.py`` (``prettyscore/<area>/models.py``);
this module finds those modules by that name, so ``core`` names no area and a new area's
tables are seen without a list to keep up to date.
"""

import importlib
import importlib.util
import pkgutil
from types import ModuleType

from sqlmodel import SQLModel

import prettyscore


def _area_models() -> tuple[ModuleType, ...]:
    """Every ``prettyscore.<area>.models`` module, imported, in the areas' name order."""
    names = (
        f"{prettyscore.__name__}.{area.name}.models"
        for area in sorted(pkgutil.iter_modules(prettyscore.__path__), key=lambda a: a.name)
        if area.ispkg
    )
    return tuple(importlib.import_module(name) for name in names if importlib.util.find_spec(name))


area_models = _area_models()
metadata = SQLModel.metadata

__all__ = ["area_models", "metadata"]
