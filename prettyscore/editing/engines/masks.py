"""Where the person is: the face box and soft masks for the subject, hair, outfit and face.

The masks come from the MediaPipe models bundled in the ``mediapipe`` wheel
(``analysis.engines.mediapipe_models``): they work offline, and a model trained on people
follows hair, shoulders and hands where a colour model such as GrabCut (used before)
lost them against a background of similar colour (a dark suit before dark curtains, an
orange suit before a red flag) and cut the head or kept a corner of the room.

Everything is worked out on a small copy (long side ``WORK_LONG_SIDE``), so the cost
hardly depends on the photo's resolution, then enlarged and feathered on demand:

- the face box is the largest face MediaPipe's full-range detector finds (the
  short-range one for a face that fills the frame); a centred guess when there is none;
- Face Mesh, run as the score's analysis runs it (``face_landmarks.mesh_points``) on a
  crop around that face, so that it describes that face even in a group photo, gives
  its outline and the skin's colour;
- the subject is the selfie segmentation's soft mask, its edges drawn onto the photo's
  own edges (a guided filter), keeping only the person who holds the face, holes filled;
  a photo where it finds no one gets a head-and-shoulders shape around the face guess;
- hair is told from skin by its own colour, sampled where it surely is (the subject just
  above the face, inside the head's width, not skin-coloured): the subject's pixels
  (before a plain backdrop, a little past them: loose curls and locks) likelier that
  colour than the skin's and the backdrop's (below the chin, than the clothes' too),
  joined to the sample, down past the chin for long hair, never inside the face's
  outline grown a little, nor on the neck's middle. A bald head gives no sample, and no
  hair;
- the outfit follows the body: MediaPipe's pose (its shoulders and hips, placed below the
  frame when out of it) gives the torso; beside it, sleeves and arms are what has the
  clothes' colour and joins the torso's clothes (a held helmet or bag is not); all within
  the subject, minus bare skin (the skin's colour likelier than the clothes', sampled on
  the chest), the face and the hair, which stays in front; its top is where the skin
  ends, the real neckline. With no body found, the subject below the jaw that is not skin;
- the face is the outline itself;
- the skin to retouch is the face's outline without the features a retoucher keeps
  sharp (eyes, brows, nose, lips, each with a margin), drawn from the full-size mesh.

Same pixels, same masks: the models run in still-image mode and nothing here is random.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from prettyscore import analysis
from prettyscore.analysis import POSE, SELFIE_SEGMENTATION, polygon_mask
from prettyscore.analysis import face_mesh_points as fp

WORK_LONG_SIDE = 512
# Face Mesh sees a square crop this many face-box sides wide.
MESH_CROP_RATIO = 2.0
# The selfie segmentation's share of the photo below which it has found no one.
MIN_SUBJECT_SHARE = 0.01
# Retouching leaves these features sharp, each grown by a share of the face's width: a
# little more than the score's analysis reads their edges from (``face_skin.features_mask``),
# so smoothing the skin never softens what says how sharp the photo is. The outline is
# pulled in by RETOUCH_INSET (the jaw line stays crisp) and the mask feathered over
# RETOUCH_FEATHER, both in face widths.
RETOUCH_KEPT_FEATURES = (
    (fp.RIGHT_EYE, 0.06),
    (fp.LEFT_EYE, 0.06),
    (fp.RIGHT_BROW + fp.RIGHT_BROW_LOWER, 0.05),
    (fp.LEFT_BROW + fp.LEFT_BROW_LOWER, 0.05),
    (fp.LIPS_OUTER, 0.05),
    (fp.NOSE, 0.035),
)
RETOUCH_INSET = 0.03
RETOUCH_FEATHER = 0.012
# What is not skin-coloured but smaller than this (face widths) is smoothed with the skin.
RETOUCH_SPOT = 0.1
# The retouching mask is drawn with the face at most this wide (pixels), then enlarged.
RETOUCH_DRAWN_WIDTH = 320
# The face's outline grown by this share of its width: hair and clothes never reach in.
FACE_MARGIN = 0.04
# Hair is sampled in a band this many face heights above the top of the face's mesh,
# this many face widths either side of its midline; fewer pixels than HAIR_MIN_SAMPLE
# there (a bald or shaved head) and the photo has no hair region.
HAIR_SAMPLE_HEIGHT = 0.45
HAIR_SAMPLE_HALF_WIDTH = 0.45
HAIR_MIN_SAMPLE = 30
# The least spread (Lab) of the hair's colour.
HAIR_MODEL_FLOOR = (8.0, 4.0, 4.0)
# Long hair reaches at most this many face widths below the chin and this many face
# widths either side of the midline.
HAIR_REACH_BELOW_CHIN = 2.2
HAIR_REACH_ACROSS = 1.5
# Further below the chin than this (face widths), hair is only what is thicker than a
# line (a lock, not the shadow along a neckline).
LOCKS_BELOW_CHIN = 0.35
# Below the chin, hair is never within this many face widths of the face's midline.
NECK_HALF_WIDTH = 0.3
# Hair not joined to the head's own (long hair behind an ear) counts within HAIR_HOPS
# hops of HAIR_HOP face widths each (HAIR_HOP_BELOW_CHIN below the chin).
HAIR_HOPS = 2
HAIR_HOP = 0.15
HAIR_HOP_BELOW_CHIN = 0.1
# The least spread (Lab) of the skin's colour when it is weighed against hair or clothes.
SKIN_MODEL_FLOOR = np.array([6.0, 3.5, 3.5], np.float32)
# Hair may reach this many face widths past the person mask (loose locks and curls).
HAIR_BEYOND_SUBJECT = 0.1
# A backdrop whose colour spreads less than this (Lab) is plain (a wall, a studio sweep).
PLAIN_BACKDROP_SPREAD = np.array([8.0, 4.0, 4.0], np.float32)
# The least spread (Lab) of the backdrop's colour: a plain studio wall still shades.
BACKDROP_MODEL_FLOOR = (5.0, 2.5, 2.5)
# The least spread of the clothes' colour: folds and shade darken a white shirt a lot.
CLOTH_MODEL_FLOOR = (14.0, 2.5, 2.5)
# How much each of L, a, b counts when a pixel's colour is weighed against a model.
COST_WEIGHTS = np.array([0.5, 1.0, 1.0], np.float32)
# The body's landmarks of MediaPipe's pose model (its numbering).
LEFT_SHOULDER, RIGHT_SHOULDER = 11, 12
LEFT_HIP, RIGHT_HIP = 23, 24
# The torso's zone reaches this share of the shoulders' span past each shoulder joint.
TORSO_MARGIN = 0.12
# Beside the torso, clothes are what lies within this many spreads of the clothes'
# colour (softly, over the second number), joined to the torso's clothes.
CLOTH_LIKE_SPREADS = (2.5, 3.5)


@dataclass(frozen=True)
class FaceBox:
    x: float
    y: float
    w: float
    h: float

    def scaled(self, factor: float) -> FaceBox:
        return FaceBox(self.x * factor, self.y * factor, self.w * factor, self.h * factor)

    @property
    def centre_x(self) -> float:
        return self.x + self.w / 2

    @property
    def centre_y(self) -> float:
        return self.y + self.h / 2


@dataclass(frozen=True)
class Head:
    """Where the head sits, in the photo's pixels: the face's midline at the chin, the
    chin's and the ears' rows, the face's width and the top of the forehead."""

    chin_x: float
    chin_y: float
    cheek_y: float
    face_width: float
    forehead_y: float

    @property
    def face_height(self) -> float:
        return max(self.chin_y - self.forehead_y, 1.0)


def work_copy(image: np.ndarray, long_side: int = WORK_LONG_SIDE) -> tuple[np.ndarray, float]:
    """A copy with long side at most ``long_side``, and the factor it was scaled by."""
    factor = min(1.0, long_side / max(image.shape[:2]))
    if factor >= 1.0:
        return np.ascontiguousarray(image), 1.0
    size = (max(1, round(image.shape[1] * factor)), max(1, round(image.shape[0] * factor)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA), factor


# --- The face ------------------------------------------------------------------------------


def detect_face(small: np.ndarray) -> FaceBox | None:
    """The largest face in ``small`` (RGB), or None, found by the analysis' detectors.

    The full-range model finds faces from a close portrait to a figure across a room;
    the short-range one is asked only when it finds none (a face filling the frame).
    """
    for detector in (analysis.FULL_RANGE, analysis.SHORT_RANGE):
        faces = analysis.detect(small, detector)
        if faces:
            face = max(faces, key=lambda f: (round(f.w * f.h, 3), -f.y, -f.x))
            return FaceBox(face.x, face.y, face.w, face.h)
    return None


def centred_box(width: int, height: int) -> FaceBox:
    """Where a portrait's face usually is: centred, in the upper part."""
    side = 0.28 * min(width, height)
    return FaceBox(width / 2 - side / 2, 0.22 * height, side, side)


def face_landmarks(image: np.ndarray, box: FaceBox) -> np.ndarray | None:
    """Face Mesh's 478 points (x, y in ``image``'s pixels) for the face in ``box``, or
    None: the analysis' own meshing of a crop around the face, so that it describes this
    face, not another one in the photo."""
    face = analysis.Detection(box.x, box.y, box.w, box.h, score=1.0)
    points = analysis.mesh_points(image, face, MESH_CROP_RATIO)
    return None if points is None else points[:, :2].astype(np.float32)


def filled_polygon(shape: tuple[int, int], points: np.ndarray) -> np.ndarray:
    """A 0–1 float32 mask of a polygon, drawn anti-aliased at sub-pixel precision."""
    canvas = np.zeros(shape, np.uint8)
    fixed = np.round(points * 16).astype(np.int32)
    cv2.fillPoly(canvas, [fixed], 255, lineType=cv2.LINE_AA, shift=4)
    return canvas.astype(np.float32) * np.float32(1 / 255)


def face_oval(shape: tuple[int, int], box: FaceBox) -> np.ndarray:
    """A filled ellipse (0/1 uint8) over the face inside its box, forehead included.

    Used when Face Mesh has no outline for the face (a centred guess, a face in profile).
    """
    oval = np.zeros(shape, np.uint8)
    centre = (round(box.centre_x), round(box.y + 0.56 * box.h))
    axes = (max(1, round(0.40 * box.w)), max(1, round(0.58 * box.h)))
    cv2.ellipse(oval, centre, axes, 0, 0, 360, 1, -1)
    return oval


# --- Skin ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SkinTone:
    """The face's skin colour in Lab: a middle and a spread, from pixels inside the oval."""

    middle: np.ndarray
    spread: np.ndarray

    @classmethod
    def sampled(cls, lab: np.ndarray, face: np.ndarray) -> SkinTone | None:
        """Robust statistics of the face's pixels; eyes, brows, lips and teeth weigh little."""
        pixels = lab[face > 0.99]
        if len(pixels) < 50:
            return None
        middle = np.median(pixels, axis=0)
        spread = 1.4826 * np.median(np.abs(pixels - middle), axis=0)
        return cls(middle, np.maximum(spread, np.array([6.0, 2.5, 2.5], np.float32)))

    def likeness(self, lab: np.ndarray) -> np.ndarray:
        """1 for the face's skin colour, falling to 0 a few spreads away (0–1 float32).

        Colour (a, b) decides; lightness only rules out what is far darker or lighter, so
        a shadowed neck or a lit hand still counts as skin.
        """
        distance = (lab - self.middle) / self.spread
        colour = np.sqrt(distance[..., 1] ** 2 + distance[..., 2] ** 2)
        light = np.abs(distance[..., 0]) / 2.5
        return (1.0 - smoothstep(np.maximum(colour, light), 2.0, 3.0)).astype(np.float32)


@dataclass(frozen=True)
class ColourModel:
    """A colour (Lab) as a middle and a spread per channel: a diagonal Gaussian, so two
    models can say which one a pixel more likely belongs to, each by its own spread
    (textured hair has a wide one, a plain shirt a narrow one)."""

    middle: np.ndarray
    spread: np.ndarray

    @classmethod
    def sampled(cls, pixels: np.ndarray, floor: tuple[float, float, float]) -> ColourModel | None:
        """Robust statistics (median, scaled MAD) of ``pixels`` (n×3 Lab); None if too few."""
        if len(pixels) < HAIR_MIN_SAMPLE:
            return None
        middle = np.median(pixels, axis=0)
        spread = 1.4826 * np.median(np.abs(pixels - middle), axis=0)
        return cls(middle, np.maximum(spread, np.array(floor, np.float32)))

    def cost(self, lab: np.ndarray) -> np.ndarray:
        """Minus the log-likelihood of each pixel's colour (up to a constant shared by
        every model): lower is likelier. Lightness weighs less than colour: light and
        shade move it across a neck or a lock of hair."""
        distance = (lab - self.middle) / self.spread * COST_WEIGHTS
        return (0.5 * (distance**2).sum(axis=-1) + np.log(self.spread).sum()).astype(np.float32)


def likelier(first: np.ndarray, second: np.ndarray, margin: float = 1.0) -> np.ndarray:
    """0–1: how surely the first of two costs is the lower one (soft over ``margin``)."""
    return smoothstep(second - first, -margin, margin).astype(np.float32)


# --- The body ------------------------------------------------------------------------------


def body_points(small: np.ndarray) -> np.ndarray | None:
    """The pose model's 33 body landmarks (x, y in ``small``'s pixels; points outside the
    frame are where the model places them), or None when it finds no one."""
    result = POSE.get().process(np.ascontiguousarray(small))
    if result.pose_landmarks is None:
        return None
    height, width = small.shape[:2]
    return np.array(
        [(point.x * width, point.y * height) for point in result.pose_landmarks.landmark],
        np.float32,
    )


def torso_zone(
    shape: tuple[int, int], points: np.ndarray, chin_y: float, face_width: float
) -> np.ndarray:
    """Where the body's own clothes surely are (0–1): the torso from the chin's row down
    between the shoulders and the hips (below the frame when they are out of the
    picture), a little wider than the joints. Sleeves, an arm and what the person holds
    lie beside it: ``Regions.small_outfit`` takes of those only what has the clothes'
    colour."""
    shoulders = points[[LEFT_SHOULDER, RIGHT_SHOULDER]]
    hips = points[[LEFT_HIP, RIGHT_HIP]]
    span = max(float(np.linalg.norm(shoulders[0] - shoulders[1])), face_width)
    if hips[:, 1].mean() < shoulders[:, 1].mean() + 0.8 * span:
        hips = shoulders + np.array([0.0, 1.8 * span], np.float32)
    near, far = shoulders[np.argsort(shoulders[:, 0])]
    hip_near, hip_far = hips[np.argsort(hips[:, 0])]
    top = min(chin_y, float(shoulders[:, 1].min()) - 0.3 * span)
    side = TORSO_MARGIN * span
    torso = np.array(
        [
            (near[0] - side, top),
            (far[0] + side, top),
            (far[0] + side, far[1]),
            (hip_far[0] + side, hip_far[1]),
            (hip_near[0] - side, hip_near[1]),
            (near[0] - side, near[1]),
        ],
        np.float32,
    )
    zone = (filled_polygon(shape, torso) > 0.5).astype(np.float32)
    return cv2.GaussianBlur(zone, (0, 0), 0.02 * span + 0.5)


def shoulders_top(points: np.ndarray, face_width: float) -> float:
    """The row above which no sleeve or arm is (work pixels): a little over the higher
    shoulder joint."""
    shoulders = points[[LEFT_SHOULDER, RIGHT_SHOULDER]]
    span = max(float(np.linalg.norm(shoulders[0] - shoulders[1])), face_width)
    return float(shoulders[:, 1].min()) - 0.3 * span


def holds_face(points: np.ndarray, chin_x: float, chin_y: float, face_width: float) -> bool:
    """Whether the body found is the face's: shoulders below the chin, around its midline
    (in a group photo the pose model may find somebody else)."""
    shoulders = points[[LEFT_SHOULDER, RIGHT_SHOULDER]]
    middle = shoulders.mean(axis=0)
    return bool(
        abs(middle[0] - chin_x) < 1.5 * face_width
        and chin_y - 0.3 * face_width < middle[1] < chin_y + 4.0 * face_width
    )


def grown(mask: np.ndarray, size: float) -> np.ndarray:
    """A 0–1 mask dilated by about ``size`` pixels (at least one)."""
    side = 2 * max(1, round(size)) + 1
    return cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side)))


def connected_to(candidates: np.ndarray, seed: np.ndarray) -> np.ndarray:
    """The parts of ``candidates`` (0/1) that touch ``seed`` (0/1)."""
    count, labels = cv2.connectedComponents(candidates.astype(np.uint8), connectivity=8)
    touching = np.unique(labels[(seed > 0) & (candidates > 0)])
    touching = touching[touching > 0]
    keep = np.zeros(count, bool)
    keep[touching] = True
    return keep[labels].astype(np.uint8)


# --- The subject ---------------------------------------------------------------------------


def person_mask(small: np.ndarray) -> np.ndarray:
    """The selfie segmentation's soft mask of people in ``small`` (float32 0–1)."""
    mask = SELFIE_SEGMENTATION.get().process(small).segmentation_mask
    return np.clip(np.asarray(mask, np.float32), 0.0, 1.0)


def guided_filter(guide: np.ndarray, mask: np.ndarray, radius: int, eps: float) -> np.ndarray:
    """He, Sun and Tang's guided filter: ``mask`` smoothed, its edges moved onto ``guide``'s.

    The segmentation is computed at 256 pixels; this puts its soft edge where the photo's
    own edge is (a shoulder, a strand of hair) instead of a blurred band around it.
    """
    size = (2 * radius + 1, 2 * radius + 1)

    def mean(values: np.ndarray) -> np.ndarray:
        return cv2.boxFilter(values, cv2.CV_32F, size, borderType=cv2.BORDER_REFLECT)

    mean_guide, mean_mask = mean(guide), mean(mask)
    variance = mean(guide * guide) - mean_guide * mean_guide
    slope = (mean(guide * mask) - mean_guide * mean_mask) / (variance + eps)
    offset = mean_mask - slope * mean_guide
    return np.clip(mean(slope) * guide + mean(offset), 0.0, 1.0)


def edge_guide(small: np.ndarray) -> np.ndarray:
    """The guide for the filter: lightness plus colour contrast (orange on red shows)."""
    lab = cv2.cvtColor(small.astype(np.float32) * np.float32(1 / 255), cv2.COLOR_RGB2LAB)
    chroma = np.sqrt(lab[..., 1] ** 2 + lab[..., 2] ** 2)
    hue = np.arctan2(lab[..., 2], lab[..., 1])
    return (lab[..., 0] / 100.0 * 0.6 + (chroma / 128.0) * 0.2 + hue / np.pi * 0.2).astype(
        np.float32
    )


def refined(small: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mask's edges snapped to the photo's, and its soft band narrowed to a few pixels."""
    radius = max(2, round(0.01 * max(mask.shape)))
    snapped = guided_filter(edge_guide(small), mask, radius, 2e-3)
    return smoothstep(snapped, 0.3, 0.7).astype(np.float32)


def holding_component(solid: np.ndarray, face: np.ndarray) -> np.ndarray:
    """The connected part of ``solid`` (0/1) that overlaps ``face`` most, else the largest."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(solid, connectivity=8)
    if count <= 2:
        return solid
    overlap = np.bincount(labels[face > 0.5], minlength=count)
    overlap[0] = 0
    if overlap.max() > 0:
        best = int(np.argmax(overlap))
    else:
        best = int(np.argmax(stats[1:, cv2.CC_STAT_AREA])) + 1
    return (labels == best).astype(np.uint8)


def filled(mask: np.ndarray) -> np.ndarray:
    """The mask with its holes filled (a badge or a buckle is part of the subject)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    result = np.zeros_like(mask)
    cv2.drawContours(result, contours, -1, 1, thickness=cv2.FILLED)
    return result


def one_person(soft: np.ndarray, face: np.ndarray) -> np.ndarray:
    """``soft`` kept only around the person holding ``face``, with that person's holes filled.

    Another person, or a patch the model took for one, is dropped; the kept person's soft
    edge stays soft.
    """
    person = filled(holding_component((soft > 0.5).astype(np.uint8), face))
    grow = max(3, round(0.02 * max(soft.shape)) | 1)
    near = cv2.dilate(person, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow)))
    near = cv2.GaussianBlur(near.astype(np.float32), (0, 0), grow / 4)
    return np.maximum(soft * near, person.astype(np.float32) * (soft <= 0.5)).astype(np.float32)


def portrait_shape(shape: tuple[int, int], box: FaceBox) -> np.ndarray:
    """A head and shoulders drawn around ``box``: the subject when no one is segmented."""
    shape_mask = np.zeros(shape, np.uint8)
    head = (round(box.centre_x), round(box.y + 0.45 * box.h))
    cv2.ellipse(shape_mask, head, (round(0.62 * box.w), round(0.78 * box.h)), 0, 0, 360, 1, -1)
    chest = (round(box.centre_x), round(box.y + 2.6 * box.h))
    cv2.ellipse(shape_mask, chest, (round(1.6 * box.w), round(1.3 * box.h)), 0, 0, 360, 1, -1)
    top = round(box.y + 2.6 * box.h)
    left, right = round(box.centre_x - 1.6 * box.w), round(box.centre_x + 1.6 * box.w)
    shape_mask[max(0, top) :, max(0, left) : max(0, right)] = 1
    return cv2.GaussianBlur(shape_mask.astype(np.float32), (0, 0), 0.04 * box.w + 0.5)


def skin_between(points: np.ndarray, shape: tuple[int, int], face_width: float) -> np.ndarray:
    """The outline of the mesh ``points`` pulled in, minus the kept features, feathered."""
    outline = (filled_polygon(shape, points[list(fp.FACE_OVAL)]) > 0.5).astype(np.uint8)
    inset = 2 * max(1, round(RETOUCH_INSET * face_width)) + 1
    skin = cv2.erode(outline, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (inset, inset)))
    for feature, grow in RETOUCH_KEPT_FEATURES:
        skin &= 1 - polygon_mask(shape, points[list(feature)], grow * face_width, hull=True)
    feather = RETOUCH_FEATHER * face_width
    soft = skin.astype(np.float32)
    return cv2.GaussianBlur(soft, (0, 0), feather) if feather > 0.3 else soft


def smoothstep(values: np.ndarray, edge0: float, edge1: float) -> np.ndarray:
    t = np.clip((values - edge0) / max(edge1 - edge0, 1e-6), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


class Regions:
    """The masks of one photo; each is computed once, at full size, when first asked for.

    Masks are float32 arrays of the photo's height×width with values in [0, 1].
    ``face_box`` is in the photo's pixels and may reach past its edges (a face cut off
    by the frame keeps its true size); ``found_face`` says whether it was detected.
    """

    def __init__(self, image: np.ndarray):
        self.height, self.width = image.shape[:2]
        self.small, self.factor = work_copy(image)
        box = detect_face(self.small)
        self.found_face = box is not None
        self.small_box = box or centred_box(self.small.shape[1], self.small.shape[0])
        self.face_box = self.small_box.scaled(1.0 / self.factor)
        points = face_landmarks(image, self.face_box) if self.found_face else None
        self.landmarks = points
        self.small_landmarks = None if points is None else points * self.factor

    def enlarged(self, small_mask: np.ndarray, feather: float) -> np.ndarray:
        """A 0/1 (or soft) work-size mask, feathered and enlarged to the photo's size."""
        soft = small_mask.astype(np.float32)
        sigma = feather * max(soft.shape)
        if sigma > 0.3:
            soft = cv2.GaussianBlur(soft, (0, 0), sigma)
        if soft.shape != (self.height, self.width):
            soft = cv2.resize(soft, (self.width, self.height), interpolation=cv2.INTER_LINEAR)
        return np.clip(soft, 0.0, 1.0)

    # --- work-size masks

    @functools.cached_property
    def small_face(self) -> np.ndarray:
        """The face's outline from Face Mesh, or an ellipse in the box without one."""
        shape = self.small.shape[:2]
        if self.small_landmarks is None:
            return face_oval(shape, self.small_box).astype(np.float32)
        return filled_polygon(shape, self.small_landmarks[list(fp.FACE_OVAL)])

    @functools.cached_property
    def small_lab(self) -> np.ndarray:
        return cv2.cvtColor(self.small.astype(np.float32) * np.float32(1 / 255), cv2.COLOR_RGB2LAB)

    @functools.cached_property
    def skin_tone(self) -> SkinTone | None:
        """The face's skin colour, from inside its outline; None without a mesh."""
        if self.small_landmarks is None:
            return None
        inner = cv2.erode(self.small_face, np.ones((3, 3), np.uint8), iterations=2)
        return SkinTone.sampled(self.small_lab, inner)

    @functools.cached_property
    def small_skin(self) -> np.ndarray:
        """How skin-like each pixel is (0–1); all zero when the face has no outline."""
        if self.skin_tone is None:
            return np.zeros(self.small.shape[:2], np.float32)
        return cv2.GaussianBlur(self.skin_tone.likeness(self.small_lab), (0, 0), 1.0)

    @functools.cached_property
    def small_subject(self) -> np.ndarray:
        segmented = person_mask(self.small)
        if (segmented > 0.5).mean() < MIN_SUBJECT_SHARE:
            return portrait_shape(self.small.shape[:2], self.small_box)
        return one_person(refined(self.small, segmented), self.small_face)

    def _rows_cols(self) -> tuple[np.ndarray, np.ndarray]:
        h, w = self.small.shape[:2]
        return np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]

    def _chin_and_cheeks(self) -> tuple[float, float, float]:
        """The chin's row, the cheeks' row (ear level) and the face's width, work pixels."""
        box = self.small_box
        if self.small_landmarks is None:
            return box.y + 1.05 * box.h, box.y + 0.5 * box.h, box.w
        points = self.small_landmarks
        sides = points[list(fp.CHEEKBONES)]
        width = float(np.abs(sides[1, 0] - sides[0, 0]))
        return float(points[fp.MENTON, 1]), float(sides[:, 1].mean()), max(width, 0.5 * box.w)

    @functools.cached_property
    def small_body(self) -> np.ndarray | None:
        """The pose model's landmarks (work pixels) of the person holding the face."""
        points = body_points(self.small)
        chin, _, face_width = self._chin_and_cheeks()
        chin_x = self.small_box.centre_x
        if self.small_landmarks is not None:
            chin_x = float(self.small_landmarks[fp.MENTON, 0])
        if points is None or not holds_face(points, chin_x, chin, face_width):
            return None
        return points

    @functools.cached_property
    def small_face_grown(self) -> np.ndarray:
        """The face's outline with a margin: hair and clothes never reach inside it."""
        _, _, face_width = self._chin_and_cheeks()
        return grown(self.small_face, FACE_MARGIN * face_width)

    def _head_columns(self, half_width: float) -> np.ndarray:
        """0/1: the columns within ``half_width`` face widths of the face's midline."""
        _, _, face_width = self._chin_and_cheeks()
        _, cols = self._rows_cols()
        return np.abs(cols - self.head_x) < half_width * face_width

    @property
    def head_x(self) -> float:
        """The face's midline (work pixels)."""
        if self.small_landmarks is None:
            return self.small_box.centre_x
        return float(self.small_landmarks[fp.MENTON, 0])

    def _neck_column(self, chin: float, face_width: float) -> np.ndarray:
        """0–1: the neck and the chest's middle below the chin, where hair does not fall
        in a portrait (a shadowed neck or a freckled chest can look like hair)."""
        rows, cols = self._rows_cols()
        below = smoothstep(rows - chin, 0.0, 0.1 * face_width)
        half = NECK_HALF_WIDTH * face_width
        inside = 1.0 - smoothstep(np.abs(cols - self.head_x), half, half + 0.05 * face_width)
        return (below * inside).astype(np.float32)

    @functools.cached_property
    def small_hair_seed(self) -> np.ndarray:
        """0/1: where hair surely is: the subject just above the face, inside the head's
        width, not skin-coloured (a bald head's skin is no seed)."""
        chin, _, _ = self._chin_and_cheeks()
        top = self.small_box.y
        if self.small_landmarks is not None:
            top = float(self.small_landmarks[fp.FOREHEAD_TOP, 1])
        rows, _ = self._rows_cols()
        band = (rows < top) & (rows > top - HAIR_SAMPLE_HEIGHT * max(chin - top, 1.0))
        seed = band & self._head_columns(HAIR_SAMPLE_HALF_WIDTH) & (self.small_subject > 0.8)
        seed &= (self.small_face_grown < 0.5) & (self.small_skin < 0.3)
        return seed.astype(np.uint8)

    @functools.cached_property
    def hair_model(self) -> ColourModel | None:
        return ColourModel.sampled(self.small_lab[self.small_hair_seed > 0], HAIR_MODEL_FLOOR)

    @functools.cached_property
    def skin_model(self) -> ColourModel | None:
        tone = self.skin_tone
        if tone is None:
            return None
        return ColourModel(tone.middle, np.maximum(tone.spread, SKIN_MODEL_FLOOR))

    @functools.cached_property
    def cloth_model(self) -> ColourModel | None:
        """The clothes' colour, sampled on the chest just inside each shoulder (from the
        pose; at fixed places below the chin without one), skin and hair left out."""
        chin, _, face_width = self._chin_and_cheeks()
        points = self.small_body
        if points is None:
            spots = [
                (self.head_x + side * 0.8 * face_width, chin + 1.2 * face_width) for side in (-1, 1)
            ]
            radius = 0.2 * face_width
        else:
            left, right = points[LEFT_SHOULDER], points[RIGHT_SHOULDER]
            span = max(float(np.linalg.norm(left - right)), face_width)
            drop = np.array([0.0, 0.25 * span], np.float32)
            spots = [left + 0.25 * (right - left) + drop, right + 0.25 * (left - right) + drop]
            radius = 0.12 * span
        height, width = self.small.shape[:2]
        disc = np.zeros((height, width), np.uint8)
        for x, y in spots:
            x, y = np.clip(x, 0, width - 1), np.clip(y, 0, height - 1)
            cv2.circle(disc, (round(x), round(y)), max(2, round(radius)), 1, -1)
        sample = (disc > 0) & (self.small_subject > 0.8) & (self.small_skin < 0.3)
        return ColourModel.sampled(self.small_lab[sample], CLOTH_MODEL_FLOOR)

    @functools.cached_property
    def _hair_reach(self) -> np.ndarray:
        """Where hair may be (0–1): the subject; before a plain backdrop, grown by
        ``HAIR_BEYOND_SUBJECT`` face widths: the person mask leaves out a loose lock or a
        curl against it, which the backdrop's own colour (a rival of the hair's) keeps
        out instead. A busy backdrop has dark parts as dark as hair: there the person
        mask decides alone."""
        backdrop = self.backdrop_model
        if backdrop is None or np.any(backdrop.spread > PLAIN_BACKDROP_SPREAD):
            return self.small_subject
        _, _, face_width = self._chin_and_cheeks()
        solid = (self.small_subject > 0.5).astype(np.uint8)
        near = grown(solid, HAIR_BEYOND_SUBJECT * face_width).astype(np.float32)
        return np.maximum(self.small_subject, cv2.GaussianBlur(near, (0, 0), 1.0))

    @functools.cached_property
    def backdrop_model(self) -> ColourModel | None:
        """The backdrop's colour around the head: what the person mask leaves out beside
        and above it. Hair must be likelier its own colour than this too, so a soft
        mask's edge between loose curls is not taken for hair."""
        chin, _, face_width = self._chin_and_cheeks()
        rows, _ = self._rows_cols()
        near = self._head_columns(HAIR_REACH_ACROSS + 0.5) & (
            rows < chin + HAIR_REACH_BELOW_CHIN * face_width
        )
        return ColourModel.sampled(
            self.small_lab[near & (self.small_subject < 0.05)], BACKDROP_MODEL_FLOOR
        )

    def _costs(self, model: ColourModel | None) -> np.ndarray:
        if model is None:
            return np.full(self.small.shape[:2], np.inf, np.float32)
        return model.cost(self.small_lab)

    @functools.cached_property
    def small_hair(self) -> np.ndarray:
        """The hair: found from the colour sampled above the face, then again from the
        colour of all the hair that found (its lengths are often lighter or warmer than
        its roots). Empty when nothing was sampled (a bald or shaved head)."""
        first = self._hair_like(self.hair_model)
        sure = (first > 0.8) & (self.small_face_grown < 0.5)
        whole = ColourModel.sampled(self.small_lab[sure], HAIR_MODEL_FLOOR)
        return first if whole is None else self._hair_like(whole)

    def _hair_like(self, hair: ColourModel | None) -> np.ndarray:
        """Pixels in the hair's reach likelier ``hair``'s colour than skin or the backdrop
        (or, below the chin, than the clothes), joined to the sample above the face,
        reaching down past the chin for long hair; never inside the face's outline grown
        a little."""
        if hair is None:
            return np.zeros(self.small.shape[:2], np.float32)
        chin, _, face_width = self._chin_and_cheeks()
        rows, _ = self._rows_cols()
        own = self._costs(hair)
        rivals = np.minimum(self._costs(self.skin_model), self._costs(self.backdrop_model))
        below_chin = rows > chin
        rivals = np.where(below_chin, np.minimum(rivals, self._costs(self.cloth_model)), rivals)
        lowest = HAIR_REACH_BELOW_CHIN * face_width
        chance = likelier(own, rivals, 1.0) * (1.0 - smoothstep(rows - chin, 0.85 * lowest, lowest))
        chance *= self._hair_reach * (1.0 - self._neck_column(chin, face_width))
        # Joined up before the face's margin is taken out: beside a cheek, long hair may
        # be a strand or two thinner than the margin.
        candidates = (
            (chance > 0.5) & (self.small_face < 0.5) & self._head_columns(HAIR_REACH_ACROSS)
        )
        # Lower down only locks count, not a line as thin as the shadow along a
        # neckline's edge; then closed, so that a gap of a pixel or two does not cut the
        # ends of long hair off from the head.
        bridge = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
        candidates = candidates.astype(np.uint8)
        locks = cv2.morphologyEx(candidates, cv2.MORPH_OPEN, bridge)
        lower = rows > chin + LOCKS_BELOW_CHIN * face_width
        candidates = np.where(lower, locks, candidates).astype(np.uint8)
        candidates = cv2.morphologyEx(candidates, cv2.MORPH_CLOSE, bridge)
        joined = self.small_hair_seed
        for _ in range(HAIR_HOPS):
            # Hair beyond an ear or a gap of the hair's own: a part close to what is
            # already joined counts; a longer hop beside the face (a lock behind an ear)
            # than below the chin (a shadowed neck is not a lock).
            reach = np.where(
                rows < chin,
                grown(joined, HAIR_HOP * face_width),
                grown(joined, HAIR_HOP_BELOW_CHIN * face_width),
            )
            joined = connected_to(candidates, reach)
        joined = grown(joined & candidates, 1.0)
        joined = cv2.GaussianBlur(joined.astype(np.float32), (0, 0), 1.0)
        return (chance * joined * (1.0 - self.small_face_grown)).astype(np.float32)

    @functools.cached_property
    def small_bare_skin(self) -> np.ndarray:
        """Bare skin (0–1): the face's skin colour within a few spreads (a shadowed neck,
        a lit chest, a hand), likelier skin than the clothes, and not the hair."""
        tone, skin = self.skin_tone, self.skin_model
        if tone is None or skin is None:
            return self.small_skin * (1.0 - self.small_hair)
        distance = (self.small_lab - tone.middle) / tone.spread
        colour = np.sqrt(distance[..., 1] ** 2 + distance[..., 2] ** 2)
        light = np.abs(distance[..., 0]) / 3.0
        near = 1.0 - smoothstep(np.maximum(colour, light), 3.0, 4.5)
        bare = near * likelier(self._costs(skin), self._costs(self.cloth_model), 2.0)
        bare = cv2.GaussianBlur(bare.astype(np.float32), (0, 0), 0.8)
        return bare * (1.0 - self.small_hair)

    @functools.cached_property
    def small_outfit(self) -> np.ndarray:
        """The clothes: the body's torso (pose), and beside it what has the clothes'
        colour and joins them (sleeves, a far arm; not a helmet or a bag held at the
        side), within the subject, minus bare skin (neck, arms, hands), the face and the
        hair (which stays in front). Its top is where the skin ends, the real neckline.
        Without a body found, the subject below the jaw minus skin."""
        chin, _, face_width = self._chin_and_cheeks()
        points = self.small_body
        if points is None:
            face_height = max(chin - self.small_box.y, 1.0)
            rows, _ = self._rows_cols()
            zone = smoothstep(rows, chin + 0.05 * face_height, chin + 0.25 * face_height)
        else:
            torso = torso_zone(self.small.shape[:2], points, chin, face_width)
            zone = np.maximum(torso, self._cloth_beside(torso, points, face_width))
        worn = zone * self.small_subject * (1.0 - self.small_bare_skin)
        worn *= (1.0 - self.small_face_grown) * (1.0 - smoothstep(self.small_hair, 0.2, 0.6))
        # Softened by a pixel: where hair, skin and cloth meet, no cut shows.
        return cv2.GaussianBlur(worn.astype(np.float32), (0, 0), 1.0)

    def _cloth_beside(self, torso: np.ndarray, points: np.ndarray, face_width: float):
        """0–1: the subject below the shoulders that has the clothes' colour and joins
        the torso's clothes: sleeves and arms however the pose placed them."""
        model = self.cloth_model
        if model is None:
            return np.zeros(self.small.shape[:2], np.float32)
        distance = (self.small_lab - model.middle) / model.spread * COST_WEIGHTS
        near = 1.0 - smoothstep(np.linalg.norm(distance, axis=-1), *CLOTH_LIKE_SPREADS)
        rows, _ = self._rows_cols()
        near *= (rows > shoulders_top(points, face_width)) * self.small_subject
        near *= (1.0 - self.small_face_grown) * (1.0 - self.small_bare_skin)
        joined = connected_to((near > 0.5).astype(np.uint8), (torso > 0.5) & (near > 0.5))
        return near * cv2.GaussianBlur(joined.astype(np.float32), (0, 0), 1.0)

    @functools.cached_property
    def head(self) -> Head:
        """The head's landmarks in the photo's pixels (from the face box without a mesh)."""
        chin, cheeks, face_width = self._chin_and_cheeks()
        box = self.small_box
        chin_x, forehead = box.centre_x, box.y
        if self.small_landmarks is not None:
            chin_x = float(self.small_landmarks[fp.MENTON, 0])
            forehead = float(self.small_landmarks[fp.FOREHEAD_TOP, 1])
        scale = 1.0 / self.factor
        return Head(
            chin_x * scale, chin * scale, cheeks * scale, face_width * scale, forehead * scale
        )

    # --- full-size masks

    @functools.cached_property
    def subject(self) -> np.ndarray:
        return self.enlarged(self.small_subject, 0.002)

    @functools.cached_property
    def hair(self) -> np.ndarray:
        return self.enlarged(self.small_hair, 0.004)

    @functools.cached_property
    def outfit(self) -> np.ndarray:
        return self.enlarged(self.small_outfit, 0.004)

    @functools.cached_property
    def bare_skin(self) -> np.ndarray:
        """Skin that clothes do not cover (neck, chest, arms, hands), outside the face, with
        a rim of two work pixels: the hem where a neckline meets the skin goes with it
        when a new garment covers that skin."""
        rim = cv2.dilate(self.small_bare_skin, np.ones((5, 5), np.uint8))
        return self.enlarged(rim * (1.0 - self.small_face_grown), 0.004)

    @functools.cached_property
    def face(self) -> np.ndarray:
        return self.enlarged(self.small_face, 0.01)

    @functools.cached_property
    def retouch_skin(self) -> np.ndarray:
        """The face's skin to smooth: inside the outline, outside the kept features, and
        skin-coloured (a beard or a lock of hair over the forehead is left as it is).
        Drawn from the full-size mesh around the face, with the face at most
        ``RETOUCH_DRAWN_WIDTH`` pixels wide (the mask is soft: nothing is lost, and a
        12 MP photo costs what a small one does); the face's whole oval, softened, when
        there is no mesh."""
        if self.landmarks is None:
            return self.face * 0.9
        mask = np.zeros((self.height, self.width), np.float32)
        width = self.head.face_width
        pad = 0.1 * width
        outline = self.landmarks[list(fp.FACE_OVAL)]
        x0, y0 = np.maximum(np.floor(outline.min(axis=0) - pad), 0).astype(int)
        x1, y1 = np.ceil(outline.max(axis=0) + pad).astype(int)
        x1, y1 = min(x1, self.width), min(y1, self.height)
        if x1 - x0 < 2 or y1 - y0 < 2:
            return mask
        scale = min(1.0, RETOUCH_DRAWN_WIDTH / width)
        drawn_shape = (max(2, round((y1 - y0) * scale)), max(2, round((x1 - x0) * scale)))
        points = (self.landmarks - np.array([x0, y0], np.float32)) * scale
        drawn = skin_between(points, drawn_shape, width * scale)
        mask[y0:y1, x0:x1] = cv2.resize(drawn, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
        return mask * self.enlarged(self.small_skin_areas, 0.0)

    @functools.cached_property
    def small_skin_areas(self) -> np.ndarray:
        """Skin likeness with what is small closed over: a blemish, a mole, a fold or a
        thin frame reads as skin (smoothing is what a blemish asks for, and the filter
        keeps a frame's strong edges); a beard or a lock of hair over the forehead does
        not."""
        _, _, face_width = self._chin_and_cheeks()
        size = max(3, round(RETOUCH_SPOT * face_width) | 1)
        shape = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
        return cv2.morphologyEx(self.small_skin, cv2.MORPH_CLOSE, shape)
