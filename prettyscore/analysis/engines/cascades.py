"""OpenCV's bundled Haar cascades, loaded once per thread.

A ``cv2.CascadeClassifier`` must not be shared between threads, and analyses run in a
thread pool; each thread therefore loads its own set on first use and keeps it.
"""

from __future__ import annotations

import threading

import cv2


class ThreadCascades:
    """A named set of cascade files (from ``cv2.data.haarcascades``), one copy per thread."""

    def __init__(self, files: dict[str, str]):
        self._files = dict(files)
        self._local = threading.local()

    def get(self) -> dict[str, cv2.CascadeClassifier]:
        """This thread's cascades by name, loaded on the first call in the thread."""
        loaded = getattr(self._local, "by_name", None)
        if loaded is None:
            loaded = {name: _load(filename) for name, filename in self._files.items()}
            self._local.by_name = loaded
        return loaded


def _load(filename: str) -> cv2.CascadeClassifier:
    cascade = cv2.CascadeClassifier(cv2.data.haarcascades + filename)
    if cascade.empty():
        raise RuntimeError(f"OpenCV cascade {filename} could not be loaded")
    return cascade
