"""Symmetry and proportions of a face, measured on its landmarks in its own frame.

Every figure is taken from ``FaceFrame.frontal`` points: levelled, turned to face the
camera, in face widths (cheekbone to cheekbone). Where an expression moves a landmark
that a proportion relies on, the measure leaves the movement out: an open mouth's gap
between the lips is not counted in the lower face's height.
"""

from __future__ import annotations

import math

import numpy as np
from mediapipe.python.solutions import face_mesh_connections as connections

from prettyscore.analysis.engines import face_mesh_points as fp
from prettyscore.analysis.engines.face_geometry import distance


def _indices(connection_set) -> frozenset[int]:
    return frozenset(i for edge in connection_set for i in edge)


# The regions whose left-right pairs the symmetry figures compare.
_EYES = _indices(connections.FACEMESH_RIGHT_EYE) | _indices(connections.FACEMESH_LEFT_EYE)
_BROWS = _indices(connections.FACEMESH_RIGHT_EYEBROW) | _indices(connections.FACEMESH_LEFT_EYEBROW)
_NOSE = frozenset(fp.NOSE)
_MOUTH = _indices(connections.FACEMESH_LIPS)
_OUTLINE = frozenset(fp.FACE_OVAL)


def _pairs_in(region: frozenset[int]) -> np.ndarray:
    return np.array([pair for pair in fp.BILATERAL_PAIRS if pair[0] in region])


SYMMETRY_REGIONS = {
    "eyes": np.vstack([_pairs_in(_EYES), np.array([fp.IRIS_PAIR])]),
    "brows": _pairs_in(_BROWS),
    "nose": _pairs_in(_NOSE),
    "mouth": _pairs_in(_MOUTH),
    "jaw": _pairs_in(_OUTLINE),
}
ALL_PAIRS = np.array(fp.BILATERAL_PAIRS)


def mirror_distances(frontal: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """How far each pair's right point is from the mirror image of its left one, in
    face widths (the mirror is the face's fitted midline, x = 0 in its frame)."""
    return np.linalg.norm(mirror_offsets(frontal, pairs), axis=-1)


def mirror_offsets(frontal: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Each pair's right point minus the mirror image of its left one (x, y), along the
    last axis; ``frontal`` may be one face (N, 3) or several mesh runs (K, N, 3)."""
    right, left = frontal[..., pairs[:, 0], :], frontal[..., pairs[:, 1], :]
    return np.stack([right[..., 0] + left[..., 0], right[..., 1] - left[..., 1]], axis=-1)


def symmetry(frontal: np.ndarray, samples: np.ndarray | None = None) -> dict[str, float]:
    """Mean mirror distance per region and over all 220 pairs, in % of face width,
    without what the landmarks' own imprecision adds (``precision_share``)."""
    regions = {f"asymmetry_{name}": pairs for name, pairs in SYMMETRY_REGIONS.items()}
    regions["asymmetry"] = ALL_PAIRS
    figures = {}
    for key, pairs in regions.items():
        share = 1.0 if samples is None else precision_share(frontal, samples, pairs)
        figures[key] = 100.0 * share * float(mirror_distances(frontal, pairs).mean())
    return figures


def precision_share(frontal: np.ndarray, samples: np.ndarray, pairs: np.ndarray) -> float:
    """The share of the pairs' measured asymmetry that is the face's, not the mesh's.

    Landmarks placed imprecisely (a small, soft, noisy or dark photo) never fall exactly
    on a mirror pair, so imprecision only ever adds asymmetry, and it would lower the
    score of whoever has a worse photo, a darker skin included. The framings' scatter
    around their mean tells how much (``samples``: one set of landmarks per framing,
    each already the mean of the framing and its mirror image, which cancels the mesh's
    own left-right bias): the power of the mean's mirror offsets, less their expected
    noise power (the framings' variance over their number), gives the asymmetry's own
    power; the figure is scaled by the square root of its share.
    """
    runs = len(samples)
    if runs < 2:
        return 1.0
    measured = mirror_offsets(frontal, pairs)
    scatter = mirror_offsets(samples, pairs)
    noise_power = float(scatter.var(axis=0, ddof=1).sum(axis=-1).mean()) / runs
    signal_power = float((measured**2).sum(axis=-1).mean())
    if signal_power <= 0.0:
        return 1.0
    return math.sqrt(max(0.0, 1.0 - noise_power / signal_power))


def lip_gap(frontal: np.ndarray) -> float:
    """How far the lips are parted (inner upper lip to inner lower lip), face widths."""
    return max(0.0, float(frontal[14, 1] - frontal[fp.STOMION, 1]))


def harmony(frontal: np.ndarray) -> dict[str, float]:
    """The named proportions (see ``face_calibration.HARMONY`` for their ideals)."""
    f = frontal
    y = f[:, 1]
    gap = lip_gap(f)
    eye_width = (
        distance(f, fp.RIGHT_EYE_OUTER, fp.RIGHT_EYE_INNER)
        + distance(f, fp.LEFT_EYE_OUTER, fp.LEFT_EYE_INNER)
    ) / 2
    middle_third = y[fp.SUBNASALE] - y[fp.GLABELLA]
    lower_third = y[fp.MENTON] - y[fp.SUBNASALE] - gap
    upper_lip = y[fp.STOMION] - y[fp.SUBNASALE]
    below_lips = y[fp.MENTON] - y[14]
    return {
        "eye_spacing": distance(f, *fp.IRIS_PAIR),
        "eye_gap": distance(f, fp.RIGHT_EYE_INNER, fp.LEFT_EYE_INNER) / eye_width,
        "thirds": lower_third / middle_third,
        "lip_chin": upper_lip / below_lips,
        "mouth_nose": distance(f, *fp.MOUTH_CORNERS) / distance(f, *fp.NOSE_WINGS),
        "brows_lips_nose": (y[fp.STOMION] - y[fp.GLABELLA]) / (y[fp.SUBNASALE] - y[fp.NASION]),
        "eye_tilt": eye_tilt_degrees(f),
        "face_shape": y[fp.MENTON] - y[fp.FOREHEAD_TOP] - gap,
        "eye_openness": eye_openness(f),
    }


def eye_openness(frontal: np.ndarray) -> float:
    """How far the eyelids are apart, upper lid to lower at the eye's middle, in face
    widths: the mean of both eyes."""
    return (
        distance(frontal, fp.RIGHT_EYE_TOP, fp.RIGHT_EYE_BOTTOM)
        + distance(frontal, fp.LEFT_EYE_TOP, fp.LEFT_EYE_BOTTOM)
    ) / 2


def eye_tilt_degrees(frontal: np.ndarray) -> float:
    """How far the eyes' outer corners sit above their inner corners (the canthal tilt),
    in degrees, the mean of both eyes; positive when the outer corners are higher."""
    tilts = []
    for outer, inner in (
        (fp.RIGHT_EYE_OUTER, fp.RIGHT_EYE_INNER),
        (fp.LEFT_EYE_OUTER, fp.LEFT_EYE_INNER),
    ):
        rise = frontal[inner, 1] - frontal[outer, 1]
        run = abs(frontal[outer, 0] - frontal[inner, 0])
        tilts.append(math.degrees(math.atan2(rise, run)))
    return float(np.mean(tilts))
