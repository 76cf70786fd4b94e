"""The face's own frame, its pose, and the measures taken from its landmarks.

The mesh's points are 3-D (x, y in photo pixels, z a depth on the same scale). Before
anything is measured they are put in the face's own frame:

- its left-right axis is the mean direction from each landmark on the person's right
  to its mirror on their left (220 pairs: ``face_mesh_points.BILATERAL_PAIRS``), so the
  frame is levelled on the eyes and brows and mouth and jaw all at once, not one pair;
- its up-down axis follows the landmarks of the midline, made square to the first;
- the third axis points out of the face.

Turning the points into that frame removes the head's roll (tilt in the photo) and
small turns left-right (yaw) and up-down (pitch): a proportion is then measured as if
the face looked straight at the camera. The angles themselves decide whether the head
is turned too far to measure at all. Distances are in face widths (cheekbone to
cheekbone), so the size of the face in the photo never enters a measure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from prettyscore.analysis.engines import face_mesh_points as fp

_RIGHT = np.array([pair[0] for pair in fp.BILATERAL_PAIRS])
_LEFT = np.array([pair[1] for pair in fp.BILATERAL_PAIRS])
_MIDLINE = np.array(fp.MIDLINE_PROFILE)


@dataclass(frozen=True)
class FaceFrame:
    """Where the face is and how it is turned.

    ``rotation``'s rows are the face's axes (right-to-left, top-to-bottom, out of the
    face) in photo coordinates; ``origin`` (photo pixels, with depth) lies on the mirror
    axis at the pupils' height; ``width`` is the face's width in photo pixels.
    """

    origin: np.ndarray
    rotation: np.ndarray
    width: float

    @classmethod
    def of(cls, points: np.ndarray) -> FaceFrame:
        """The frame of a face from its 478 landmarks (photo pixels and depth)."""
        across = (points[_LEFT] - points[_RIGHT]).sum(axis=0)
        across /= np.linalg.norm(across)
        down = principal_direction(points[_MIDLINE])
        if np.dot(down, points[fp.MENTON] - points[fp.FOREHEAD_TOP]) < 0:
            down = -down
        down -= across * np.dot(down, across)
        down /= np.linalg.norm(down)
        rotation = np.stack([across, down, np.cross(across, down)])
        turned = points @ rotation.T
        width = float(abs(turned[fp.CHEEKBONES[1], 0] - turned[fp.CHEEKBONES[0], 0]))
        axis_x = float(np.mean((turned[_LEFT, 0] + turned[_RIGHT, 0]) / 2))
        eye_y = float(np.mean(turned[list(fp.IRIS_PAIR), 1]))
        depth = float(np.mean(turned[_MIDLINE, 2]))
        origin = rotation.T @ np.array([axis_x, eye_y, depth])
        return cls(origin, rotation, width)

    def frontal(self, points: np.ndarray) -> np.ndarray:
        """``points`` (N, 3) in the face's frame, in face widths: x to the person's left,
        y down, 0 on the mirror axis at the pupils' height."""
        return (points - self.origin) @ self.rotation.T / self.width

    def to_photo(self, frontal: np.ndarray) -> np.ndarray:
        """Points given in the face's frame (N, 2 or 3; depth 0 if absent) in photo pixels."""
        frontal = np.asarray(frontal, dtype=np.float64)
        if frontal.shape[1] == 2:
            frontal = np.hstack([frontal, np.zeros((len(frontal), 1))])
        return (frontal * self.width @ self.rotation + self.origin)[:, :2]

    @property
    def roll_degrees(self) -> float:
        """Tilt of the head in the photo (the face's left-right axis against the horizontal)."""
        return math.degrees(math.atan2(self.rotation[0, 1], self.rotation[0, 0]))

    @property
    def yaw_degrees(self) -> float:
        """Turn to one side: 0 facing the camera."""
        return math.degrees(math.asin(float(np.clip(self.rotation[0, 2], -1.0, 1.0))))

    @property
    def pitch_degrees(self) -> float:
        """Nod up or down: 0 facing the camera."""
        return math.degrees(math.asin(float(np.clip(self.rotation[1, 2], -1.0, 1.0))))


def principal_direction(points: np.ndarray) -> np.ndarray:
    """The unit direction along which ``points`` (N, 3) spread most."""
    centred = points - points.mean(axis=0)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    return axes[0]


def distance(frontal: np.ndarray, a: int, b: int, dims: slice = slice(0, 2)) -> float:
    """Distance between two landmarks in the frontal view (x and y only by default)."""
    return float(np.linalg.norm(frontal[a, dims] - frontal[b, dims]))


def mean_point(frontal: np.ndarray, indices) -> np.ndarray:
    return frontal[list(indices)].mean(axis=0)
