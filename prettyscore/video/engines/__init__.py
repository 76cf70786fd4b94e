"""Image-to-video engines, chosen by name (``VIDEO_ENGINE`` in settings, default ``local``).

``local`` renders a real H.264 MP4 offline with the ffmpeg binary that imageio-ffmpeg
ships; ``http`` has a remote image-to-video task API (Runway's shape: ``VIDEO_API_BASE``,
``VIDEO_API_KEY``) make the clip. Engines are imported on first use.
"""

from __future__ import annotations

import functools

from prettyscore.video.engines.base import (
    DEFAULT_DURATION_SECONDS,
    MAX_DURATION_SECONDS,
    MIN_DURATION_SECONDS,
    VideoEngine,
    VideoInfo,
    clamp_duration,
)

ENGINE_NAMES = ("local", "http")

__all__ = [
    "DEFAULT_DURATION_SECONDS",
    "ENGINE_NAMES",
    "MAX_DURATION_SECONDS",
    "MIN_DURATION_SECONDS",
    "VideoEngine",
    "VideoInfo",
    "clamp_duration",
    "engine_named",
    "get_video_engine",
]


@functools.cache
def engine_named(name: str) -> VideoEngine:
    """The engine called ``name`` (one shared instance per process)."""
    if name == "local":
        from prettyscore.video.engines.local import LocalVideoEngine

        return LocalVideoEngine()
    if name == "http":
        from prettyscore.video.engines.http import HttpVideoEngine

        return HttpVideoEngine()
    raise ValueError(f"unknown video engine {name!r}; expected one of {ENGINE_NAMES}")


def get_video_engine() -> VideoEngine:
    """The engine the settings choose (``VIDEO_ENGINE``, default ``local``)."""
    from prettyscore.core.settings import get_settings

    return engine_named(get_settings().video_engine)
