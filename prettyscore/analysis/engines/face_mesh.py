"""The ``analysis`` engine: a face's score from MediaPipe Face Mesh's 478 landmarks.

The steps, each in its own module:

1. ``face_landmarks``: find the one face (refusing none or several) and its landmarks;
2. ``face_geometry``: the face's own frame (levelled, turned to the camera) and its
   pose; the framing checks below;
3. ``face_skin``: the face resampled into its frame as luminance; the exposure and
   sharpness checks; the skin's texture;
4. ``face_proportions``: symmetry and the named proportions;
5. ``face_calibration``: each measure against its ideal range, the breakdown and the
   score; ``face_overlay``: the lines measured, for the visitor to see.

Every check is relative to the face itself (its size in pixels, its own contrast and
clipping, its own sharpness), never to an absolute grey level, so a darker skin or a
darker photo is judged like a lighter one. The same pixels always give the same result:
the models run per thread in still-image mode, and nothing here is random.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from prettyscore.analysis.engines import (
    face_calibration,
    face_descriptor,
    face_landmarks,
    face_overlay,
    face_proportions,
    face_skin,
)
from prettyscore.analysis.engines import face_mesh_points as fp
from prettyscore.analysis.engines.base import FaceAnalysis
from prettyscore.analysis.engines.face_geometry import FaceFrame
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed

# The face must be at least this wide (cheekbone to cheekbone) in the photo's pixels:
# below it, its features span too few pixels to measure (a 2000-pixel full-length
# photo's 150-pixel face is fine).
MIN_FACE_WIDTH = 60
# Head pose beyond which the face is too turned to measure (degrees). A soft face's
# measured turn moves with the light, the compression or the size of its photo: the limit
# leaves the faces a visitor would call front-facing room for that, or they would be
# refused one photo and scored the next (measured: tests/analysis/NOTES.md, 'Head turn
# limit').
MAX_YAW = 35.0
MAX_PITCH = 35.0
MAX_ROLL = 40.0
# A face whose outline leaves the photo by more than this (face widths) is cut off.
MAX_OUTSIDE = 0.04
# Exposure: share of the face crushed to black or clipped to white, and the face's own
# contrast (5th to 95th percentile, grey levels) below which its detail is lost.
MAX_CLIPPED = 0.3
# An over-exposed face is refused when its eyes, brows and lips are washed out (more than
# MAX_CLIPPED of them), or most of the face is (more than FACE_WASHED_OUT): a bright
# forehead or cheek alone still leaves a face to measure.
FACE_WASHED_OUT = 0.6
MIN_CONTRAST = 12.0
# Sharpness: edge blur, in percent of the face's width, beyond which a face is refused
# (sharp photos measure 1.0–1.25; the LFW faces, 25 pixels enlarged, 1.5–2.5; softer than
# that, features can no longer be told apart). Below it, softness lowers skin quality.
MAX_BLUR_PERCENT = 2.75
# Softer than this, the landmarks are averaged over more framings of the face
# (``face_landmarks.MESH_VIEWS``): one places them less precisely. So are a small
# face's, which the mesh sees enlarged (``face_landmarks.enlarged_for_mesh``; measured:
# tests/analysis/NOTES.md, 'Landmark framings').
PRECISE_BLUR_PERCENT = 1.3
# The mesh reads a turned head as slightly asymmetric: its mean mirror distance grows by
# this much (percent of face width) per degree of turn beyond the first two (measured:
# tests/analysis/NOTES.md, 'Asymmetry of a turned head'). Symmetry figures leave that
# out, down to this share of the raw.
ASYMMETRY_PER_DEGREE_OF_YAW = 0.11
MIN_ASYMMETRY_KEPT = 0.4


@dataclass(frozen=True)
class Measured:
    """A face's raw measures (by key), and where they were taken: its landmarks (photo
    pixels), its frame and its canonical image; and its descriptor (``face_descriptor``)."""

    measures: dict[str, float]
    points: np.ndarray
    frame: FaceFrame
    face: face_skin.CanonicalFace
    shape: tuple[int, int]
    descriptor: np.ndarray


class FaceMeshEngine:
    """Scores the one face in a photo from its landmarks and its skin."""

    name = "analysis"

    def analyse(self, image: np.ndarray) -> FaceAnalysis:
        measured = self.measure(image)
        measures, points, frame, face = (
            dict(measured.measures),
            measured.points,
            measured.frame,
            measured.face,
        )
        result = face_calibration.calibrated(measures, measured.descriptor)
        measures.update(result.standings)
        return FaceAnalysis(
            score=result.score,
            breakdown=result.breakdown,
            face_box=face_box(points),
            engine=self.name,
            measures=measures,
            notes=result.notes,
            overlay=face_overlay.overlay_lines(points, frame, face, face_skin.skin_patches(face)),
            view_box=face_overlay.view_box(points, frame, measured.shape),
            person_score=result.person_score,
            photo=result.photo,
        )

    def measure(self, image: np.ndarray) -> Measured:
        """Find the face, check the photo shows it well enough, and take every measure
        (the score's model is not applied: ``scripts/fit_score.py`` fits it on these)."""
        gray = luminance(image)
        landmarks = located_face(gray)
        frame, face = framed(gray, landmarks)
        if placed_imprecisely(landmarks, face):
            landmarks = face_landmarks.with_more_views(gray, landmarks)
            frame, face = framed(gray, landmarks)
        points = landmarks.points
        check_framing(points, frame, gray.shape)
        light = check_exposure(face)
        measures = face_measures(landmarks, frame, face)
        measures.update(light_measures(face, light))
        measures["grain"] = face_skin.face_grain(gray, points, frame.width)
        measures["compression_blocks"] = face_skin.compression_blocks(gray, points)
        measures["sharpness"] = face_skin.unblocked_blur(
            measures["sharpness"], measures["compression_blocks"], frame.width
        )
        check_sharpness(measures["sharpness"])
        descriptor = face_descriptor.descriptor(gray, points)
        return Measured(measures, points, frame, face, gray.shape, descriptor)


def framed(
    gray: np.ndarray, landmarks: face_landmarks.FaceLandmarks
) -> tuple[FaceFrame, face_skin.CanonicalFace]:
    """The face's frame and its canonical image."""
    frame = FaceFrame.of(landmarks.points)
    return frame, face_skin.canonical_face(gray, landmarks.points, frame)


def placed_imprecisely(
    landmarks: face_landmarks.FaceLandmarks, face: face_skin.CanonicalFace
) -> bool:
    """Whether one framing places these landmarks less precisely than several would: on
    a soft face, or a small one the mesh sees enlarged (see ``PRECISE_BLUR_PERCENT``)."""
    soft = blur_percent(face) > PRECISE_BLUR_PERCENT
    return soft or face_landmarks.enlarged_for_mesh(landmarks.detection)


def blur_percent(face: face_skin.CanonicalFace) -> float:
    """The features' edge blur in percent of the face's width."""
    return 100.0 * face_skin.blur_sigma(face) / face_skin.CANON_WIDTH


def luminance(image: np.ndarray) -> np.ndarray:
    """The photo's luminance (grey, RGB and RGBA arrays of one photo give the same).

    The whole analysis, the models included, sees brightness only: hue and saturation,
    and so the colour of the skin or of the light, cannot enter a landmark or a figure.
    """
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise TypeError("expected a uint8 numpy array")
    if image.ndim == 3 and image.shape[2] in (3, 4):
        return face_skin.luminance(image)
    if image.ndim != 2:
        raise ValueError(f"expected an RGB image of shape (h, w, 3), got {image.shape}")
    return np.ascontiguousarray(image)


def located_face(gray: np.ndarray) -> face_landmarks.FaceLandmarks:
    """The face's landmarks. A photo with no face found whose whole range of light is
    squeezed into a few grey levels near black (or white) is refused as too dark (or
    bright): that says what to change, where "no face" would not."""
    try:
        return face_landmarks.locate_face(gray)
    except ValidationFailed as refusal:
        if refusal.message != messages.NO_FACE_FOUND:
            raise
        low, median, high = np.percentile(gray, (1, 50, 99))
        if high - low < MIN_CONTRAST and median < 64:
            raise ValidationFailed(messages.FACE_TOO_DARK) from None
        if high - low < MIN_CONTRAST and median > 192:
            raise ValidationFailed(messages.FACE_TOO_BRIGHT) from None
        raise


def check_framing(points: np.ndarray, frame: FaceFrame, shape: tuple[int, int]) -> None:
    """Refuse a face cut off by the photo's edge, turned too far, or too small.

    In that order: a face in profile measures narrow, and "face the camera" is then
    the advice that helps, not "move closer".
    """
    height, width = shape
    outline = points[list(fp.FACE_OVAL), :2]
    outside = max(
        -outline[:, 0].min(),
        -outline[:, 1].min(),
        outline[:, 0].max() - width,
        outline[:, 1].max() - height,
    )
    if outside > MAX_OUTSIDE * frame.width:
        raise ValidationFailed(messages.FACE_CUT_OFF)
    if (
        abs(frame.yaw_degrees) > MAX_YAW
        or abs(frame.pitch_degrees) > MAX_PITCH
        or abs(frame.roll_degrees) > MAX_ROLL
    ):
        raise ValidationFailed(messages.FACE_NOT_FRONTAL)
    if frame.width < MIN_FACE_WIDTH:
        raise ValidationFailed(messages.FACE_TOO_SMALL)


def check_exposure(face: face_skin.CanonicalFace) -> face_skin.Exposure:
    """Refuse a face whose detail the exposure destroyed: much of it crushed to black or
    clipped to white, or too little contrast left to see its features; else its light."""
    light = face_skin.exposure(face)
    if light.dark_clipped > MAX_CLIPPED:
        raise ValidationFailed(messages.FACE_TOO_DARK)
    if light.features_bright_clipped > MAX_CLIPPED or light.bright_clipped > FACE_WASHED_OUT:
        raise ValidationFailed(messages.FACE_TOO_BRIGHT)
    if light.contrast < MIN_CONTRAST:
        too_dark = light.median < 128.0
        raise ValidationFailed(messages.FACE_TOO_DARK if too_dark else messages.FACE_TOO_BRIGHT)
    return light


def light_measures(face: face_skin.CanonicalFace, light: face_skin.Exposure) -> dict[str, float]:
    """The photo's light on the face (``face_photo`` reads it): its contrast, the share
    crushed or clipped, its middle level, and how differently its two halves are lit
    (in shares of its contrast)."""
    return {
        "light_contrast": light.contrast,
        "light_clipped": light.dark_clipped + light.bright_clipped,
        "light_median": light.median,
        "light_sides": face_skin.side_difference(face) / max(light.contrast, 1.0),
    }


def check_sharpness(blur_percent: float) -> None:
    if blur_percent > MAX_BLUR_PERCENT:
        raise ValidationFailed(messages.FACE_TOO_BLURRED)


def face_measures(
    landmarks: face_landmarks.FaceLandmarks, frame: FaceFrame, face
) -> dict[str, float]:
    """Every raw figure by name: pose, symmetry, proportions, skin and sharpness."""
    frontal = frame.frontal(landmarks.points)
    frontal_samples = np.stack([frame.frontal(sample) for sample in landmarks.samples])
    measures = {
        "yaw": frame.yaw_degrees,
        "pitch": frame.pitch_degrees,
        "roll": frame.roll_degrees,
        "face_width_pixels": frame.width,
        "sharpness": blur_percent(face),
    }
    measures.update(
        turn_corrected(face_proportions.symmetry(frontal, frontal_samples), frame.yaw_degrees)
    )
    measures.update(face_proportions.harmony(frontal))
    measures["lip_gap"] = face_proportions.lip_gap(frontal)
    texture = face_skin.skin_texture(face)
    measures.update({f"skin_{name}": value for name, value in texture.items()})
    measures["skin_evenness"] = float(np.median(list(texture.values()))) if texture else 0.0
    return measures


def turn_corrected(asymmetry: dict[str, float], yaw: float) -> dict[str, float]:
    """The symmetry figures without what a head turn adds (see the constants)."""
    raw = asymmetry["asymmetry"]
    if raw <= 0.0:
        return asymmetry
    excess = ASYMMETRY_PER_DEGREE_OF_YAW * max(0.0, abs(yaw) - 2.0)
    kept = max(MIN_ASYMMETRY_KEPT, (raw - excess) / raw)
    corrected = {key: value * kept for key, value in asymmetry.items()}
    corrected["asymmetry_raw"] = raw
    return corrected


def face_box(points: np.ndarray) -> tuple[int, int, int, int]:
    """The face's outline's bounding box (x, y, w, h) in photo pixels."""
    outline = points[list(fp.FACE_OVAL), :2]
    (x0, y0), (x1, y1) = outline.min(axis=0), outline.max(axis=0)
    return round(x0), round(y0), round(x1 - x0), round(y1 - y0)
