"""What every face-scoring engine promises, whatever it does inside.

The upload code decodes the photo (EXIF orientation applied) and hands the engine an RGB
``uint8`` array; the engine returns a ``FaceAnalysis`` or raises ``ValidationFailed`` with
the text the user should see (no face, several faces, too blurred, too dark).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

from prettyscore.analysis import kinds

if TYPE_CHECKING:
    from prettyscore.analysis.engines.face_photo import PhotoReading

# The breakdown the results page and the saved photo show, in this order.
BREAKDOWN_KEYS = kinds.BREAKDOWN_KEYS[kinds.FACE]

MIN_SCORE = 1.0
MAX_SCORE = 10.0


def one_decimal(value: float, low: float, high: float) -> float:
    """Clamp to [low, high] and round to one decimal, as every shown figure is."""
    return round(min(max(float(value), low), high), 1)


@dataclass(frozen=True)
class MeasureNote:
    """One measure behind the score, as the "How we got your score" panel shows it.

    ``part`` is the breakdown key it counts towards; ``value`` and ``ideal`` (low, high)
    are in the measure's own unit, rounded as shown; ``text`` is the plain sentence
    ("Eye spacing: 0.46 of face width, ideal 0.42–0.48").
    """

    key: str
    name: str
    part: str
    value: float
    ideal: tuple[float, float]
    text: str

    @property
    def in_ideal_range(self) -> bool:
        return self.ideal[0] <= self.value <= self.ideal[1]


@dataclass(frozen=True)
class OverlayLine:
    """A line the analysis measured along, in the analysed image's pixels.

    ``part`` is the breakdown key it belongs to (the panel colours lines by it);
    ``closed`` joins the last point back to the first (an outline).
    """

    part: str
    points: tuple[tuple[float, float], ...]
    closed: bool = False


@dataclass(frozen=True)
class FaceAnalysis:
    """One photo's result.

    ``score`` is on the documents' 1–10 scale with one decimal; ``breakdown`` holds exactly
    ``BREAKDOWN_KEYS``, each 0–10 with one decimal; ``face_box`` is (x, y, w, h) in the
    pixels of the image that was analysed, or None for an engine that does not look.
    ``measures`` keeps the raw figures behind the breakdown, for debugging and
    calibration only: never show them to users. What users see of the analysis is
    ``notes`` (each measure against its ideal range) and ``overlay`` (the lines it
    measured along), drawn on the part of the photo in ``view_box`` (x, y, w, h: the
    face with a margin); an engine that does not look leaves them empty.

    ``score`` is the person's score nudged by the photo; ``person_score`` is the
    person's alone (1–10, one decimal), and ``photo`` how well this photo shows the face
    (``face_photo.PhotoReading``: light, sharpness, grain, expression, framing): both
    None for an engine that does not look.
    """

    score: float
    breakdown: dict[str, float]
    face_box: tuple[int, int, int, int] | None = None
    engine: str = ""
    measures: dict[str, float] = field(default_factory=dict)
    notes: tuple[MeasureNote, ...] = ()
    overlay: tuple[OverlayLine, ...] = ()
    view_box: tuple[int, int, int, int] | None = None
    person_score: float | None = None
    photo: PhotoReading | None = None

    def __post_init__(self) -> None:
        if not MIN_SCORE <= self.score <= MAX_SCORE:
            raise ValueError(f"score {self.score} outside {MIN_SCORE}–{MAX_SCORE}")
        if tuple(self.breakdown) != BREAKDOWN_KEYS:
            raise ValueError(f"breakdown keys must be {BREAKDOWN_KEYS}")
        if any(not 0.0 <= value <= 10.0 for value in self.breakdown.values()):
            raise ValueError(f"breakdown values must be 0–10: {self.breakdown}")


class FaceScoringEngine(Protocol):
    """A back end that scores the one face in a photo."""

    name: str

    def analyse(self, image: np.ndarray) -> FaceAnalysis:
        """Score ``image``: RGB ``uint8`` of shape (h, w, 3), EXIF orientation applied.

        Raises ``ValidationFailed`` (with the user's text) when the photo cannot be
        scored: no face, several faces, or a face too blurred, dark or bright to judge.
        """
        ...


@dataclass(frozen=True)
class BodyAnalysis:
    """One feet, hands or pet photo's result.

    ``score`` is 1–10 with one decimal; ``breakdown`` holds exactly the kind's keys
    (``kinds.BREAKDOWN_KEYS[kind]``), each 0–10 with one decimal. ``measures`` keeps the
    raw figures behind them, for debugging and calibration only: never show them.
    """

    kind: str
    score: float
    breakdown: dict[str, float]
    engine: str = ""
    measures: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not MIN_SCORE <= self.score <= MAX_SCORE:
            raise ValueError(f"score {self.score} outside {MIN_SCORE}–{MAX_SCORE}")
        if tuple(self.breakdown) != kinds.BREAKDOWN_KEYS[self.kind]:
            raise ValueError(f"breakdown keys must be {kinds.BREAKDOWN_KEYS[self.kind]}")
        if any(not 0.0 <= value <= 10.0 for value in self.breakdown.values()):
            raise ValueError(f"breakdown values must be 0–10: {self.breakdown}")


class BodyScoringEngine(Protocol):
    """A back end that scores a feet, hands or pet photo (one engine per kind)."""

    name: str
    kind: str

    def analyse(self, image: np.ndarray) -> BodyAnalysis:
        """Score ``image``: RGB ``uint8`` of shape (h, w, 3), EXIF orientation applied.

        Raises ``ValidationFailed`` (with the user's text) when the photo cannot be
        scored at all.
        """
        ...
