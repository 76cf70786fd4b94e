"""Photo-edit engines, chosen by name (``EDIT_ENGINE`` in settings, default ``local``).

``local`` edits offline with image processing; ``http`` sends the photo to an
OpenAI-compatible image-edit API (``EDIT_API_BASE``/``EDIT_API_KEY``). Engines are
imported on first use.
"""

from __future__ import annotations

import functools

from prettyscore.editing.engines.base import EditEngine

ENGINE_NAMES = ("local", "http")


@functools.cache
def engine_named(name: str) -> EditEngine:
    """The engine called ``name`` (one shared instance per process)."""
    if name == "local":
        from prettyscore.editing.engines.local import LocalEditEngine

        return LocalEditEngine()
    if name == "http":
        from prettyscore.editing.engines.http import HttpEditEngine

        return HttpEditEngine()
    raise ValueError(f"unknown edit engine {name!r}; expected one of {ENGINE_NAMES}")


def get_edit_engine() -> EditEngine:
    """The engine the settings choose (``EDIT_ENGINE``, default ``local``)."""
    from prettyscore.core.settings import get_settings

    return engine_named(get_settings().edit_engine)
