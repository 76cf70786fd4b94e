"""The ``analysis`` engine on real photos: what a visitor uploading them would see.

No mocks: every test runs the real OpenCV analysis on scikit-image's photos and the
ordinary changes a phone or an editor makes to them.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np
import pytest

from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed
from prettyscore.scoring.engines.base import BREAKDOWN_KEYS, FaceAnalysis
from prettyscore.scoring.engines.face import HaarFaceEngine
from tests.scoring import photos

# How far an ordinary edit of the same photo may move the score.
SAME_FACE_TOLERANCE = 0.5


@pytest.fixture(scope="module")
def engine() -> HaarFaceEngine:
    return HaarFaceEngine()


@pytest.fixture(scope="module")
def astronaut_result(engine) -> FaceAnalysis:
    return engine.analyse(photos.astronaut())


def refusal(engine: HaarFaceEngine, image: np.ndarray) -> str:
    """The message the visitor sees for a photo that must be refused."""
    with pytest.raises(ValidationFailed) as refused:
        engine.analyse(image)
    return refused.value.message


def is_one_decimal(value: float) -> bool:
    return abs(value * 10 - round(value * 10)) < 1e-9


# ---------------------------------------------------------------------------
# One real face
# ---------------------------------------------------------------------------
def test_the_astronaut_gets_a_flattering_score_on_the_one_to_ten_scale(astronaut_result):
    assert 6.5 <= astronaut_result.score <= 9.5
    assert is_one_decimal(astronaut_result.score)
    assert astronaut_result.engine == "analysis"


def test_the_breakdown_has_exactly_the_three_measures_out_of_ten(astronaut_result):
    assert tuple(astronaut_result.breakdown) == BREAKDOWN_KEYS
    for value in astronaut_result.breakdown.values():
        assert 0.0 <= value <= 10.0
        assert is_one_decimal(value)


def test_the_face_box_is_on_the_astronauts_face(astronaut_result):
    # Her face spans roughly x 180–270, y 70–165 in the 512×512 portrait.
    x, y, w, h = astronaut_result.face_box
    assert 200 <= x + w / 2 <= 250
    assert 95 <= y + h / 2 <= 140
    assert 70 <= w <= 130


def test_her_eyes_are_found_so_the_face_is_levelled_and_measured(astronaut_result):
    assert astronaut_result.measures["eyes_found"] == 1.0
    assert 0.35 <= astronaut_result.measures["spacing"] <= 0.55


# ---------------------------------------------------------------------------
# Photos without a (human, frontal) face
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "image",
    [photos.coffee(), photos.chelsea(), photos.camera_man()],
    ids=["coffee cup", "cat", "man in profile"],
)
def test_photos_without_a_frontal_human_face_are_refused(engine, image):
    assert refusal(engine, image) == messages.NO_FACE_FOUND


def test_a_plain_grey_image_and_a_tiny_image_have_no_face(engine):
    assert refusal(engine, np.full((600, 800, 3), 128, np.uint8)) == messages.NO_FACE_FOUND
    assert refusal(engine, np.full((10, 10, 3), 128, np.uint8)) == messages.NO_FACE_FOUND


# ---------------------------------------------------------------------------
# Photos that cannot be judged
# ---------------------------------------------------------------------------
def test_two_faces_side_by_side_are_refused(engine):
    pair = photos.side_by_side(photos.astronaut(), photos.astronaut())
    assert refusal(engine, pair) == messages.SEVERAL_FACES


def test_a_second_face_of_real_size_in_the_background_is_refused(engine):
    assert refusal(engine, photos.with_background_face(0.4)) == messages.SEVERAL_FACES


def test_a_small_face_far_in_the_background_does_not_count(engine):
    result = engine.analyse(photos.with_background_face(0.2))
    x, y, w, h = result.face_box
    assert w > 250 and x < 300 and y < 300  # the large face, top left, was scored


@pytest.mark.parametrize("sigma", [3.0, 5.0])
def test_a_heavily_blurred_face_is_refused(engine, sigma):
    image = photos.blurred(photos.astronaut(), sigma)
    assert refusal(engine, image) == messages.FACE_TOO_BLURRED


def test_a_very_dark_photo_is_refused(engine):
    image = photos.scaled_light(photos.astronaut(), 0.15)
    assert refusal(engine, image) == messages.FACE_TOO_DARK


def test_a_black_image_is_too_dark_rather_than_faceless(engine):
    assert refusal(engine, np.zeros((400, 400, 3), np.uint8)) == messages.FACE_TOO_DARK


def test_a_washed_out_photo_is_refused(engine):
    image = photos.brighter(photos.astronaut(), 100)
    assert refusal(engine, image) == messages.FACE_TOO_BRIGHT


# ---------------------------------------------------------------------------
# The same photo always gets the same score
# ---------------------------------------------------------------------------
def test_the_same_photo_twice_gives_the_identical_result(engine, astronaut_result):
    again = engine.analyse(photos.astronaut())
    assert again == astronaut_result


def test_a_fresh_engine_gives_the_identical_result(astronaut_result):
    assert HaarFaceEngine().analyse(photos.astronaut()) == astronaut_result


def test_the_result_does_not_depend_on_opencvs_thread_count(engine, astronaut_result):
    threads = cv2.getNumThreads()
    try:
        cv2.setNumThreads(1)
        single = engine.analyse(photos.astronaut())
    finally:
        cv2.setNumThreads(threads)
    assert single == astronaut_result


def test_concurrent_analyses_give_the_same_result(engine, astronaut_result):
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: engine.analyse(photos.astronaut()), range(8)))
    assert all(result == astronaut_result for result in results)


# ---------------------------------------------------------------------------
# Ordinary edits of the same photo stay within half a point
# ---------------------------------------------------------------------------
EDITS = {
    "brighter": lambda image: photos.brighter(image, 40),
    "darker": lambda image: photos.brighter(image, -40),
    "under-exposed": lambda image: photos.scaled_light(image, 0.6),
    "low contrast": lambda image: photos.contrast(image, 0.6),
    "high contrast": lambda image: photos.contrast(image, 1.3),
    "warm light": lambda image: photos.colour_cast(image, 1.15, 1.0, 0.85),
    "cool light": lambda image: photos.colour_cast(image, 0.85, 1.0, 1.15),
    "green cast": lambda image: photos.colour_cast(image, 0.9, 1.1, 0.9),
    "black and white": photos.greyscale,
    "mirrored": photos.mirrored,
    "tilted left": lambda image: photos.rotated(image, 5),
    "tilted right": lambda image: photos.rotated(image, -5),
    "jpeg quality 70": lambda image: photos.jpeg_round_trip(image, 70),
    "slightly soft": lambda image: photos.blurred(image, 1.0),
    "cropped to the head": lambda image: np.ascontiguousarray(image[20:260, 120:330]),
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_an_edited_copy_scores_within_half_a_point(engine, astronaut_result, edit):
    result = engine.analyse(edit(photos.astronaut()))
    assert abs(result.score - astronaut_result.score) <= SAME_FACE_TOLERANCE


def test_a_12_megapixel_copy_scores_like_the_original(engine, astronaut_result):
    big = photos.twelve_megapixels(photos.astronaut())
    assert big.shape == (3000, 4000, 3)
    result = engine.analyse(big)
    assert abs(result.score - astronaut_result.score) <= SAME_FACE_TOLERANCE
    x, y, w, h = result.face_box
    assert 500 + 3000 * 200 / 512 <= x + w / 2 <= 500 + 3000 * 250 / 512


def test_the_mirror_image_finds_the_mirrored_face(engine, astronaut_result):
    result = engine.analyse(photos.mirrored(photos.astronaut()))
    x, _, w, _ = result.face_box
    ox, _, ow, _ = astronaut_result.face_box
    assert abs((x + w / 2) - (512 - (ox + ow / 2))) <= 4


# ---------------------------------------------------------------------------
# The measures respond to what they say they measure
# ---------------------------------------------------------------------------
def test_blemishes_on_the_cheeks_lower_skin_quality_and_the_score(engine, astronaut_result):
    spotted = engine.analyse(photos.with_blemishes(photos.astronaut()))
    assert spotted.breakdown["skinQuality"] <= astronaut_result.breakdown["skinQuality"] - 1.0
    assert spotted.score < astronaut_result.score


def test_a_strongly_tilted_head_lowers_facial_harmony(engine, astronaut_result):
    tilted = engine.analyse(photos.rotated(photos.astronaut(), -12))
    assert tilted.measures["tilt"] > 10
    assert tilted.breakdown["facialHarmony"] < astronaut_result.breakdown["facialHarmony"]


# ---------------------------------------------------------------------------
# Input the upload code might hand over
# ---------------------------------------------------------------------------
def test_an_rgba_or_greyscale_array_is_analysed_like_rgb(engine, astronaut_result):
    image = photos.astronaut()
    rgba = np.dstack([image, np.full(image.shape[:2], 255, np.uint8)])
    assert engine.analyse(rgba).score == astronaut_result.score
    grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    assert engine.analyse(grey).score == astronaut_result.score


def test_a_non_image_array_is_a_programming_error(engine):
    with pytest.raises(TypeError):
        engine.analyse(photos.astronaut().astype(np.float32))
    with pytest.raises(ValueError):
        engine.analyse(np.zeros((10, 10, 5), np.uint8))
