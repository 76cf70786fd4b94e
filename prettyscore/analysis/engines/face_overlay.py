"""The lines a face was measured along, for the "How we got your score" picture.

Each line is in the photo's pixels and belongs to the part of the breakdown it explains:

- symmetry: the fitted mirror axis, and the lines joining the eyes, the brows' ends,
  the mouth's corners and the jaw's angles (level and centred on the axis when the
  face is symmetric);
- facial harmony: the face's outline, its length (forehead to chin) and width
  (cheekbone to cheekbone), and each eye's opening (upper lid to lower lid);
- skin quality: the outlines of the cheek and forehead patches whose texture was read.
"""

from __future__ import annotations

import cv2
import numpy as np

from prettyscore.analysis.engines import face_mesh_points as fp
from prettyscore.analysis.engines.base import OverlayLine
from prettyscore.analysis.engines.face_calibration import HARMONY, SKIN, SYMMETRY
from prettyscore.analysis.engines.face_geometry import FaceFrame
from prettyscore.analysis.engines.face_skin import CanonicalFace

# The picture shows the face's outline with this margin (in face widths) around it.
VIEW_MARGIN = 0.3


def overlay_lines(
    points: np.ndarray, frame: FaceFrame, face: CanonicalFace, patches: dict[str, np.ndarray]
) -> tuple[OverlayLine, ...]:
    """Every measured line, in photo pixels (rounded to a tenth of a pixel)."""
    lines = symmetry_lines(points, frame) + harmony_lines(points, frame)
    lines += patch_outlines(face, patches)
    return tuple(
        OverlayLine(
            line.part, tuple((round(x, 1), round(y, 1)) for x, y in line.points), line.closed
        )
        for line in lines
    )


def _line(part: str, xy: np.ndarray, closed: bool = False) -> OverlayLine:
    return OverlayLine(part, tuple((float(x), float(y)) for x, y in xy), closed)


def _segment(part: str, points: np.ndarray, a: int, b: int) -> OverlayLine:
    return _line(part, points[[a, b], :2])


def symmetry_lines(points: np.ndarray, frame: FaceFrame) -> tuple[OverlayLine, ...]:
    frontal = frame.frontal(points)
    top, bottom = frontal[fp.FOREHEAD_TOP, 1], frontal[fp.MENTON, 1]
    axis = frame.to_photo(np.array([[0.0, top - 0.05], [0.0, bottom + 0.05]]))
    pairs = (fp.IRIS_PAIR, (70, 300), fp.MOUTH_CORNERS, fp.JAW_ANGLES)
    return (_line(SYMMETRY, axis),) + tuple(_segment(SYMMETRY, points, *pair) for pair in pairs)


def harmony_lines(points: np.ndarray, frame: FaceFrame) -> tuple[OverlayLine, ...]:
    frontal = frame.frontal(points)
    outline = _line(HARMONY, points[list(fp.FACE_OVAL), :2], closed=True)
    top, bottom = frontal[fp.FOREHEAD_TOP, 1], frontal[fp.MENTON, 1]
    length = _line(HARMONY, frame.to_photo(np.array([[0.0, top], [0.0, bottom]])))
    width = _segment(HARMONY, points, *fp.CHEEKBONES)
    eyes = (
        _segment(HARMONY, points, fp.RIGHT_EYE_TOP, fp.RIGHT_EYE_BOTTOM),
        _segment(HARMONY, points, fp.LEFT_EYE_TOP, fp.LEFT_EYE_BOTTOM),
    )
    return (outline, length, width, *eyes)


def patch_outlines(face: CanonicalFace, patches: dict[str, np.ndarray]) -> tuple[OverlayLine, ...]:
    """The skin patches' outlines, taken back from the canonical face to the photo."""
    lines = []
    for name in sorted(patches):
        contours, _ = cv2.findContours(patches[name], cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if contours:
            largest = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
            lines.append(_line(SKIN, face.to_photo(largest), closed=True))
    return tuple(lines)


def view_box(points: np.ndarray, frame: FaceFrame, shape: tuple[int, int]) -> tuple[int, ...]:
    """The part of the photo the picture shows: the face's outline with a margin, as a
    square (x, y, w, h) inside the photo where it fits."""
    outline = points[list(fp.FACE_OVAL), :2]
    (x0, y0), (x1, y1) = outline.min(axis=0), outline.max(axis=0)
    side = max(x1 - x0, y1 - y0) + 2 * VIEW_MARGIN * frame.width
    centre_x, centre_y = (x0 + x1) / 2, (y0 + y1) / 2
    height, width = shape
    side = min(side, width, height)
    left = min(max(0.0, centre_x - side / 2), width - side)
    top = min(max(0.0, centre_y - side / 2), height - side)
    return round(left), round(top), round(side), round(side)
