"""Finding the one face in a photo and its 478 landmarks (MediaPipe, offline).

Two models, as MediaPipe's own pipeline does, but in two steps we control:

1. **Where are the faces?** The full-range face detector looks at a copy of the photo
   whose long side is at most ``DETECT_LONG_SIDE``: it finds faces from a selfie's to a
   full-length photo's (a 150-pixel face in a 2000-pixel photo). When it finds none in
   a large photo, it looks again in overlapping tiles, where a smaller face is big
   enough for it. Its boxes decide how many faces there are: a second face at least
   ``SECOND_FACE_MIN_RELATIVE_WIDTH`` of the main one's width is a second person.
2. **Its landmarks.** The main face is cut from the full-resolution photo with a margin
   and resized to ``MESH_CROP_SIDE`` pixels, so the mesh sees every face, large or
   small, at the same comfortable size, and its 478 points (x, y and a depth z on the
   same scale) are mapped back to the photo's pixels. The mesh looks at the face in
   several framings (``MESH_VIEWS``), each also mirrored, and the landmarks are their
   mean: one framing's landmarks move with the crop's exact edges and the pixels' grain,
   most on a small or soft face, and a figure taken from one of them would move with a
   photo's brightness or size as much as with the face.

Neither step depends on the face's brightness in absolute terms: both models were
trained on faces of every skin tone and lighting, nothing here thresholds a grey level,
and the mesh sees each crop with the face's range of light stretched to a standard one
(``levelled``), so a face in shadow is meshed as it would be in even light. Faces the
detector is sure of but the mesh cannot follow are heads turned to a profile; faces it
is unsure of and the mesh cannot follow are not faces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from prettyscore.analysis.engines import face_mesh_points as points
from prettyscore.analysis.engines import mediapipe_models
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed

# The detector looks at a copy with this long side (it works at 192 pixels inside).
DETECT_LONG_SIDE = 1024
# A copy made of whole blocks of pixels may be this much shorter (``shrunk``).
BLOCKS_ONLY_MIN_SHARE = 0.75
# A detection counts as a face from this confidence on (real faces: 0.75–0.97).
FACE_MIN_SCORE = 0.5
# The short-range detector, meant for faces filling the photo, now and then takes a
# large round thing for a face at low confidence: its faces count from this one.
SHORT_RANGE_MIN_SCORE = 0.65
# Above this confidence a face the mesh cannot follow is a turned head, not a mistake.
SURE_FACE_SCORE = 0.75
# When nothing was found, photos at least this large are searched again in tiles of a
# copy of that size (each TILE_SIDE pixels, as the detector sees it at 192).
TILE_SEARCH_LONG_SIDES = (1024, 2048)
TILE_SIDE = 512
# The mesh's own look at a whole photo counts only for a face filling this much of it.
WHOLE_MESH_MIN_SHARE = 0.3
# A second face counts when it is at least this wide relative to the main one.
SECOND_FACE_MIN_RELATIVE_WIDTH = 0.3
# The mesh looks at the main face cut with a margin (crop side / detected box side)
# and resized to MESH_CROP_SIDE pixels square. On a soft or unusual face its own
# detector may not fire at the first framing: the next margins are tried in turn.
MESH_CROP_MARGINS = (2.0, 1.5, 2.6)
MESH_CROP_SIDE = 384
# The framings the landmarks are averaged over: (margin, shift right, shift down), the
# shifts in box widths. Each costs two mesh runs (it and its mirror): a sharp face is
# meshed in the first only; a soft or small one, whose landmarks a single framing
# places less precisely, in all (``with_more_views``), so that its score moves less with
# the photo's light, colour and size (measured: tests/analysis/NOTES.md, 'Landmark
# framings').
MESH_VIEWS = ((2.0, 0.0, 0.0), (1.7, 0.0, 0.0), (2.3, 0.0, 0.0))
# The mesh sees each crop with the face's own range of light stretched to a standard
# one: these percentiles of the crop's middle (MESH_LEVEL_REGION of its side) become
# MESH_LEVEL_SPAN grey levels around mid-grey, the gain held within MESH_GAIN_LIMITS
# (``levelled``).
MESH_LEVEL_REGION = 0.5
MESH_LEVEL_PERCENTILES = (2.0, 98.0)
MESH_LEVEL_SPAN = 200.0
MESH_GAIN_LIMITS = (1.0 / 3.0, 4.0)


@dataclass(frozen=True)
class Detection:
    """A face the detector found: its box (x, y, w, h) in photo pixels and confidence."""

    x: float
    y: float
    w: float
    h: float
    score: float

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2

    def overlap_share(self, other: Detection) -> float:
        """The share of this box's area that ``other`` covers."""
        dx = min(self.x + self.w, other.x + other.w) - max(self.x, other.x)
        dy = min(self.y + self.h, other.y + other.h) - max(self.y, other.y)
        if dx <= 0 or dy <= 0:
            return 0.0
        return dx * dy / (self.w * self.h)


@dataclass(frozen=True)
class FaceLandmarks:
    """The one face: its detection and its 478 landmarks.

    ``points`` is a float64 array (478, 3): x and y in the photo's pixels, z the depth
    (smaller is nearer the camera) in the same unit, so the points form a true 3-D shape.
    They are the mean of ``samples`` (K, 478, 3): the landmarks of each framing the mesh
    looked at (each the mean of it and its mirror image), whose disagreement tells how
    precisely the landmarks could be placed on this photo.
    """

    detection: Detection
    points: np.ndarray
    samples: np.ndarray


def locate_face(image: np.ndarray) -> FaceLandmarks:
    """The landmarks of the one face in ``image`` (uint8, RGB or grey); refuses a photo
    without one.

    Raises ``ValidationFailed`` with the user's text: no face, several faces, or a face
    turned too far for the mesh to follow.
    """
    main = main_face(find_faces(image))
    samples = landmark_samples(image, main)
    if samples is None and main.score < SURE_FACE_SCORE:
        # An unsure detection the mesh cannot follow may be a speck beside the real
        # face, which fills the photo: the mesh's own look at the whole photo finds it.
        whole = whole_photo_face(image)
        if whole is not None:
            main, samples = whole, landmark_samples(image, whole)
    if samples is None:
        turned = main.score >= SURE_FACE_SCORE
        raise ValidationFailed(messages.FACE_NOT_FRONTAL if turned else messages.NO_FACE_FOUND)
    return FaceLandmarks(main, samples.mean(axis=0), samples)


def with_more_views(image: np.ndarray, landmarks: FaceLandmarks) -> FaceLandmarks:
    """``landmarks`` averaged with those of the other framings of ``MESH_VIEWS``: for a
    face whose landmarks one framing places imprecisely (a small or soft face)."""
    more = mesh_samples(image, landmarks.detection, MESH_VIEWS[1:])
    if more is None:
        return landmarks
    samples = np.concatenate([landmarks.samples, more])
    return FaceLandmarks(landmarks.detection, samples.mean(axis=0), samples)


def enlarged_for_mesh(face: Detection) -> bool:
    """Whether the mesh sees ``face`` enlarged in its first framing: its crop has fewer
    pixels than ``MESH_CROP_SIDE``, so the landmarks are placed on interpolated pixels,
    and each framing places them a little differently (``with_more_views``)."""
    return crop_side(face, MESH_VIEWS[0][0]) < MESH_CROP_SIDE


def crop_side(face: Detection, margin: float) -> float:
    """The side of the square the mesh looks at ``face`` in, with ``margin``, in photo
    pixels (before it is resized to ``MESH_CROP_SIDE``)."""
    return margin * max(face.w, face.h)


def landmark_samples(image: np.ndarray, face: Detection) -> np.ndarray | None:
    """Every mesh run's landmarks of ``face`` in the first framing of ``MESH_VIEWS``
    (``mesh_samples``); on a soft or unusual
    face the mesh's own detector may not fire at those framings, and the other margins
    of ``MESH_CROP_MARGINS`` are tried in turn."""
    samples = mesh_samples(image, face, MESH_VIEWS[:1])
    for margin in MESH_CROP_MARGINS[1:]:
        if samples is not None:
            break
        meshes = view_meshes(image, face, margin)
        samples = None if meshes is None else meshes.mean(axis=0, keepdims=True)
    return samples


def main_face(faces: list[Detection]) -> Detection:
    """The largest face; refuses none, or a second face of real size beside it."""
    if not faces:
        raise ValidationFailed(messages.NO_FACE_FOUND)
    ordered = sorted(faces, key=lambda face: (-face.w, face.y, face.x))
    main = ordered[0]
    for other in ordered[1:]:
        if other.w < SECOND_FACE_MIN_RELATIVE_WIDTH * main.w:
            break
        if other.overlap_share(main) < 0.3 and main.overlap_share(other) < 0.3:
            raise ValidationFailed(messages.SEVERAL_FACES)
    return main


def find_faces(image: np.ndarray) -> list[Detection]:
    """Every face the detectors are confident of, in photo pixels.

    Both detectors look: the full-range one finds small and distant faces, the
    short-range one faces that fill the photo (a tight crop, a soft selfie), which the
    first can miss. When neither finds one, a large photo is searched in overlapping
    tiles of ``TILE_SIDE`` pixels, first of the detection copy, then of a copy twice as
    large, where a face of 2–4% of the photo's side is big enough for the detector.
    Last, for a photo the face fills, the mesh itself looks at the whole of it: a face
    so tightly framed or soft that no detector box fits it.
    """
    small, factor = shrunk(image, DETECT_LONG_SIDE)
    faces = merged(detect(small, FULL_RANGE) + detect(small, SHORT_RANGE, SHORT_RANGE_MIN_SCORE))
    for long_side in TILE_SEARCH_LONG_SIDES:
        if faces or max(image.shape[:2]) < long_side:
            break
        tiled, tiled_factor = shrunk(image, long_side)
        faces = [scaled(face, factor / tiled_factor) for face in merged(detect_in_tiles(tiled))]
    if not faces:
        faces = meshed_whole(small)
    return [scaled(face, 1.0 / factor) for face in faces]


def whole_photo_face(image: np.ndarray) -> Detection | None:
    """The face the mesh finds looking at the whole photo, if it fills the photo."""
    small, factor = shrunk(image, DETECT_LONG_SIDE)
    faces = meshed_whole(small)
    return scaled(faces[0], 1.0 / factor) if faces else None


def shrunk(image: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
    """A copy whose long side is at most ``long_side`` (area averaging), and its scale.

    When averaging whole square blocks of pixels alone gives a copy of at least
    ``BLOCKS_ONLY_MIN_SHARE`` of ``long_side``, that is the copy: what the detectors see
    hardly differs, and an arbitrary scale after the blocks would cost a 12-megapixel
    photo's analysis several times what the blocks do.
    """
    longest = max(image.shape[:2])
    factor = min(1.0, long_side / longest)
    if factor >= 1.0:
        return image, 1.0
    step = math.ceil(longest / long_side)
    if longest // step >= BLOCKS_ONLY_MIN_SHARE * long_side:
        return block_averaged(image, step), 1 / step
    size = (max(1, round(image.shape[1] * factor)), max(1, round(image.shape[0] * factor)))
    return area_resized(image, size), factor


def block_averaged(image: np.ndarray, step: int) -> np.ndarray:
    """``image`` shrunk by averaging ``step`` × ``step`` blocks (the last rows and columns
    that do not fill one are left out). A power of two is halved in turn: OpenCV's
    bilinear resize at exactly half the size averages 2 × 2 blocks, faster than its area
    resize (each halving rounds to whole levels; measured: tests/analysis/NOTES.md,
    'Shrinking by whole blocks')."""
    height, width = image.shape[0] // step * step, image.shape[1] // step * step
    image = image[:height, :width]
    if step & (step - 1):
        return cv2.resize(image, (width // step, height // step), interpolation=cv2.INTER_AREA)
    while step > 1:
        height, width, step = height // 2, width // 2, step // 2
        image = cv2.resize(image, (width, height), interpolation=cv2.INTER_LINEAR)
    return image


def area_resized(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``image`` shrunk to ``size`` (width, height) by area averaging.

    Whole blocks of pixels are averaged first, which OpenCV does several times faster
    than an arbitrary scale (measured: tests/analysis/NOTES.md, 'Shrinking by whole
    blocks'), then the rest of the scale; the last few rows and columns that do not fill
    a block are left out.
    """
    step = min(image.shape[1] // size[0], image.shape[0] // size[1])
    if step >= 2:
        height, width = image.shape[0] // step * step, image.shape[1] // step * step
        image = cv2.resize(
            image[:height, :width], (width // step, height // step), interpolation=cv2.INTER_AREA
        )
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


FULL_RANGE = mediapipe_models.FULL_RANGE_FACE_DETECTOR
SHORT_RANGE = mediapipe_models.SHORT_RANGE_FACE_DETECTOR


def detect(
    image: np.ndarray, detector: mediapipe_models.PerThread, min_score: float = FACE_MIN_SCORE
) -> list[Detection]:
    """One detector's faces in ``image`` from ``min_score`` on, in its pixels."""
    result = detector.get().process(model_input(image))
    height, width = image.shape[:2]
    faces = []
    for found in result.detections or ():
        score = float(found.score[0])
        box = found.location_data.relative_bounding_box
        if score >= min_score and box.width > 0 and box.height > 0:
            faces.append(
                Detection(
                    box.xmin * width,
                    box.ymin * height,
                    box.width * width,
                    box.height * height,
                    score,
                )
            )
    return faces


def detect_in_tiles(image: np.ndarray) -> list[Detection]:
    """Faces found in overlapping tiles of ``TILE_SIDE`` pixels (a quarter overlap)."""
    faces = []
    for top in tile_starts(image.shape[0]):
        for left in tile_starts(image.shape[1]):
            tile = image[top : top + TILE_SIDE, left : left + TILE_SIDE]
            for face in detect(tile, FULL_RANGE):
                faces.append(Detection(face.x + left, face.y + top, face.w, face.h, face.score))
    return faces


def tile_starts(length: int) -> list[int]:
    """Where tiles of ``TILE_SIDE`` start along ``length`` pixels, a quarter overlapping,
    the last one flush with the end."""
    if length <= TILE_SIDE:
        return [0]
    stride = TILE_SIDE * 3 // 4
    starts = list(range(0, length - TILE_SIDE, stride))
    return starts + [length - TILE_SIDE]


def merged(faces: list[Detection]) -> list[Detection]:
    """One detection per face when overlapping tiles found the same face more than once."""
    kept: list[Detection] = []
    for face in sorted(faces, key=lambda f: (-f.score, f.y, f.x)):
        if all(face.overlap_share(other) < 0.3 for other in kept):
            kept.append(face)
    return kept


def meshed_whole(image: np.ndarray) -> list[Detection]:
    """The box of the face the mesh finds in the whole photo, if it fills the photo
    (at least ``WHOLE_MESH_MIN_SHARE`` of its short side): not a sure face."""
    result = mediapipe_models.FACE_MESH.get().process(model_input(image))
    if not result.multi_face_landmarks:
        return []
    height, width = image.shape[:2]
    xy = np.array([(p.x * width, p.y * height) for p in result.multi_face_landmarks[0].landmark])
    (x0, y0), (x1, y1) = xy.min(axis=0), xy.max(axis=0)
    side = max(x1 - x0, y1 - y0)
    if side < WHOLE_MESH_MIN_SHARE * min(height, width):
        return []
    return [Detection(x0, y0, side, side, FACE_MIN_SCORE)]


def model_input(image: np.ndarray) -> np.ndarray:
    """``image`` as the contiguous three-channel array the models take.

    The analysis hands over grey photos (luminance only): they are made three-channel
    here, on the small copies and crops the models see, never at the photo's full size.
    """
    if image.ndim == 2:
        return cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_GRAY2RGB)
    return np.ascontiguousarray(image)


def scaled(face: Detection, factor: float) -> Detection:
    return Detection(face.x * factor, face.y * factor, face.w * factor, face.h * factor, face.score)


def mesh_samples(
    image: np.ndarray, face: Detection, views: tuple[tuple[float, float, float], ...]
) -> np.ndarray | None:
    """The landmarks of ``face`` in each framing of ``views`` where the mesh found it
    (the mean of the framing and its mirror image), in photo pixels, stacked
    (K, 478, 3); None when it found it in none.

    The views are cut from one copy of the face's surroundings, shrunk once, so that a
    12-megapixel photo is area-averaged once, not once per view.
    """
    region, offset, factor = surroundings(image, face, views)
    local = scaled(
        Detection(face.x - offset[0], face.y - offset[1], face.w, face.h, face.score), factor
    )
    found = []
    for margin, right, down in views:
        view = Detection(local.x + right * local.w, local.y + down * local.h, local.w, local.h, 1.0)
        meshes = view_meshes(region, view, margin, inside_of=local)
        if meshes is not None:
            found.append(meshes.mean(axis=0))
    if not found:
        return None
    samples = np.stack(found) / factor
    samples[:, :, 0] += offset[0]
    samples[:, :, 1] += offset[1]
    return samples


def surroundings(
    image: np.ndarray, face: Detection, views: tuple[tuple[float, float, float], ...]
) -> tuple[np.ndarray, np.ndarray, float]:
    """The part of ``image`` the ``views`` of ``face`` cover, shrunk (area averaging) so
    a view's crop is at most ``MESH_CROP_SIDE`` pixels; its offset and scale in the photo."""
    reach = max(margin / 2 + max(abs(right), abs(down)) for margin, right, down in views)
    side = max(face.w, face.h)
    centre_x, centre_y = face.centre
    height, width = image.shape[:2]
    x0, y0 = max(0, int(centre_x - reach * side)), max(0, int(centre_y - reach * side))
    x1 = min(width, int(np.ceil(centre_x + reach * side)) + 1)
    y1 = min(height, int(np.ceil(centre_y + reach * side)) + 1)
    region = image[y0:y1, x0:x1]
    smallest_crop = crop_side(face, min(margin for margin, _, _ in views))
    factor = min(1.0, MESH_CROP_SIDE / smallest_crop)
    if factor < 1.0:
        size = (max(1, round(region.shape[1] * factor)), max(1, round(region.shape[0] * factor)))
        region = area_resized(region, size)
    return region, np.array([x0, y0], dtype=np.float64), factor


def mesh_points(image: np.ndarray, face: Detection, margin: float) -> np.ndarray | None:
    """The 478 landmarks of ``face`` in photo pixels (the mean of ``view_meshes``), or
    None when the mesh finds none."""
    meshes = view_meshes(image, face, margin)
    return None if meshes is None else meshes.mean(axis=0)


def view_meshes(
    image: np.ndarray, face: Detection, margin: float, inside_of: Detection | None = None
) -> np.ndarray | None:
    """The landmarks of ``face`` seen in one framing and in its mirror image (K, 478, 3;
    K is 1 when only one of them finds the face), in photo pixels; None when neither does.

    The face is cut with ``margin`` from the full-resolution photo (area averaging when
    shrinking, so a 12-megapixel photo gives the crop a small one does) and meshed at
    ``MESH_CROP_SIDE`` pixels. A mesh whose nose lies outside the detected box is of
    another face, or of none: it is not this face's (``inside_of``: the box to check
    against, when ``face`` is a shifted framing of it).
    """
    side = max(8, round(crop_side(face, margin)))
    centre_x, centre_y = face.centre
    left, top = round(centre_x - side / 2), round(centre_y - side / 2)
    meshes = mirrored_meshes(levelled(cut_square(image, left, top, side)))
    if not meshes:
        return None
    found = np.stack(meshes) * side
    found[:, :, 0] += left
    found[:, :, 1] += top
    nose_x, nose_y = found[:, points.NOSE_TIP, :2].mean(axis=0)
    box = inside_of or face
    inside = box.x <= nose_x <= box.x + box.w and box.y <= nose_y <= box.y + box.h
    return found if inside else None


def mirrored_meshes(crop: np.ndarray) -> list[np.ndarray]:
    """The mesh of ``crop`` and the mesh of its mirror image (in crop widths), the
    mirror's points flipped back, each landmark with its mirror partner.

    The mesh's model is not exactly mirror-symmetric: a selfie and its mirrored copy
    would get slightly different landmarks, and so different symmetry figures. Meshing
    both and averaging makes a photo and its mirror image measure exactly alike, and
    halves the landmarks' jitter. When only one of the two finds the face, it is used
    alone.
    """
    meshes = []
    for mirrored in (False, True):
        view = crop[:, ::-1] if mirrored else crop
        result = mediapipe_models.FACE_MESH.get().process(model_input(view))
        if result.multi_face_landmarks:
            mesh = np.array(
                [(p.x, p.y, p.z) for p in result.multi_face_landmarks[0].landmark],
                dtype=np.float64,
            )
            meshes.append(unmirrored(mesh) if mirrored else mesh)
    return meshes


def unmirrored(mesh: np.ndarray) -> np.ndarray:
    """The landmarks of a mirrored crop as landmarks of the crop itself (crop widths)."""
    flipped = mesh[list(points.MIRROR_INDEX)]
    flipped[:, 0] = 1.0 - flipped[:, 0]
    return flipped


def levelled(crop: np.ndarray) -> np.ndarray:
    """``crop`` with the face's range of light stretched to a standard one.

    The crop's middle (``MESH_LEVEL_REGION`` of its side, the face's box at the first
    framing's margin) has its ``MESH_LEVEL_PERCENTILES`` mapped linearly to
    ``MESH_LEVEL_SPAN`` grey levels around mid-grey. A face in shadow, a darker skin in
    a photo exposed for a lighter background, or a face washed out by light is then
    meshed as it would be in even light, so its landmarks, and its symmetry and
    proportions, do not move with the light. Each framing is levelled from its own
    crop's middle, not every framing from the same region of the photo (the detected
    box; measured: tests/analysis/NOTES.md, 'Levelling the mesh's view').
    """
    side = crop.shape[0]
    border = round(side * (1.0 - MESH_LEVEL_REGION) / 2)
    middle = crop[border : side - border, border : side - border]
    low, high = np.percentile(middle, MESH_LEVEL_PERCENTILES)
    gain = float(np.clip(MESH_LEVEL_SPAN / max(high - low, 1.0), *MESH_GAIN_LIMITS))
    stretched = (crop.astype(np.float32) - (low + high) / 2.0) * gain + 128.0
    return np.clip(stretched, 0.0, 255.0).astype(np.uint8)


def cut_square(image: np.ndarray, left: int, top: int, side: int) -> np.ndarray:
    """The square (left, top, side) of ``image``, resized to ``MESH_CROP_SIDE`` pixels.

    Parts outside the photo are filled with the nearest edge pixels, which keeps a face
    at the photo's border looking like a face to the mesh.
    """
    height, width = image.shape[:2]
    right, bottom = left + side, top + side
    inside = image[max(0, top) : min(height, bottom), max(0, left) : min(width, right)]
    padded = cv2.copyMakeBorder(
        inside,
        max(0, -top),
        max(0, bottom - height),
        max(0, -left),
        max(0, right - width),
        cv2.BORDER_REPLICATE,
    )
    shrinking = side > MESH_CROP_SIDE
    return cv2.resize(
        padded,
        (MESH_CROP_SIDE, MESH_CROP_SIDE),
        interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR,
    )
