"""The local edit engine on real photos: no mocks.

Each preset must change its own part of the astronaut portrait far more than the rest,
and leave a face the scoring analysis still finds. Regions are measured from the face
box the scoring analysis reports, not from the engine's own masks.
"""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np
import pytest
from PIL import Image

from prettyscore.analysis.face import analyse_face
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed
from prettyscore.editing import presets
from prettyscore.editing.engines import engine_named
from prettyscore.editing.engines.base import UNSUPPORTED_EDIT, EditEngine
from prettyscore.editing.engines.local import LocalEditEngine, understood
from tests.fixtures import corpus, photos

ENGINE = LocalEditEngine()


@functools.cache
def original() -> np.ndarray:
    return photos.astronaut()


@functools.cache
def face_box() -> tuple[int, int, int, int]:
    return analyse_face(original()).face_box


@functools.cache
def edited(prompt: str) -> np.ndarray:
    result = ENGINE.edit(Image.fromarray(original()), prompt)
    assert result.mode == "RGB"
    return np.asarray(result)


def region(name: str) -> tuple[slice, slice]:
    """Parts of the portrait, placed from the face box (x, y, w, h)."""
    x, y, w, h = face_box()
    height, width = original().shape[:2]
    rows = {
        "face": (y + 0.2 * h, y + 0.8 * h),
        "above_face": (y - 0.35 * h, y),
        "below_face": (y + 1.8 * h, height),
        "lower_torso": (y + 3.0 * h, height),
        "top_strip": (0, 0.6 * y),
    }[name]
    cols = {
        "face": (x + 0.2 * w, x + 0.8 * w),
        "above_face": (x + 0.1 * w, x + 0.9 * w),
        "below_face": (x - 0.8 * w, x + 1.2 * w),
        "lower_torso": (x - 0.8 * w, x + 1.2 * w),
        "top_strip": (0, x - 0.4 * w),
    }[name]
    return (
        slice(max(0, round(rows[0])), min(height, round(rows[1]))),
        slice(max(0, round(cols[0])), min(width, round(cols[1]))),
    )


def change(before: np.ndarray, after: np.ndarray, name: str) -> float:
    """Mean absolute difference (0–255) inside a region."""
    where = region(name)
    return float(np.abs(after[where].astype(np.float32) - before[where].astype(np.float32)).mean())


# Background presets: the background changes a lot, the face hardly.
# Hair presets: above the face changes, the lower torso does not.
# Outfit presets: below the face changes, the face does not.
INTENDED = {
    **{p: ("top_strip", "face") for p in presets.PRESET_GROUPS[presets.BACKGROUND]},
    **{p: ("above_face", "lower_torso") for p in presets.PRESET_GROUPS[presets.HAIR]},
    **{p: ("below_face", "face") for p in presets.PRESET_GROUPS[presets.OUTFIT]},
}


def test_the_documents_presets_in_their_tabs() -> None:
    assert list(presets.PRESET_GROUPS) == ["Background", "Hair", "Outfit"]
    assert presets.PRESET_GROUPS["Background"] == (
        "Remove background",
        "Blur background",
        "Change to outdoor background",
        "Change to studio background",
    )
    assert presets.PRESET_GROUPS["Hair"] == (
        "Improve hair volume",
        "Change hair color to blonde",
        "Add natural highlights",
        "Make hair look more polished",
    )
    assert presets.PRESET_GROUPS["Outfit"] == (
        "Change to professional attire",
        "Change to casual outfit",
        "Add formal jacket",
        "Improve clothing colors",
    )
    assert "4K" in presets.UPSCALE_PROMPT
    assert len(presets.ALL_PRESETS) == 13


def test_the_engine_meets_the_interface() -> None:
    assert isinstance(ENGINE, EditEngine)
    assert engine_named("local").name == "local"
    with pytest.raises(ValueError):
        engine_named("nonsense")


@pytest.mark.parametrize("preset", presets.TAB_PRESETS)
def test_each_preset_changes_its_own_region(preset: str) -> None:
    target, elsewhere = INTENDED[preset]
    after = edited(preset)
    assert after.shape == original().shape
    inside = change(original(), after, target)
    outside = change(original(), after, elsewhere)
    assert inside > 8.0, f"{preset}: {target} changed by only {inside:.1f}"
    assert inside > 3.0 * outside + 2.0, f"{preset}: {inside:.1f} in {target}, {outside:.1f}"


@pytest.mark.parametrize("preset", presets.TAB_PRESETS)
def test_the_face_is_still_found_after_each_preset(preset: str) -> None:
    result = analyse_face(edited(preset))
    x, y, w, h = face_box()
    rx, ry, rw, rh = result.face_box
    assert abs(rx - x) < 0.25 * w and abs(ry - y) < 0.25 * h
    assert 0.75 < rw / w < 1.33


def test_background_presets_replace_the_background_as_named() -> None:
    strip = region("top_strip")
    removed = edited(presets.REMOVE_BACKGROUND)[strip].astype(np.float32)
    assert removed.mean() > 250
    outdoor = edited(presets.OUTDOOR_BACKGROUND)[strip].astype(np.float32)
    assert outdoor[..., 2].mean() > outdoor[..., 0].mean() + 30  # blue sky
    # The lower left edge beside her arm (the flag) is background: grass there.
    lower_left = edited(presets.OUTDOOR_BACKGROUND)[300:330, :8].astype(np.float32)
    assert lower_left[..., 1].mean() > lower_left[..., 0].mean() + 20  # green grass
    studio = edited(presets.STUDIO_BACKGROUND)[strip].astype(np.float32)
    assert np.abs(studio[..., 0] - studio[..., 1]).max() < 6  # neutral grey
    blurred = edited(presets.BLUR_BACKGROUND)
    assert sharpness(blurred[strip]) < 0.3 * sharpness(original()[strip])
    face = region("face")
    assert sharpness(blurred[face]) > 0.9 * sharpness(original()[face])


def sharpness(pixels: np.ndarray) -> float:
    grey = cv2.cvtColor(np.ascontiguousarray(pixels), cv2.COLOR_RGB2GRAY)
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


def fine_texture(pixels: np.ndarray) -> float:
    """Mean detail finer than a couple of pixels (pores, freckles, grain)."""
    grey = cv2.cvtColor(np.ascontiguousarray(pixels), cv2.COLOR_RGB2GRAY).astype(np.float32)
    return float(np.abs(grey - cv2.GaussianBlur(grey, (0, 0), 1.5)).mean())


def mean_lab(pixels: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(np.ascontiguousarray(pixels), cv2.COLOR_RGB2LAB).reshape(-1, 3).mean(0)


def test_blonde_hair_is_lighter_and_more_golden() -> None:
    where = region("above_face")
    before, after = mean_lab(original()[where]), mean_lab(edited(presets.HAIR_BLONDE)[where])
    assert after[0] > before[0] + 20  # lighter
    assert after[2] > before[2] + 5  # more yellow (b*)


def test_professional_attire_is_darker_and_muted() -> None:
    where = region("below_face")
    before = original()[where].astype(np.float32)
    after = edited(presets.PROFESSIONAL_ATTIRE)[where].astype(np.float32)
    assert after.mean() < before.mean() - 20
    assert chroma(after) < 0.6 * chroma(before)


def chroma(pixels: np.ndarray) -> float:
    """Mean CIELAB chroma: how colourful, whatever the lightness (a navy is not vivid)."""
    lab = cv2.cvtColor(np.clip(pixels, 0, 255) / 255.0, cv2.COLOR_RGB2LAB)
    return float(np.hypot(lab[..., 1], lab[..., 2]).mean())


def saturation(pixels: np.ndarray) -> float:
    hsv = cv2.cvtColor(np.clip(pixels, 0, 255).astype(np.uint8), cv2.COLOR_RGB2HSV)
    return float(hsv[..., 1].mean())


def test_upscale_gives_a_3840_pixel_long_side() -> None:
    wide = Image.fromarray(original()).resize((640, 480))
    result = ENGINE.edit(wide, presets.UPSCALE_PROMPT)
    assert result.size == (3840, 2880)
    assert result.mode == "RGB"
    square = ENGINE.edit(Image.fromarray(original()), "upscale to 4k")
    assert square.size == (3840, 3840)


def luminance(pixels: np.ndarray) -> float:
    return float(cv2.cvtColor(np.ascontiguousarray(pixels), cv2.COLOR_RGB2GRAY).mean())


def red_blue(pixels: np.ndarray) -> float:
    return float(pixels[..., 0].astype(np.float32).mean() / pixels[..., 2].mean())


def test_keyword_prompts_do_what_they_say() -> None:
    before = original()
    assert luminance(edited("Make it brighter")) > luminance(before) + 10
    assert luminance(edited("a bit darker please")) < luminance(before) - 10
    assert red_blue(edited("WARMER tones")) > red_blue(before) * 1.15
    assert red_blue(edited("cooler")) < red_blue(before) * 0.85
    for prompt in ("black and white", "make it B&W", "grayscale", "Monochrome"):
        assert saturation(edited(prompt).astype(np.float32)) < 1.0, prompt
    assert saturation(edited("more vivid colours").astype(np.float32)) > saturation(before) * 1.2
    vintage = edited("vintage look").astype(np.float32)
    assert vintage[..., 0].mean() > vintage[..., 1].mean() > vintage[..., 2].mean()
    assert saturation(vintage) < saturation(before)
    assert sharpness(edited("sharpen")) > 1.5 * sharpness(before)
    assert edited("more contrast").std() > before.std() * 1.15


def test_smoother_skin_softens_the_skin_and_keeps_the_features_sharp() -> None:
    """A retoucher's smoothing: the cheek loses its fine texture; the eyes and the smile
    keep theirs (a filter over the whole face took 29% and 34% of it); nothing outside
    the face changes."""
    after = edited("smooth skin")
    x, y, w, h = face_box()

    def box(top: float, bottom: float, left: float, right: float) -> tuple[slice, slice]:
        return (
            slice(round(y + top * h), round(y + bottom * h)),
            slice(round(x + left * w), round(x + right * w)),
        )

    def kept(where: tuple[slice, slice]) -> float:
        return fine_texture(after[where]) / fine_texture(original()[where])

    cheek_under_the_eye = box(0.48, 0.6, 0.12, 0.3)
    assert kept(cheek_under_the_eye) < 0.8
    assert kept(box(0.3, 0.45, 0.15, 0.85)) > 0.85  # eyes and brows
    assert kept(box(0.68, 0.85, 0.25, 0.75)) > 0.9  # lips and teeth
    assert change(original(), after, "top_strip") == 0.0
    assert change(original(), after, "lower_torso") == 0.0


@pytest.mark.parametrize("name", corpus.PORTRAIT_NAMES)
def test_rescoring_after_smoothing_the_skin_shows_smoother_skin_and_no_lower_score(
    name: str,
) -> None:
    """ "Photo enhanced! Click Analyze to see your new score.": after "smooth my skin" the
    analysis must read a smoother skin, and the eyes, brows, nose and lips, whose edges
    say how sharp the photo is, as sharp as before (a filter over the whole face once
    blurred them: biden.jpg read 26% softer and fell from 8.7 to 7.0)."""
    portrait = corpus.portrait(name)
    before = analyse_face(portrait.image)
    retouched = np.asarray(ENGINE.edit(Image.fromarray(portrait.image), "smooth my skin"))
    after = analyse_face(retouched)
    assert after.measures["skin_evenness"] < 0.95 * before.measures["skin_evenness"]
    assert after.measures["sharpness"] <= 1.03 * before.measures["sharpness"]
    assert after.breakdown["skinQuality"] >= before.breakdown["skinQuality"]
    assert after.score >= before.score


def test_background_words_map_to_the_presets() -> None:
    assert np.array_equal(edited("blur the background"), edited(presets.BLUR_BACKGROUND))
    assert np.array_equal(edited("remove background"), edited(presets.REMOVE_BACKGROUND))
    assert np.array_equal(edited("  REMOVE BACKGROUND. "), edited(presets.REMOVE_BACKGROUND))


def test_several_keywords_combine() -> None:
    assert understood("Warmer and brighter, with a blurred background") == [
        "blur background",
        "brighter",
        "warmer",
    ]
    after = edited("Warmer and brighter")
    assert luminance(after) > luminance(original()) + 5
    assert red_blue(after) > red_blue(original()) * 1.1


@pytest.mark.parametrize("prompt", ["Make me a pirate", "add a hat", "xyz", "turn into anime"])
def test_an_unknown_prompt_is_refused_as_unsupported(prompt: str) -> None:
    with pytest.raises(ValidationFailed) as raised:
        ENGINE.edit(Image.fromarray(original()), prompt)
    assert raised.value.code == UNSUPPORTED_EDIT
    assert raised.value.message == messages.EDIT_NOT_SUPPORTED


@pytest.mark.parametrize("prompt", ["", "   ", "\n\t"])
def test_a_blank_prompt_asks_for_an_instruction(prompt: str) -> None:
    with pytest.raises(ValidationFailed) as raised:
        ENGINE.edit(Image.fromarray(original()), prompt)
    assert raised.value.message == messages.PLEASE_ENTER_EDIT_INSTRUCTION
    assert raised.value.code != UNSUPPORTED_EDIT


def test_same_photo_and_prompt_give_the_same_pixels_in_any_thread() -> None:
    image = Image.fromarray(original())
    first = np.asarray(LocalEditEngine().edit(image, presets.OUTDOOR_BACKGROUND))
    with ThreadPoolExecutor(max_workers=2) as pool:
        others = list(
            pool.map(
                lambda _: np.asarray(LocalEditEngine().edit(image, presets.OUTDOOR_BACKGROUND)),
                range(2),
            )
        )
    for other in others:
        assert np.array_equal(first, other)


def test_a_photo_without_a_face_is_still_edited() -> None:
    coffee = Image.fromarray(photos.coffee())
    for preset in (presets.BLUR_BACKGROUND, presets.HAIR_BLONDE, presets.CASUAL_OUTFIT):
        result = ENGINE.edit(coffee, preset)
        assert result.size == coffee.size
        assert not np.array_equal(np.asarray(result), photos.coffee())


def test_other_image_modes_are_accepted() -> None:
    rgba = Image.fromarray(original()).convert("RGBA")
    grey = Image.fromarray(original()).convert("L")
    assert ENGINE.edit(rgba, "warmer").mode == "RGB"
    assert ENGINE.edit(grey, "brighter").mode == "RGB"
