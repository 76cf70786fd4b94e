"""The video engine interface: one still photo in, one MP4 file out.

An engine renders synchronously (seconds of CPU or network work): call it from a
background task or a thread, never inside an event handler. On any failure it raises
``DomainError(messages.VIDEO_GENERATION_FAILED)`` and leaves no partial file behind.
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass
from typing import Protocol

from PIL import Image

DEFAULT_DURATION_SECONDS = 5
MIN_DURATION_SECONDS = 1
MAX_DURATION_SECONDS = 10


def clamp_duration(duration_seconds: int | float | None) -> int:
    """A whole number of seconds within 1..10; ``None`` gives the default (5)."""
    if duration_seconds is None:
        return DEFAULT_DURATION_SECONDS
    try:
        seconds = round(float(duration_seconds))
    except (TypeError, ValueError):
        return DEFAULT_DURATION_SECONDS
    return max(MIN_DURATION_SECONDS, min(MAX_DURATION_SECONDS, seconds))


@dataclass(frozen=True)
class VideoInfo:
    """What was written: the file and its stream figures."""

    path: pathlib.Path
    duration_seconds: float
    width: int
    height: int
    fps: int
    size_bytes: int


class VideoEngine(Protocol):
    name: str

    def render(
        self,
        image: Image.Image,
        *,
        prompt: str | None,
        duration_seconds: int,
        output_path: pathlib.Path,
    ) -> VideoInfo:
        """Write an MP4 of ``image`` to ``output_path`` (atomically) and describe it.

        Raises ``DomainError(messages.VIDEO_GENERATION_FAILED)`` on failure.
        """
        ...
