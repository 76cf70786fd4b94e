"""MediaPipe's bundled models, loaded once per thread and only when first asked for.

The photo analysis (faces, hands) and the edits (the person's outline and pose) use the models
that ship inside the ``mediapipe==0.10.21`` wheel: nothing is downloaded at run time, so
they work offline. Later MediaPipe releases dropped the bundled files, which is why the
version is pinned exactly (``requirements-mediapipe.txt``); ``missing_model_files`` says
if an install ever lacks one, and a test fails loudly on it.

A MediaPipe solution object is a running graph that must not be used by two threads at
once; photo work runs on a thread pool, so each thread builds its own (a face mesh costs
about 33 MB and a few tens of milliseconds to build) and keeps it. In
``static_image_mode`` every call is independent of the previous one, so a thread's
instance gives the same answer for the same pixels as a fresh one.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from importlib import util as import_util
from pathlib import Path
from typing import Any

# MediaPipe's C++ side logs a few lines per graph to stderr; keep warnings and errors only.
os.environ.setdefault("GLOG_minloglevel", "1")

#: The model files the app uses, relative to the installed ``mediapipe`` package.
BUNDLED_MODEL_FILES = (
    "modules/face_detection/face_detection_short_range.tflite",
    "modules/face_detection/face_detection_full_range_sparse.tflite",
    "modules/face_landmark/face_landmark_with_attention.tflite",
    "modules/hand_landmark/hand_landmark_full.tflite",
    "modules/palm_detection/palm_detection_full.tflite",
    "modules/pose_detection/pose_detection.tflite",
    "modules/pose_landmark/pose_landmark_full.tflite",
    "modules/selfie_segmentation/selfie_segmentation.tflite",
)


def mediapipe_folder() -> Path:
    """Where the installed ``mediapipe`` package lives (raises if it is not installed)."""
    spec = import_util.find_spec("mediapipe")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(
            "mediapipe is not installed: `make run` or `make test` installs it "
            "(requirements-mediapipe.txt)"
        )
    return Path(spec.origin).parent


def missing_model_files() -> list[str]:
    """The bundled model files that are not where this app expects them (none, normally)."""
    folder = mediapipe_folder()
    return [name for name in BUNDLED_MODEL_FILES if not (folder / name).is_file()]


class PerThread:
    """One object per thread, made by ``factory`` on that thread's first ``get()``."""

    def __init__(self, factory: Callable[[], Any]):
        self._factory = factory
        self._local = threading.local()

    def get(self) -> Any:
        made = getattr(self._local, "instance", None)
        if made is None:
            made = self._factory()
            self._local.instance = made
        return made


def _solutions():
    import mediapipe as mp

    return mp.solutions


def _face_detector(model_selection: int, min_confidence: float) -> Any:
    return _solutions().face_detection.FaceDetection(
        model_selection=model_selection, min_detection_confidence=min_confidence
    )


#: Faces anywhere in a photo, up to about 5 m from the camera (full-range model). A low
#: confidence floor: callers decide what counts as a face from the scores.
FULL_RANGE_FACE_DETECTOR = PerThread(lambda: _face_detector(1, 0.2))
#: Faces filling a good part of the view (short-range model): a selfie, a face crop.
SHORT_RANGE_FACE_DETECTOR = PerThread(lambda: _face_detector(0, 0.2))

#: 478 landmarks of one face (irises refined) in a still photo.
FACE_MESH = PerThread(
    lambda: _solutions().face_mesh.FaceMesh(
        static_image_mode=True,
        max_num_faces=1,
        refine_landmarks=True,
        min_detection_confidence=0.3,
    )
)

#: 21 landmarks per hand, up to two hands, in a still photo (the full landmark model).
HANDS = PerThread(
    lambda: _solutions().hands.Hands(
        static_image_mode=True,
        max_num_hands=2,
        model_complexity=1,
        min_detection_confidence=0.3,
    )
)

#: A soft mask of the person (or people) in the photo.
SELFIE_SEGMENTATION = PerThread(
    lambda: _solutions().selfie_segmentation.SelfieSegmentation(model_selection=0)
)

#: 33 body landmarks (shoulders, elbows, wrists, hips...) of one person in a still photo:
#: the full landmark model (``model_complexity=1``), the one the wheel bundles.
POSE = PerThread(
    lambda: _solutions().pose.Pose(
        static_image_mode=True,
        model_complexity=1,
        enable_segmentation=False,
        min_detection_confidence=0.3,
    )
)
