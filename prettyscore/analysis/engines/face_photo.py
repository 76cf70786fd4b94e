"""What belongs to the photo, not the person: its light, sharpness, grain, the
expression and the framing.

The score is the person's (``face_score``): a face descriptor and the skin, which stay
with the person from one photo to the next. The photo only nudges it, within a narrow
band (``PHOTO_BAND``): a clear, well-lit, straight-on photo helps a little and a dim,
soft or turned one hurts a little. The same readings rank several photos of one person
("which photo shows you best"), each with a line of advice.

Each aspect is a quality from 0 to 1 read from the analysis' own measures, relative to
the face (its contrast, its size, its own sharpness), never to an absolute grey level:
a darker skin is not a darker photo.
"""

from __future__ import annotations

from dataclasses import dataclass

from prettyscore.analysis.engines.base import one_decimal

LIGHT, SHARPNESS, GRAIN, EXPRESSION, FRAMING = (
    "light",
    "sharpness",
    "grain",
    "expression",
    "framing",
)
ASPECTS = (LIGHT, SHARPNESS, GRAIN, EXPRESSION, FRAMING)
ASPECT_NAMES = {
    LIGHT: "Light",
    SHARPNESS: "Sharpness",
    GRAIN: "Grain",
    EXPRESSION: "Expression",
    FRAMING: "Framing",
}
# How much each aspect counts in the photo's quality (they add up to 1).
ASPECT_WEIGHTS = {LIGHT: 0.25, SHARPNESS: 0.25, GRAIN: 0.15, EXPRESSION: 0.15, FRAMING: 0.2}
# One line of advice per aspect, for the photo's weakest one.
ADVICE = {
    LIGHT: "Face a window or soft light so your whole face is evenly lit.",
    SHARPNESS: "Hold the phone steady and tap your face to focus before you take it.",
    GRAIN: "Take it in brighter light: in dim light a photo turns grainy.",
    EXPRESSION: "Keep your eyes open and relaxed, as in a natural smile.",
    FRAMING: "Face the camera straight on and come a little closer.",
}
GOOD_PHOTO_ADVICE = "A clear photo: nothing to change."
# An aspect below this quality is worth advice; above it the photo is good there.
ADVICE_BELOW = 0.8
# What differs between two photos: an aspect more than this apart (0–1).
DIFFERS_BY = 0.1

# Light: the face's own contrast (5th to 95th percentile, grey levels) from which its
# detail shows fully (the darkest faces of the London Set's studio read 50–70), the
# share of crushed or clipped pixels at which it is lost, and the difference of the
# face's two halves (in shares of its contrast) at which one side is lost in shadow.
# The face's middle level is not read: a darker skin is not a darker photo (in the
# same studio light, the Black sitters' faces read 74 in the middle, the White
# sitters' 145).
FULL_CONTRAST = 40.0
LOST_CLIPPED = 0.3
LOST_SIDE_DIFFERENCE = 0.6
# Sharpness: edge blur in percent of the face's width; sharp photos read 1.0–1.25, and
# a face is refused from 2.75 (``face_mesh.MAX_BLUR_PERCENT``). Grain sharpens the edges
# the blur is read from: each grey level beyond a clean photo's counts as this much blur
# (as ``face_calibration.UNCERTAINTY_PER_GRAIN``), so noise never reads as sharpness.
SHARP_UNTIL = 1.25
REFUSED_BLUR = 2.75
BLUR_PER_GRAIN = 0.28
CLEAN_GRAIN = 3.0
# Grain in grey levels: clean photos read 0–2; noisy ones 5 and more.
CLEAN_UNTIL = 2.5
GRAINY_AT = 8.0
# Expression: eyes (lid gap in face widths) from closed to open as most faces are at
# rest (the reference's lower quartile is about 0.064).
EYES_CLOSED = 0.03
EYES_OPEN = 0.058
# Framing: the head's turn (degrees) at which a face is refused, and the face's width in
# pixels from which it shows all its detail (below 60 it is refused).
TURN_LIMIT = 35.0
FULL_DETAIL_WIDTH = 220.0
SMALLEST_WIDTH = 60.0

# The photo moves the person's standing by at most this much (standard deviations of
# the reference population, about 0.3 of a score point in the middle of the scale),
# for qualities this far from a studio photo's. The reference population's studio
# photos read 0.955–0.977 on average (``scripts/fit_score.py`` reports it), so they
# are scored as they are, and the scale's tiers keep their meaning; a photo worse than
# theirs takes up to the band off.
PHOTO_BAND = 0.35
TYPICAL_GOOD_PHOTO = 0.97
PHOTO_SPAN = 0.45


@dataclass(frozen=True)
class PhotoReading:
    """How well this photo shows the face: each aspect's quality (0–1), the overall
    quality, its nudge to the standing, and the advice for its weakest aspect."""

    aspects: dict[str, float]

    @property
    def quality(self) -> float:
        return sum(ASPECT_WEIGHTS[key] * self.aspects[key] for key in ASPECTS)

    @property
    def nudge(self) -> float:
        """The photo's effect on the standing: ±``PHOTO_BAND`` at most."""
        position = (self.quality - TYPICAL_GOOD_PHOTO) / PHOTO_SPAN
        return PHOTO_BAND * min(1.0, max(-1.0, position))

    @property
    def weakest(self) -> str | None:
        """The aspect most worth improving (by what it would add), or None."""
        below = [key for key in ASPECTS if self.aspects[key] < ADVICE_BELOW]
        if not below:
            return None
        weakest = max(below, key=lambda key: ASPECT_WEIGHTS[key] * (1.0 - self.aspects[key]))
        # Grain also hides the edges' sharpness: in a grainy photo, light is the cure.
        if weakest == SHARPNESS and GRAIN in below:
            return GRAIN
        return weakest

    @property
    def advice(self) -> str:
        weakest = self.weakest
        return ADVICE[weakest] if weakest else GOOD_PHOTO_ADVICE

    def shown(self) -> dict[str, float]:
        """Each aspect and the overall quality on a 0–10 scale with one decimal."""
        out = {key: one_decimal(10.0 * value, 0.0, 10.0) for key, value in self.aspects.items()}
        out["overall"] = one_decimal(10.0 * self.quality, 0.0, 10.0)
        return out


def reading(measures: dict[str, float]) -> PhotoReading:
    """The photo's aspects from the analysis' raw measures."""
    return PhotoReading(
        {
            LIGHT: light_quality(measures),
            SHARPNESS: falling(effective_blur(measures), SHARP_UNTIL, REFUSED_BLUR),
            GRAIN: falling(measures["grain"], CLEAN_UNTIL, GRAINY_AT),
            EXPRESSION: rising(measures["eye_openness"], EYES_CLOSED, EYES_OPEN),
            FRAMING: framing_quality(measures),
        }
    )


def effective_blur(measures: dict[str, float]) -> float:
    """The edge blur with what grain hides of it added back."""
    return measures["sharpness"] + BLUR_PER_GRAIN * max(0.0, measures["grain"] - CLEAN_GRAIN)


def light_quality(measures: dict[str, float]) -> float:
    """Enough contrast to show the face's detail, little crushed to black or clipped
    to white, and both halves of the face lit."""
    contrast = rising(measures["light_contrast"], 0.0, FULL_CONTRAST)
    clipped = falling(measures["light_clipped"], 0.0, LOST_CLIPPED)
    sides = falling(measures["light_sides"], 0.0, LOST_SIDE_DIFFERENCE)
    return contrast * clipped * (0.5 + 0.5 * sides)


def framing_quality(measures: dict[str, float]) -> float:
    """Facing the camera, and close enough to show the face's detail."""
    turn = max(abs(measures["yaw"]), abs(measures["pitch"]), abs(measures["roll"]))
    facing = 1.0 - (min(turn, TURN_LIMIT) / TURN_LIMIT) ** 2
    size = rising(measures["face_width_pixels"], SMALLEST_WIDTH, FULL_DETAIL_WIDTH)
    return facing * (0.4 + 0.6 * size)


def differences(photo: PhotoReading, best: PhotoReading) -> list[str]:
    """The aspects in which ``photo`` falls short of ``best``, by name, worst first."""
    gaps = {key: best.aspects[key] - photo.aspects[key] for key in ASPECTS}
    short = [key for key in ASPECTS if gaps[key] > DIFFERS_BY]
    return [ASPECT_NAMES[key] for key in sorted(short, key=lambda key: -gaps[key])]


def rising(value: float, start: float, end: float) -> float:
    """0 at ``start`` or below, 1 at ``end`` or beyond, linear between."""
    return min(1.0, max(0.0, (value - start) / (end - start)))


def falling(value: float, start: float, end: float) -> float:
    """1 at ``start`` or below, 0 at ``end`` or beyond, linear between."""
    return 1.0 - rising(value, start, end)
