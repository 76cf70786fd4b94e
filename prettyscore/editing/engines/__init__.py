"""Photo-edit engines, chosen by name: ``local`` (offline image processing, the default).

Engines are imported on first use. The ``http`` engine (an OpenAI-compatible image-edit
API) plugs in here under its own name.
"""

from __future__ import annotations

import functools

from prettyscore.editing.engines.base import EditEngine

ENGINE_NAMES = ("local",)


@functools.cache
def engine_named(name: str) -> EditEngine:
    """The engine called ``name`` (one shared instance per process)."""
    if name == "local":
        from prettyscore.editing.engines.local import LocalEditEngine

        return LocalEditEngine()
    raise ValueError(f"unknown edit engine {name!r}; expected one of {ENGINE_NAMES}")
