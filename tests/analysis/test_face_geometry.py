"""The landmark tables and the face's own frame: what every symmetry and proportion uses.

The left-right pairs must follow the mesh's own structure (not one photo), and the
frame must take away the head's tilt and position without changing the face's shape.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from mediapipe.python.solutions import face_mesh_connections as connections

from prettyscore.analysis.engines import face_landmarks
from prettyscore.analysis.engines import face_mesh_points as fp
from prettyscore.analysis.engines.face_geometry import FaceFrame
from tests.fixtures import photos


@pytest.fixture(scope="module")
def astronaut_points() -> np.ndarray:
    return face_landmarks.locate_face(photos.astronaut()).points


def test_every_landmark_has_exactly_one_mirror_partner_or_lies_on_the_midline():
    paired = [i for pair in fp.BILATERAL_PAIRS for i in pair]
    assert len(paired) == len(set(paired)) == 440
    assert sorted(paired + list(fp.MIDLINE)) == list(range(468))


def test_the_pairs_map_the_meshs_triangles_onto_its_triangles():
    """Mirroring every edge of the mesh gives an edge of the mesh, except the diagonals
    of the three quads the mesh splits the other way on each side (6 of 1,322 edges)."""
    mirror = fp.MIRROR_INDEX
    edges = {tuple(sorted(edge)) for edge in connections.FACEMESH_TESSELATION}
    unmatched = [e for e in edges if tuple(sorted((mirror[e[0]], mirror[e[1]]))) not in edges]
    assert len(unmatched) == 6


def test_mirroring_twice_gives_every_landmark_back():
    mirror = fp.MIRROR_INDEX
    assert all(mirror[mirror[i]] == i for i in range(478))
    assert mirror[fp.RIGHT_PUPIL] == fp.LEFT_PUPIL
    assert mirror[fp.RIGHT_EYE_OUTER] == fp.LEFT_EYE_OUTER


def test_the_first_of_each_pair_is_on_the_persons_right(astronaut_points):
    """In an unmirrored portrait the person's right side is on the image's left."""
    pairs = np.array(fp.BILATERAL_PAIRS)
    right_x, left_x = astronaut_points[pairs[:, 0], 0], astronaut_points[pairs[:, 1], 0]
    assert np.mean(right_x < left_x) > 0.95


def test_the_outlines_follow_the_meshs_own_connections():
    for outline, connection_set in (
        (fp.FACE_OVAL, connections.FACEMESH_FACE_OVAL),
        (fp.LIPS_OUTER, connections.FACEMESH_LIPS),
        (fp.RIGHT_EYE, connections.FACEMESH_RIGHT_EYE),
        (fp.LEFT_EYE, connections.FACEMESH_LEFT_EYE),
    ):
        edges = {tuple(sorted(edge)) for edge in connection_set}
        steps = zip(outline, outline[1:] + outline[:1], strict=True)
        assert all(tuple(sorted(step)) in edges for step in steps)


def rotated_points(points: np.ndarray, degrees: float) -> np.ndarray:
    """The landmarks turned in the image plane about (100, 50) and shifted."""
    angle = math.radians(degrees)
    turn = np.array(
        [[math.cos(angle), -math.sin(angle), 0], [math.sin(angle), math.cos(angle), 0], [0, 0, 1]]
    )
    return (points - [100, 50, 0]) @ turn.T + [140, 80, 0]


def test_the_frame_takes_away_the_heads_tilt_and_position(astronaut_points):
    frame = FaceFrame.of(astronaut_points)
    tilted_points = rotated_points(astronaut_points, 15)
    tilted = FaceFrame.of(tilted_points)
    assert tilted.roll_degrees == pytest.approx(frame.roll_degrees + 15, abs=1e-6)
    assert np.allclose(tilted.frontal(tilted_points), frame.frontal(astronaut_points), atol=1e-9)


def test_a_frontal_portrait_faces_the_camera_and_measures_in_face_widths(astronaut_points):
    frame = FaceFrame.of(astronaut_points)
    assert abs(frame.yaw_degrees) < 5 and abs(frame.roll_degrees) < 6
    frontal = frame.frontal(astronaut_points)
    cheekbones = frontal[list(fp.CHEEKBONES), 0]
    assert abs(cheekbones[1] - cheekbones[0]) == pytest.approx(1.0)
    assert np.mean(frontal[list(fp.IRIS_PAIR), 1]) == pytest.approx(0.0, abs=1e-9)


def test_points_go_back_to_the_photo_where_they_came_from(astronaut_points):
    frame = FaceFrame.of(astronaut_points)
    back = frame.to_photo(frame.frontal(astronaut_points))
    assert np.allclose(back, astronaut_points[:, :2], atol=1e-6)
