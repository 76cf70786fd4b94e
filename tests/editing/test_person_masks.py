"""Hair and outfit edits follow the person, as a user sees it, on real photos.

Long hair, a V-neck and skin beside the hairline are only in the London Set's studio
portraits (``tests/fixtures/faces/london``, CC BY 4.0, see the LICENSE beside them): a
woman with long straight ash-blonde hair (120) and one with long black hair over her
shoulders (129), both in a white V-neck T-shirt; loose curls falling from a bun (001)
and a lock hanging behind each ear (039) before the plain studio backdrop. The
portraits of ``test_presets`` (the astronaut, Obama and Biden in suits) stand for the
usual clothes.

Where things are is measured without the engine's masks: the face from Face Mesh (the
analysis' own meshing of the face), the shoulders from MediaPipe's pose model asked
directly, the hair and skin from the original photo's colours inside those places.
"""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from prettyscore.analysis import face_mesh_points as fp
from prettyscore.editing import presets
from prettyscore.editing.engines.local import LocalEditEngine
from prettyscore.editing.engines.masks import Regions, filled_polygon
from tests.fixtures import corpus

LONDON = Path(__file__).resolve().parents[1] / "fixtures" / "faces" / "london"
ENGINE = LocalEditEngine()
ASH_BLONDE, BLACK_HAIR = "120_03.jpg", "129_03.jpg"
# Loose brown curls falling from a bun (001); long brown hair, a lock hanging behind each
# ear (039).
CURLS, LOOSE_LOCKS = "001_03.jpg", "039_03.jpg"


@functools.cache
def original(name: str) -> np.ndarray:
    if name.endswith("_03.jpg"):
        return np.asarray(Image.open(LONDON / name).convert("RGB"))
    return {p.name: p for p in corpus.portraits()}[name].image


@functools.cache
def edited(name: str, preset: str) -> np.ndarray:
    return np.asarray(ENGINE.edit(Image.fromarray(original(name)), preset))


def lab(pixels: np.ndarray) -> np.ndarray:
    scaled = np.ascontiguousarray(pixels).astype(np.float32) / 255.0
    return cv2.cvtColor(scaled, cv2.COLOR_RGB2LAB)


def change(name: str, preset: str) -> np.ndarray:
    """The largest change of a channel at each pixel (0–255)."""
    before = original(name).astype(np.float32)
    return np.abs(edited(name, preset).astype(np.float32) - before).max(axis=2)


@functools.cache
def mesh(name: str) -> np.ndarray:
    """Face Mesh's points (x, y) of the photo's face, in its pixels."""
    points = Regions(original(name)).landmarks
    assert points is not None, f"no face mesh on {name}"
    return points


def face_geometry(name: str) -> tuple[float, float, float, float]:
    """The face's midline, chin row, width and height (from its mesh)."""
    points = mesh(name)
    oval = points[list(fp.FACE_OVAL)]
    width = float(oval[:, 0].max() - oval[:, 0].min())
    chin_x, chin_y = points[fp.MENTON]
    return float(chin_x), float(chin_y), width, float(chin_y - oval[:, 1].min())


@functools.cache
def shoulders(name: str) -> np.ndarray:
    """The pose model's two shoulder points (x, y), asked directly of MediaPipe."""
    import mediapipe as mp

    with mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1) as pose:
        found = pose.process(np.ascontiguousarray(original(name))).pose_landmarks
    assert found is not None, f"no body found on {name}"
    height, width = original(name).shape[:2]
    return np.array([(found.landmark[i].x * width, found.landmark[i].y * height) for i in (11, 12)])


def grid(name: str) -> tuple[np.ndarray, np.ndarray]:
    height, width = original(name).shape[:2]
    return np.mgrid[0:height, 0:width].astype(np.float32)


def eroded(mask: np.ndarray, size: int) -> np.ndarray:
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * size + 1, 2 * size + 1))
    return cv2.erode(mask.astype(np.uint8), kernel).astype(bool)


def hair_below_chin(name: str, darkest: float) -> np.ndarray:
    """Pixels of long hair past the chin: beside the neck (0.45–0.8 face widths from the
    midline), from just below the chin to half a face lower, darker than ``darkest`` (L)
    where skin, T-shirt and backdrop are all lighter; their edges left out."""
    chin_x, chin_y, width, height = face_geometry(name)
    rows, cols = grid(name)
    aside = np.abs(cols - chin_x) / width
    place = (rows > chin_y + 0.05 * height) & (rows < chin_y + 0.5 * height)
    dark = lab(original(name))[..., 0] < darkest
    return eroded(place & (aside > 0.45) & (aside < 0.8) & dark, 2)


def skin_by_the_hairline(name: str) -> np.ndarray:
    """Forehead and temple skin where the blotch showed: from the brows up to the
    hairline, across the face's oval widened by a tenth of its width; only pixels of the
    forehead's own hue, not darker than it (hair is), lighter where lit, a few pixels
    clear of anything else (the hair's edge)."""
    points = mesh(name)
    chin_x, _, width, height = face_geometry(name)
    rows, cols = grid(name)
    brows = float(points[list(fp.RIGHT_BROW + fp.LEFT_BROW), 1].min())
    top = float(points[list(fp.FACE_OVAL), 1].min())
    place = (rows < brows) & (rows > top - 0.3 * height)
    place &= np.abs(cols - chin_x) < 0.6 * width
    colours = lab(original(name))
    forehead = np.median(
        colours[round(top) : round(brows), round(chin_x) - 5 : round(chin_x) + 5], axis=(0, 1)
    )
    chroma = np.linalg.norm(colours[..., 1:] - forehead[1:], axis=2)
    like = (chroma < 8.0) & (colours[..., 0] > forehead[0] - 12.0)
    oval = filled_polygon(colours.shape[:2], points[list(fp.FACE_OVAL)]) > 0.5
    return eroded(place & like & ~(oval & (rows > top + 0.08 * height)), 4)


# --- Hair --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "darkest"), [(BLACK_HAIR, 30.0), (ASH_BLONDE, 45.0), (LOOSE_LOCKS, 35.0)]
)
def test_blonde_reaches_the_ends_of_long_hair(name: str, darkest: float) -> None:
    """On each side of the neck: a lock that hangs apart from the head's hair (behind
    an ear, outside the person mask) is hair too."""
    ends = hair_below_chin(name, darkest)
    assert ends.sum() > 500, "the photo's long hair was not found where it falls"
    chin_x = face_geometry(name)[0]
    columns = np.nonzero(ends)[1]
    before, after = lab(original(name))[ends], lab(edited(name, presets.HAIR_BLONDE))[ends]
    for side, on_side in (("left", columns < chin_x), ("right", columns > chin_x)):
        lighter = float(np.median(after[on_side, 0] - before[on_side, 0]))
        golden = float(np.median(after[on_side, 2] - before[on_side, 2]))
        assert lighter > 15.0 and golden > 10.0, (
            f"{name}: the hair below the chin on the {side} is {lighter:.0f} L lighter and "
            f"{golden:.0f} b more golden: blonde stopped before the ends"
        )


def backdrop_between_curls(name: str) -> np.ndarray:
    """The plain backdrop beside the head and neck, between loose curls: light, grey,
    from about the brows (0.7 face heights above the chin) to half a face below it,
    within 1.4 face widths of the midline, at least 4 pixels from anything darker (a
    curl's soft edge)."""
    chin_x, chin_y, width, height = face_geometry(name)
    rows, cols = grid(name)
    colours = lab(original(name))
    place = (rows > chin_y - 0.7 * height) & (rows < chin_y + 0.5 * height)
    place &= np.abs(cols - chin_x) < 1.4 * width
    backdrop = (colours[..., 0] > 75.0) & (np.linalg.norm(colours[..., 1:], axis=2) < 5.0)
    return eroded(place & backdrop, 4)


@pytest.mark.parametrize("preset", presets.PRESET_GROUPS[presets.HAIR][1:])
@pytest.mark.parametrize("name", [CURLS, LOOSE_LOCKS, ASH_BLONDE])
def test_the_backdrop_between_loose_curls_keeps_its_colour(name: str, preset: str) -> None:
    backdrop = backdrop_between_curls(name)
    assert backdrop.sum() > 5000, "no backdrop found beside the head"
    painted = float((change(name, preset)[backdrop] > 5.0).mean())
    assert painted < 0.01, f"{preset} on {name}: {painted:.1%} of the backdrop changed"


@pytest.mark.parametrize("preset", presets.PRESET_GROUPS[presets.HAIR][1:])
@pytest.mark.parametrize("name", [ASH_BLONDE, BLACK_HAIR, "biden.jpg"])
def test_hair_colour_never_reaches_the_forehead_or_temples(name: str, preset: str) -> None:
    """No blotch of hair colour on the skin by the hairline: fewer than 1 % of its pixels
    change by more than a trace."""
    skin = skin_by_the_hairline(name)
    assert skin.sum() > 300, "no forehead skin found by the hairline"
    blotch = float((change(name, preset)[skin] > 5.0).mean())
    assert blotch < 0.01, f"{preset} on {name}: {blotch:.1%} of the forehead's skin changed"


# --- Outfit ------------------------------------------------------------------------------


def shoulder_cloth(name: str) -> np.ndarray:
    """The clothes at each pose shoulder: a disc just inside the body (a tenth of the
    shoulders' span towards the other shoulder, a little below the joint)."""
    left, right = shoulders(name)
    span = float(np.linalg.norm(left - right))
    rows, cols = grid(name)
    height, width = original(name).shape[:2]
    cloth = np.zeros((height, width), bool)
    for this, other in ((left, right), (right, left)):
        x, y = this + 0.15 * (other - this) + np.array([0.0, 0.08 * span])
        x, y = np.clip(x, 0, width - 1), np.clip(y, 0, height - 1)
        cloth |= np.hypot(cols - x, rows - y) < 0.05 * span
    return cloth


@pytest.mark.parametrize("preset", presets.PRESET_GROUPS[presets.OUTFIT])
@pytest.mark.parametrize("name", [ASH_BLONDE, BLACK_HAIR])
def test_new_clothes_reach_the_shoulders_behind_long_hair(name: str, preset: str) -> None:
    """A new garment covers the shoulders' clothes; the long hair lying over them stays
    in front, untouched (so does every outfit preset)."""
    if preset != presets.CLOTHING_COLORS:
        moved = float(change(name, preset)[shoulder_cloth(name)].mean())
        assert moved > 40.0, f"{preset} on {name}: the shoulders' clothes changed by {moved:.0f}"
    ends = hair_below_chin(name, 45.0 if name == ASH_BLONDE else 30.0)
    hair = float(np.percentile(change(name, preset)[ends], 90))
    assert hair < 12.0, f"{preset} on {name}: the hair over the shoulders changed by {hair:.0f}"


def neck_skin(name: str, depth: float) -> np.ndarray:
    """The neck's middle (and the V of a neckline's skin), from just below the chin down
    ``depth`` face heights."""
    chin_x, chin_y, width, height = face_geometry(name)
    rows, cols = grid(name)
    below = (rows > chin_y + 0.05 * height) & (rows < chin_y + depth * height)
    return below & (np.abs(cols - chin_x) < 0.12 * width)


# A new suit's shirt collar or a sweater's neckline covers the neck from about a fifth of
# the face's height below the chin; brighter clothes cover nothing, so the V-neck's skin
# stays as it is.
NECK_DEPTHS = {
    presets.PROFESSIONAL_ATTIRE: 0.15,
    presets.CASUAL_OUTFIT: 0.15,
    presets.FORMAL_JACKET: 0.15,
    presets.CLOTHING_COLORS: 0.6,
}


@pytest.mark.parametrize("preset", presets.PRESET_GROUPS[presets.OUTFIT])
@pytest.mark.parametrize("name", [ASH_BLONDE, BLACK_HAIR])
def test_the_neck_stays_skin(name: str, preset: str) -> None:
    skin = neck_skin(name, NECK_DEPTHS[preset])
    blotch = float((change(name, preset)[skin] > 5.0).mean())
    assert blotch < 0.01, f"{preset} on {name}: {blotch:.1%} of the neck's skin changed"


def coverage_jump(name: str, preset: str) -> float:
    """The biggest share of the shoulders' width that starts changing within a few rows,
    below the chin: a band laid at a fixed row makes the whole width change at once (a
    horizontal seam); clothes that follow the shoulders' slope and the neckline do not."""
    _, chin_y, _, height = face_geometry(name)
    left, right = shoulders(name)
    cols = slice(round(min(left[0], right[0])), round(max(left[0], right[0])))
    rows = slice(round(chin_y), round(min(original(name).shape[0], chin_y + 1.2 * height)))
    share = (change(name, preset)[rows, cols] > 4.0).mean(axis=1)
    step = max(2, round(0.03 * height))
    return float((share[step:] - share[:-step]).max())


@pytest.mark.parametrize("preset", presets.PRESET_GROUPS[presets.OUTFIT][:3])
@pytest.mark.parametrize("name", [ASH_BLONDE, "obama.jpg"])
def test_no_horizontal_seam_across_the_chest(name: str, preset: str) -> None:
    jump = coverage_jump(name, preset)
    assert jump < 0.35, (
        f"{preset} on {name}: {jump:.0%} of the shoulders' width starts changing in one row"
    )


@pytest.mark.parametrize("name", ["obama.jpg", "obama3.jpg"])
def test_improving_clothing_colours_shows(name: str) -> None:
    """Richer colour and contrast in the clothes: a navy suit's folds stand out (their
    lightness spreads half as much again) and its blue deepens."""
    cloth = shoulder_cloth(name)
    before, after = lab(original(name))[cloth], lab(edited(name, presets.CLOTHING_COLORS))[cloth]
    contrast = float(after[:, 0].std() / max(before[:, 0].std(), 1e-3))
    chroma = float(np.linalg.norm(after[:, 1:], axis=1).mean())
    chroma /= max(float(np.linalg.norm(before[:, 1:], axis=1).mean()), 1e-3)
    assert contrast > 1.5 and chroma > 2.0, (
        f"{name}: the clothes' contrast grew {contrast:.2f}×, their colour {chroma:.2f}×"
    )


@pytest.mark.parametrize("preset", [presets.PROFESSIONAL_ATTIRE, presets.FORMAL_JACKET])
@pytest.mark.parametrize("name", [BLACK_HAIR, "obama.jpg"])
def test_a_new_jacket_turns_with_the_body(name: str, preset: str) -> None:
    """A jacket in a photo is lit like the body under it: its front, facing the camera,
    is lighter than its sides, which turn away (a flat colour looks drawn on)."""
    chin_x, chin_y, width, height = face_geometry(name)
    rows, cols = grid(name)
    light = lab(edited(name, preset))[..., 0]
    chest = (rows > chin_y + 0.6 * height) & (rows < chin_y + 0.9 * height)
    aside = np.abs(cols - chin_x) / width
    front = float(np.median(light[chest & (aside > 0.55) & (aside < 0.75)]))
    sides = float(np.median(light[chest & (aside > 1.15) & (aside < 1.35)]))
    assert front > sides + 3.0, f"{preset} on {name}: front {front:.0f} L, sides {sides:.0f} L"
