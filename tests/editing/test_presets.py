"""Each of the editor's twelve presets does what its name says, on real portraits.

The portraits are scikit-image's astronaut (a woman with shoulder-length hair in an orange
flight suit) and two head-and-shoulders crops of the ``face_recognition`` test photos
(``tests.fixtures.corpus``: men with short hair in dark suits). Where the face and the
chest are comes from the corpus' fixed face boxes (measured once from landmarks), not
from the engine's own masks; the hair is the engine's hair mask of the original photo.

Besides its own change, every preset must leave the face alone, give the same pixels
every time, and leave no hard edge where its change fades into the untouched photo.
"""

from __future__ import annotations

import functools
import time

import cv2
import numpy as np
import pytest
from PIL import Image
from scipy.signal import find_peaks

from prettyscore.editing import presets
from prettyscore.editing.engines import local
from prettyscore.editing.engines.local import LocalEditEngine
from prettyscore.editing.engines.masks import Regions
from tests.editing.test_person_masks import LONDON
from tests.fixtures import corpus

ENGINE = LocalEditEngine()
PORTRAITS = ("astronaut", "obama.jpg")
ALL_PORTRAITS = ("astronaut", "obama.jpg", "biden.jpg")


@functools.cache
def photo(name: str) -> corpus.Photo:
    return {p.name: p for p in corpus.portraits()}[name]


def original(name: str) -> np.ndarray:
    return photo(name).image


@functools.cache
def edited(name: str, preset: str) -> np.ndarray:
    result = ENGINE.edit(Image.fromarray(original(name)), preset)
    assert result.mode == "RGB"
    pixels = np.asarray(result)
    assert pixels.shape == original(name).shape
    return pixels


@functools.cache
def regions(name: str) -> Regions:
    return Regions(original(name))


def lab(pixels: np.ndarray) -> np.ndarray:
    """CIELAB, L 0–100, a and b about −127…127."""
    scaled = np.ascontiguousarray(pixels).astype(np.float32) / 255.0
    return cv2.cvtColor(scaled, cv2.COLOR_RGB2LAB)


def box(name: str, left: float, top: float, right: float, bottom: float):
    """Rows and columns placed in face widths (x) and heights (y) from the face box."""
    x, y, w, h = photo(name).face_box
    height, width = original(name).shape[:2]
    rows = slice(max(0, round(y + top * h)), min(height, round(y + bottom * h)))
    cols = slice(max(0, round(x + left * w)), min(width, round(x + right * w)))
    return rows, cols


def inner_face(name: str):
    return box(name, 0.2, 0.25, 0.8, 0.85)


def chest(name: str):
    """Left and right of the chest, below the shoulders' top, away from the V at the neck."""
    return box(name, -0.6, 1.5, 0.15, 2.6), box(name, 0.85, 1.5, 1.6, 2.6)


def mean_change(name: str, preset: str, where) -> float:
    before = original(name)[where].astype(np.float32)
    return float(np.abs(edited(name, preset)[where].astype(np.float32) - before).mean())


def chest_lab(pixels: np.ndarray, name: str) -> np.ndarray:
    left, right = chest(name)
    both = np.concatenate([lab(pixels[left]).reshape(-1, 3), lab(pixels[right]).reshape(-1, 3)])
    return both.mean(axis=0)


def hair_pixels(pixels: np.ndarray, name: str) -> np.ndarray:
    """Lab of the pixels the engine's mask (of the original photo) holds for hair."""
    return lab(pixels)[regions(name).hair > 0.6]


# --- Every preset --------------------------------------------------------------------------


@pytest.mark.parametrize("name", PORTRAITS)
@pytest.mark.parametrize("preset", presets.TAB_PRESETS)
def test_the_face_is_left_as_it_was(preset: str, name: str) -> None:
    assert mean_change(name, preset, inner_face(name)) < 2.5


def hard_edge(before: np.ndarray, after: np.ndarray) -> float:
    """How abruptly the change starts where it meets the untouched photo.

    Looks at the changed pixels next to an unchanged one, where the photo itself is smooth
    (no edge of its own that a sharp mask may rightly follow), and returns the largest
    change there (99.9th percentile, 0–255): a feathered change starts from almost nothing,
    a hard-edged one (a rectangle, a cut-off line) jumps straight to its full strength.
    """
    difference = np.abs(after.astype(np.float32) - before.astype(np.float32)).max(axis=2)
    unchanged = (difference <= 2.0).astype(np.uint8)
    beside = cv2.dilate(unchanged, np.ones((3, 3), np.uint8)).astype(bool) & ~unchanged.astype(bool)
    grey = cv2.cvtColor(np.ascontiguousarray(before), cv2.COLOR_RGB2GRAY).astype(np.float32)
    gradient = np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    smooth = cv2.dilate(gradient, np.ones((5, 5), np.uint8)) < 24.0
    border = difference[beside & smooth]
    if border.size < 50:
        return 0.0
    return float(np.percentile(border, 99.9))


# Hair volume moves the hair's own edge outward: its border is the hair's silhouette (see
# ``test_more_volume_is_a_fuller_head_of_hair``), not a mask fading out.
FADING = [p for p in presets.TAB_PRESETS if p != presets.HAIR_VOLUME]


@pytest.mark.parametrize("name", ALL_PORTRAITS)
@pytest.mark.parametrize("preset", FADING)
def test_no_hard_edge_where_the_change_meets_the_photo(preset: str, name: str) -> None:
    jump = hard_edge(original(name), edited(name, preset))
    assert jump < 40.0, f"{preset} on {name}: the change starts with a jump of {jump:.0f}"


@pytest.mark.parametrize("preset", presets.TAB_PRESETS)
def test_same_photo_same_pixels(preset: str) -> None:
    image = Image.fromarray(original("obama.jpg"))
    first = np.asarray(LocalEditEngine().edit(image, preset))
    assert np.array_equal(first, np.asarray(LocalEditEngine().edit(image, preset)))


def test_each_preset_is_quick_on_a_1024_pixel_photo() -> None:
    """The gallery script prints the real timings; this only catches a gross slow-down."""
    large = Image.fromarray(original("astronaut")).resize((1024, 1024))
    ENGINE.edit(large, presets.BLUR_BACKGROUND)
    for preset in presets.TAB_PRESETS:
        start = time.perf_counter()
        ENGINE.edit(large, preset)
        assert time.perf_counter() - start < 5.0, preset


# --- Outfit --------------------------------------------------------------------------------


def centre_row(pixels: np.ndarray, name: str, depth: float) -> np.ndarray:
    """Lab along a row ``depth`` face heights below the chin, across ±0.8 face widths."""
    x, y, w, h = photo(name).face_box
    row = min(round(y + h + depth * h), pixels.shape[0] - 1)
    cols = slice(round(x + 0.5 * w - 0.8 * w), round(x + 0.5 * w + 0.8 * w))
    return lab(pixels[row : row + 1, cols])[0]


def light_width(pixels: np.ndarray, name: str, depth: float) -> int:
    """How many pixels across the middle of the chest are shirt-light (L above 70)."""
    return int((centre_row(pixels, name, depth)[:, 0] > 70).sum())


@pytest.mark.parametrize("name", ALL_PORTRAITS)
def test_a_formal_jacket_is_dark_and_open_in_a_v_at_the_neck(name: str) -> None:
    after = edited(name, presets.FORMAL_JACKET)
    # The jacket: dark, neutral cloth over the chest and shoulders.
    cloth = chest_lab(after, name)
    assert cloth[0] < 25 and abs(cloth[1]) < 6 and abs(cloth[2]) < 8, cloth
    assert abs(chest_lab(original(name), name)[0] - cloth[0]) > 3 or name != "astronaut"
    # The V: a light shirt at the neck that narrows going down, closed lower down.
    upper, lower = light_width(after, name, 0.3), light_width(after, name, 0.7)
    assert upper > 1.5 * lower > 0, (upper, lower)
    closed = centre_row(after, name, 1.5)
    drawn = np.abs(closed[:, 0] - centre_row(original(name), name, 1.5)[:, 0]) > 8
    assert (closed[drawn, 0] > 60).mean() < 0.1, "the jacket is closed below the V"


def test_a_formal_jacket_changes_the_flight_suit_substantially() -> None:
    before = chest_lab(original("astronaut"), "astronaut")
    after = chest_lab(edited("astronaut", presets.FORMAL_JACKET), "astronaut")
    assert before[0] - after[0] > 25  # the orange suit under a dark jacket
    assert np.hypot(*after[1:]) < 8 < np.hypot(*before[1:])


@pytest.mark.parametrize("name", PORTRAITS)
def test_professional_attire_is_a_navy_suit_with_shirt_and_tie(name: str) -> None:
    after = edited(name, presets.PROFESSIONAL_ATTIRE)
    cloth = chest_lab(after, name)
    assert cloth[0] < 35 and cloth[2] < -10, cloth  # dark navy
    assert light_width(after, name, 0.3) > 1.5 * light_width(after, name, 0.7) > 0
    tie = centre_row(after, name, 0.7)
    middle = len(tie) // 2
    assert tie[middle - 2 : middle + 3, 1].mean() > 15  # a burgundy tie down the middle


@pytest.mark.parametrize("name", PORTRAITS)
def test_a_casual_outfit_is_a_coloured_knit_with_a_round_neck(name: str) -> None:
    before = chest_lab(original(name), name)
    after = chest_lab(edited(name, presets.CASUAL_OUTFIT), name)
    assert 40 < after[0] < 70 and after[2] < -12, after  # a mid, soft blue
    assert np.abs(after - before).max() > 15
    # The V of a suit (or the flight suit's front) is covered by the sweater.
    assert light_width(edited(name, presets.CASUAL_OUTFIT), name, 0.95) == 0


def chroma(values: np.ndarray) -> float:
    return float(np.hypot(values[..., 1], values[..., 2]).mean())


@pytest.mark.parametrize("name", PORTRAITS)
def test_clothing_colours_are_richer(name: str) -> None:
    worn = regions(name).outfit > 0.8
    before = lab(original(name))[worn]
    after = lab(edited(name, presets.CLOTHING_COLORS))[worn]
    assert chroma(after) > 1.25 * chroma(before)


# --- Outfit: what beside the body is clothes ---------------------------------------------


def helmet(name: str = "astronaut"):
    """The dome of the helmet the astronaut holds at her side, under her right arm."""
    return box(name, 1.2, 3.2, 2.0, 4.0)


def far_arm(name: str = "biden.jpg"):
    """Biden's far upper arm, in the jacket's sleeve, above his folded hands."""
    return box(name, 1.5, 1.75, 1.75, 2.15)


@pytest.mark.parametrize("preset", presets.PRESET_GROUPS[presets.OUTFIT])
def test_a_held_helmet_is_not_dressed(preset: str) -> None:
    """What a person holds beside the body is not their clothes: no garment paints it."""
    moved = mean_change("astronaut", preset, helmet())
    assert moved < 2.0, f"{preset}: the helmet she holds changed by {moved:.1f}"


def mean_lab(pixels: np.ndarray, *places) -> np.ndarray:
    return np.concatenate([lab(pixels[where]).reshape(-1, 3) for where in places]).mean(axis=0)


@pytest.mark.parametrize("preset", [presets.PROFESSIONAL_ATTIRE, presets.CASUAL_OUTFIT])
def test_the_far_arm_gets_the_new_garment_too(preset: str) -> None:
    """The far sleeve takes the new garment's colour as the chest does (a navy suit and
    a blue sweater over a black suit; a black jacket over it would not show): within 4
    of the chest's colour (a, b), where before the edit it was 15 away."""
    after = edited("biden.jpg", preset)
    on_chest = mean_lab(after, *chest("biden.jpg"))
    apart = float(np.linalg.norm(mean_lab(after, far_arm())[1:] - on_chest[1:]))
    was = float(np.linalg.norm(mean_lab(original("biden.jpg"), far_arm())[1:] - on_chest[1:]))
    assert was > 10.0, f"{preset}: the old sleeve was already the new colour ({was:.0f})"
    assert apart < 4.0, f"{preset}: the far sleeve's colour is {apart:.1f} from the chest's"


# --- Hair ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PORTRAITS)
def test_blonde_hair_is_lighter_and_golden(name: str) -> None:
    before = hair_pixels(original(name), name).mean(axis=0)
    after = hair_pixels(edited(name, presets.HAIR_BLONDE), name).mean(axis=0)
    assert after[0] > before[0] + 12  # lighter
    assert after[2] > before[2] + 12  # more yellow (b*)
    assert after[0] > 50


@pytest.mark.parametrize("name", ALL_PORTRAITS)
def test_highlights_are_lighter_warmer_strands(name: str) -> None:
    before = hair_pixels(original(name), name)
    after = hair_pixels(edited(name, presets.HAIR_HIGHLIGHTS), name)
    lifted = (after[:, 0] - before[:, 0] > 8) | (after[:, 2] - before[:, 2] > 10)
    # Strands, not a new colour all over: some of the hair, not all of it.
    assert 0.15 < lifted.mean() < 0.8, lifted.mean()
    assert (after[lifted, 2] - before[lifted, 2]).mean() > 8  # golden
    assert (after[~lifted, 0] - before[~lifted, 0]).mean() < 8  # between them, the hair's own


def gaps_between_streaks(weight: np.ndarray, frame, reach: float) -> np.ndarray:
    """The gaps (pixels) between neighbouring highlight streaks met along an arc
    ``reach`` head heights from the crown, across the hair's flow, either side of the
    face."""
    crown_y = frame.cy - 0.8 * frame.ay
    angles = np.linspace(-2.2, 2.2, 4000)
    xs = np.round(frame.cx + reach * frame.ay * np.sin(angles)).astype(int)
    ys = np.round(crown_y + reach * frame.ay * np.cos(angles)).astype(int)
    inside = (xs >= 0) & (ys >= 0) & (xs < weight.shape[1]) & (ys < weight.shape[0])
    peaks, _ = find_peaks(weight[ys[inside], xs[inside]], height=0.5, prominence=0.3)
    return np.diff(peaks)


@pytest.mark.parametrize("reach", [0.6, 1.0, 1.4])
def test_highlights_are_uneven_like_a_colourists(reach: float) -> None:
    """Streaks at even gaps read as a comb drawn over the hair; foils are placed unevenly:
    the gaps between streaks vary by at least 40 % of their mean (a comb: 23–30 %)."""
    name = "129_03.jpg"  # long black hair, where streaks show most (test_person_masks)
    pixels = np.asarray(Image.open(LONDON / name).convert("RGB"))
    found = Regions(pixels)
    weight = local._streaks(pixels.shape[:2], (0, 0), found)
    gaps = gaps_between_streaks(weight, local.head_frame(found), reach)
    assert len(gaps) > 15, "too few streaks across the hair"
    spread = float(gaps.std() / gaps.mean())
    assert spread > 0.4, f"the gaps between streaks vary by only {spread:.0%}"


def fine_texture(pixels: np.ndarray, where: np.ndarray) -> float:
    """Mean detail finer than a couple of pixels (strands, frizz) inside ``where``."""
    grey = cv2.cvtColor(np.ascontiguousarray(pixels), cv2.COLOR_RGB2GRAY).astype(np.float32)
    return float(np.abs(grey - cv2.GaussianBlur(grey, (0, 0), 1.5))[where].mean())


@pytest.mark.parametrize("name", PORTRAITS)
def test_polished_hair_is_smoother_and_glossy(name: str) -> None:
    hair = regions(name).hair > 0.6
    before, after = original(name), edited(name, presets.HAIR_POLISHED)
    assert fine_texture(after, hair) < 0.8 * fine_texture(before, hair)
    # A band of shine: part of the hair much brighter than the rest.
    lighter = (lab(after)[..., 0] - lab(before)[..., 0])[hair]
    shine, typical = np.percentile(lighter, 95), np.median(lighter)
    assert shine > 10 and shine > typical + 8, (shine, typical)


def head_top(pixels: np.ndarray, name: str) -> float:
    """The subject's top above the face's middle, as the segmentation sees it."""
    x, y, w, h = photo(name).face_box
    subject = Regions(pixels).subject
    band = subject[: round(y + 0.5 * h), round(x + 0.3 * w) : round(x + 0.7 * w)]
    return float(np.flatnonzero(band.mean(axis=1) > 0.5)[0])


@pytest.mark.parametrize("name", ALL_PORTRAITS)
def test_more_volume_is_a_fuller_head_of_hair(name: str) -> None:
    h = photo(name).face_box[3]
    before = head_top(original(name), name)
    after = head_top(edited(name, presets.HAIR_VOLUME), name)
    assert before - after > 0.04 * h, (before, after)
    # The background beside the head is the photo's own, not stretched.
    far = box(name, -1.4, -0.4, -0.9, 0.2)
    assert mean_change(name, presets.HAIR_VOLUME, far) < 1.0
    # The hair's new outline is no sharper than its old one (no cut-out look).
    assert (
        top_edge(edited(name, presets.HAIR_VOLUME), name) < 1.3 * top_edge(original(name), name) + 4
    )


def top_edge(pixels: np.ndarray, name: str) -> float:
    """The steepest step of lightness, per pixel, going down through the top of the head."""
    x, y, w, h = photo(name).face_box
    band = lab(pixels[: round(y + 0.2 * h), round(x + 0.3 * w) : round(x + 0.7 * w)])[..., 0]
    return float(np.percentile(np.abs(np.diff(band, axis=0)).max(axis=0), 90))


# --- Background ----------------------------------------------------------------------------


def corners(pixels: np.ndarray) -> np.ndarray:
    height, width = pixels.shape[:2]
    size = max(8, height // 12)
    return np.concatenate(
        [pixels[:size, :size].reshape(-1, 3), pixels[:size, width - size :].reshape(-1, 3)]
    ).astype(np.float32)


def sharpness(pixels: np.ndarray) -> float:
    grey = cv2.cvtColor(np.ascontiguousarray(pixels), cv2.COLOR_RGB2GRAY)
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


@pytest.mark.parametrize("name", PORTRAITS)
def test_background_presets_replace_the_background_as_named(name: str) -> None:
    assert corners(edited(name, presets.REMOVE_BACKGROUND)).mean() > 250
    sky = corners(edited(name, presets.OUTDOOR_BACKGROUND))
    assert sky[:, 2].mean() > sky[:, 0].mean() + 30
    studio = corners(edited(name, presets.STUDIO_BACKGROUND))
    assert np.abs(studio[:, 0] - studio[:, 1]).max() < 6
    height, width = original(name).shape[:2]
    strip = (slice(0, height // 8), slice(0, width // 6))
    blurred = edited(name, presets.BLUR_BACKGROUND)
    assert sharpness(blurred[strip]) < 0.3 * sharpness(original(name)[strip])
