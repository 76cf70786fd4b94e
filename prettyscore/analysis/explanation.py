""" "How we got your score": the measured lines drawn on the face, and each measure in words.

The picture is rendered here, on the server, from the analysis' ``overlay`` (the lines
it measured along, in the photo's pixels) on the part of the photo in ``view_box`` (the
face with a margin), and kept as a JPEG beside the photo in the same owner's folder: it
is as private as the photo, and a reload or My Photos shows the very same picture. The
browser receives its URL and the notes' short sentences, nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image

from prettyscore.analysis.engines.base import FaceAnalysis
from prettyscore.analysis.kinds import BREAKDOWN_NAMES
from prettyscore.core import images
from prettyscore.core.media import MediaStore, parse_key

# The picture's long side in pixels: sharp on a phone's 2–3× screen at its shown size.
PICTURE_SIDE = 720
JPEG_QUALITY = 88
# The colour of each part's lines (RGB), also the legend's dots on the page.
PART_COLOURS: dict[str, tuple[int, int, int]] = {
    "symmetry": (236, 72, 153),  # pink
    "facialHarmony": (250, 204, 21),  # gold
    "skinQuality": (45, 212, 191),  # teal
}
LINE_WIDTH = 2


@dataclass(frozen=True)
class Explanation:
    """What the panel shows: the picture's media key and the notes, one per measure."""

    image_key: str
    notes: list[dict]


def part_colour(part: str) -> str:
    """A part's colour as CSS hex, for the page's legend and note dots."""
    red, green, blue = PART_COLOURS.get(part, (148, 163, 184))
    return f"#{red:02x}{green:02x}{blue:02x}"


def explain(store: MediaStore, photo_key: str, pixels: np.ndarray, analysis: FaceAnalysis):
    """Render and store the picture next to ``photo_key``; None when the engine did not
    look (the ``simulated`` engine measures nothing, so it has nothing to show)."""
    if not analysis.overlay or analysis.view_box is None:
        return None
    picture = measured_picture(pixels, analysis)
    owner = parse_key(photo_key).owner
    key = store.save(images.encode_jpeg(picture, quality=JPEG_QUALITY), owner=owner, ext="jpg")
    return Explanation(image_key=key, notes=note_rows(analysis))


#: The note on the photo's part (``face_calibration.photo_notes``): its row also keeps
#: what the photo added to the person's score, so a saved photo's details can show how
#: the score follows from its bars.
PHOTO_NOTE_KEY = "photo"


def note_rows(analysis: FaceAnalysis) -> list[dict]:
    """Each measure as the page lists it: its part, its sentence, and whether it is in
    its ideal range (plain values only: they are stored as JSON with the photo); the
    photo's note also carries ``photo_effect``, the score less the person's."""
    rows = []
    for note in analysis.notes:
        row = {
            "part": note.part,
            "part_name": BREAKDOWN_NAMES.get(note.part, note.part),
            "text": note.text,
            "in_range": bool(note.in_ideal_range),
        }
        if note.key == PHOTO_NOTE_KEY and analysis.person_score is not None:
            row["photo_effect"] = round(analysis.score - analysis.person_score, 1)
        rows.append(row)
    return rows


def measured_picture(pixels: np.ndarray, analysis: FaceAnalysis) -> Image.Image:
    """The face (``view_box``) enlarged or reduced to ``PICTURE_SIDE``, with the lines."""
    x, y, width, height = analysis.view_box
    scale = PICTURE_SIDE / max(width, height)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    # Crop with an edge-coloured border where the view reaches past the photo.
    crop = cv2.getRectSubPix(
        np.ascontiguousarray(pixels), (width, height), (x + width / 2 - 0.5, y + height / 2 - 0.5)
    )
    picture = cv2.resize(crop, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
    picture = (picture.astype(np.float32) * 0.8).astype(np.uint8)  # lines stand out
    for line in analysis.overlay:
        points = (np.asarray(line.points, np.float64) - (x, y)) * scale
        colour = PART_COLOURS.get(line.part, (255, 255, 255))
        cv2.polylines(
            picture,
            [np.round(points * 16).astype(np.int32)],
            line.closed,
            colour,
            LINE_WIDTH,
            cv2.LINE_AA,
            shift=4,
        )
    return Image.fromarray(picture)
