"""Finding the hand in a photo and measuring it on MediaPipe Hands' 21 landmarks.

The hands model (``mediapipe_models.HANDS``, still-image mode, one instance per thread)
looks at a copy of the photo whose long side is at most ``LOOK_LONG_SIDE`` and at its
mirror image; the main hand (the largest palm) of each look is averaged with its mirror
partner, so a photo and its mirrored copy give the same landmarks, and the landmarks'
jitter is halved. A photo in which neither look finds a hand is refused with
``messages.NO_HAND_FOUND``, as a photo without a face is on the face page.

The landmarks, numbered as MediaPipe does: the wrist (0); the thumb from its base to its
tip (1–4); then the index, middle, ring and little fingers, each from its knuckle to its
tip (5–8, 9–12, 13–16, 17–20). Each has x and y in the photo's pixels and a depth z on
the same scale (the wrist at 0, nearer the camera negative), so lengths are measured in
three dimensions and a finger pointing a little towards the camera is not taken for a
short one.

What is measured (all ratios, so the hand's size in the photo does not count):

- the *finger proportions*: the middle finger's length against the palm's; the index,
  ring and little fingers against the middle one (their gradation: a hand model's
  fingertips fall on an even arc), and the index against the ring finger;
- the *hand's shape*: the palm's length against its width across the knuckles;
- the fingers' *straightness*: each finger's knuckle-to-tip distance over the length of
  its three bones (1 when straight; a fist folds them to half or less), which says
  whether the proportions can be seen at all.

The landmarks also draw the hand's outline on the photo (the palm, and each finger as
a band one finger wide), and say where its nails are: the skin, nail and composition
figures are measured there rather than on whatever in the photo is skin-coloured.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from prettyscore.analysis.engines import mediapipe_models
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed

# The model looks at a copy with this long side (its palm detector works at 192 pixels,
# its landmark model on a 224-pixel cut of the hand).
LOOK_LONG_SIDE = 640
# A hand found in the mirrored look is the same hand when its palm centre lies within
# this share of its palm length of the first look's.
SAME_HAND_DISTANCE = 0.5

WRIST = 0
THUMB = (1, 2, 3, 4)
INDEX = (5, 6, 7, 8)
MIDDLE = (9, 10, 11, 12)
RING = (13, 14, 15, 16)
LITTLE = (17, 18, 19, 20)
FINGERS = {"index": INDEX, "middle": MIDDLE, "ring": RING, "little": LITTLE}
# The palm's outline: the wrist, the thumb's base and the four knuckles.
PALM = (WRIST, 1, 2, 5, 9, 13, 17)
TIPS = (4, 8, 12, 16, 20)


@dataclass(frozen=True)
class Hand:
    """The main hand of a photo: its 21 landmarks (x, y, z) in the photo's pixels, and
    how many hands were found."""

    points: np.ndarray
    count: int

    @property
    def palm_length(self) -> float:
        """Wrist to the middle finger's knuckle, in photo pixels (3-D)."""
        return distance(self.points, WRIST, MIDDLE[0])

    @property
    def palm_width(self) -> float:
        """Across the knuckles, index to little finger, in photo pixels (3-D)."""
        return distance(self.points, INDEX[0], LITTLE[0])

    @property
    def finger_width(self) -> float:
        """About one finger's width: the four knuckles span three of them."""
        return self.palm_width / 3.0

    def scaled(self, factor_x: float, factor_y: float) -> Hand:
        """The same hand on a copy of the photo resized by these factors."""
        points = self.points * np.array([factor_x, factor_y, factor_x])
        return Hand(points, self.count)


def locate_hand(image: np.ndarray) -> Hand:
    """The main hand of ``image`` (RGB ``uint8``); refuses a photo without one."""
    look, factor = shrunk(image, LOOK_LONG_SIDE)
    found = hands_in(look)
    mirrored = [unmirrored(points, look.shape[1]) for points in hands_in(look[:, ::-1])]
    if not found and not mirrored:
        raise ValidationFailed(messages.NO_HAND_FOUND)
    main = largest(found or mirrored)
    partner = largest(mirrored) if found and mirrored else None
    if partner is not None and same_hand(main, partner):
        main = (main + partner) / 2.0
    return Hand(main / factor, max(len(found), len(mirrored)))


def shrunk(image: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
    """A copy whose long side is at most ``long_side`` (area averaging), and its scale."""
    factor = min(1.0, long_side / max(image.shape[:2]))
    if factor >= 1.0:
        return image, 1.0
    size = (max(1, round(image.shape[1] * factor)), max(1, round(image.shape[0] * factor)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA), size[0] / image.shape[1]


def hands_in(image: np.ndarray) -> list[np.ndarray]:
    """Every hand the model finds in ``image``: (21, 3) landmarks in its pixels."""
    result = mediapipe_models.HANDS.get().process(np.ascontiguousarray(image))
    height, width = image.shape[:2]
    return [
        np.array([(p.x * width, p.y * height, p.z * width) for p in hand.landmark], np.float64)
        for hand in result.multi_hand_landmarks or ()
    ]


def unmirrored(points: np.ndarray, width: int) -> np.ndarray:
    """Landmarks found in the mirror image, as points of the image itself.

    A hand's landmarks are numbered alike on a left and a right hand, so no point
    changes its number: only x turns round.
    """
    flipped = points.copy()
    flipped[:, 0] = width - flipped[:, 0]
    return flipped


def palm_size(points: np.ndarray) -> float:
    return distance(points, WRIST, MIDDLE[0]) + distance(points, INDEX[0], LITTLE[0])


def largest(hands: list[np.ndarray]) -> np.ndarray:
    """The hand with the largest palm (ties: the one nearest the top left)."""
    return max(hands, key=lambda p: (palm_size(p), -p[WRIST, 1], -p[WRIST, 0]))


def same_hand(first: np.ndarray, second: np.ndarray) -> bool:
    centre_gap = float(np.linalg.norm(palm_centre(first) - palm_centre(second)))
    return centre_gap <= SAME_HAND_DISTANCE * distance(first, WRIST, MIDDLE[0])


def palm_centre(points: np.ndarray) -> np.ndarray:
    return points[list(PALM), :2].mean(axis=0)


def distance(points: np.ndarray, a: int, b: int) -> float:
    return float(np.linalg.norm(points[a] - points[b]))


def bone_length(points: np.ndarray, chain: tuple[int, ...]) -> float:
    """The length along ``chain`` of landmarks (a finger's bones, end to end)."""
    return sum(distance(points, a, b) for a, b in zip(chain[:-1], chain[1:], strict=True))


# ---------------------------------------------------------------------------
# Proportions and shape
# ---------------------------------------------------------------------------
def hand_measures(hand: Hand) -> dict[str, float]:
    """The hand's proportions and shape (see the module's docstring), as ``hand_*``."""
    p = hand.points
    palm = max(hand.palm_length, 1e-6)
    lengths = {name: bone_length(p, chain) for name, chain in FINGERS.items()}
    middle = max(lengths["middle"], 1e-6)
    straightness = [
        distance(p, chain[0], chain[-1]) / max(lengths[name], 1e-6)
        for name, chain in FINGERS.items()
    ]
    return {
        "hand_count": float(hand.count),
        "hand_finger_to_palm": middle / palm,
        "hand_index_to_middle": lengths["index"] / middle,
        "hand_ring_to_middle": lengths["ring"] / middle,
        "hand_little_to_middle": lengths["little"] / middle,
        "hand_index_to_ring": lengths["index"] / max(lengths["ring"], 1e-6),
        "hand_thumb_to_middle": bone_length(p, THUMB[1:]) / middle,
        "hand_palm_shape": palm / max(hand.palm_width, 1e-6),
        "hand_straightness": float(np.mean(straightness)),
        "hand_least_straight": float(min(straightness)),
    }


# ---------------------------------------------------------------------------
# Where the hand is in the photo
# ---------------------------------------------------------------------------
def hand_mask(hand: Hand, shape: tuple[int, int], width_share: float = 1.0) -> np.ndarray:
    """The hand drawn from its landmarks on an image of ``shape`` (0 or 255): the palm's
    polygon, and each finger and the thumb as a band ``width_share`` of a finger wide
    with round ends. ``hand`` is in that image's pixels."""
    mask = np.zeros(shape, np.uint8)
    xy = hand.points[:, :2]
    palm = cv2.convexHull(np.round(xy[list(PALM)]).astype(np.int32))
    width = max(1, round(hand.finger_width * width_share))
    if width_share < 1.0:  # keep a narrower hand inside the palm's edges too
        centre = palm_centre(hand.points)
        shrink = 1.0 - 0.5 * (1.0 - width_share) * hand.finger_width / max(hand.palm_width, 1.0)
        inner = (xy[list(PALM)] - centre) * shrink + centre
        palm = cv2.convexHull(np.round(inner).astype(np.int32))
    cv2.fillConvexPoly(mask, palm, 255, cv2.LINE_AA)
    for chain in (THUMB, *FINGERS.values()):
        for a, b in zip(chain[:-1], chain[1:], strict=True):
            start = tuple(int(v) for v in np.round(xy[a]))
            end = tuple(int(v) for v in np.round(xy[b]))
            cv2.line(mask, start, end, 255, width, cv2.LINE_AA)
        tip = tuple(int(v) for v in np.round(xy[chain[-1]]))
        cv2.circle(mask, tip, max(1, width // 2), 255, -1, cv2.LINE_AA)
    return np.where(mask > 127, 255, 0).astype(np.uint8)


def nail_spots(hand: Hand) -> list[tuple[float, float]]:
    """Where each nail is, in the hand's pixels: just behind each fingertip, along the
    last bone (the nail covers about the last third of it)."""
    spots = []
    for tip in TIPS:
        end, joint = hand.points[tip, :2], hand.points[tip - 1, :2]
        spot = end + 0.35 * (joint - end)
        spots.append((float(spot[0]), float(spot[1])))
    return spots


def nail_radius(hand: Hand) -> float:
    """About half a nail's length, in the hand's pixels."""
    return max(1.0, 0.5 * hand.finger_width)
