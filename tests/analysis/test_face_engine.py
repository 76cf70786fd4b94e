"""The ``analysis`` engine on real photos: what a visitor uploading them would see.

No mocks: every test runs MediaPipe's models and our measures on scikit-image's photos
and the ordinary changes a phone or an editor makes to them. The many-faces suite
(skin tones, exposure, sizes, several people) is ``test_fairness.py``.
"""

from __future__ import annotations

import math
import statistics
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from prettyscore.analysis.engines import (
    face_calibration,
    face_landmarks,
    face_mesh,
    face_mesh_points,
    face_skin,
)
from prettyscore.analysis.engines.base import BREAKDOWN_KEYS, FaceAnalysis
from prettyscore.analysis.engines.face_mesh import FaceMeshEngine
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed
from tests.fixtures import corpus, photos

# How far an ordinary edit of the same photo may move the score.
SAME_FACE_TOLERANCE = 0.5


FACES = Path(__file__).resolve().parents[1] / "fixtures" / "faces"


@pytest.fixture(scope="module")
def engine() -> FaceMeshEngine:
    return FaceMeshEngine()


@pytest.fixture(scope="module")
def astronaut_result(engine) -> FaceAnalysis:
    return engine.analyse(photos.astronaut())


def refusal(engine: FaceMeshEngine, image: np.ndarray) -> str:
    """The message the visitor sees for a photo that must be refused."""
    with pytest.raises(ValidationFailed) as refused:
        engine.analyse(image)
    return refused.value.message


def is_one_decimal(value: float) -> bool:
    return abs(value * 10 - round(value * 10)) < 1e-9


# ---------------------------------------------------------------------------
# One real face
# ---------------------------------------------------------------------------
def test_the_astronaut_gets_a_score_on_the_one_to_ten_scale(astronaut_result):
    assert 6.0 <= astronaut_result.score <= 10.0
    assert is_one_decimal(astronaut_result.score)
    assert astronaut_result.engine == "analysis"


def test_the_breakdown_has_exactly_the_three_measures_out_of_ten(astronaut_result):
    assert tuple(astronaut_result.breakdown) == BREAKDOWN_KEYS
    for value in astronaut_result.breakdown.values():
        assert 0.0 <= value <= 10.0
        assert is_one_decimal(value)


def test_the_face_box_is_on_the_astronauts_face(astronaut_result):
    # Her face spans roughly x 180–270, y 70–175 in the 512×512 portrait.
    x, y, w, h = astronaut_result.face_box
    assert 200 <= x + w / 2 <= 250
    assert 100 <= y + h / 2 <= 140
    assert 75 <= w <= 120


def test_the_result_says_what_was_measured_against_which_ideal(astronaut_result):
    notes = astronaut_result.notes
    assert {note.part for note in notes} == set(BREAKDOWN_KEYS)
    names = {note.name for note in notes}
    assert {
        "Eyes",
        "Overall impression",
        "Skin evenness",
        "Face length to width",
        "This photo",
    } <= names
    for note in notes:
        # Symmetry's first note says it does not count; the learned term and the photo's
        # part are sentences without an ideal range of their own.
        if note.key in ("symmetry_counts", "impression", "photo"):
            continue
        low, high = note.ideal
        assert low <= high
        assert any(f"{note.value:.{digits}f}" in note.text for digits in (1, 2, 3))
        shown = [bound for bound in (low, high) if math.isfinite(bound)]
        assert any(f"{bound:.{d}f}" in note.text for bound in shown for d in (1, 2, 3))
    skin = next(note for note in notes if note.key == "skin_evenness")
    assert "more even skin raises your score" in skin.text


def test_the_overlay_lines_lie_on_the_face_inside_the_picture(astronaut_result):
    x, y, w, h = astronaut_result.view_box
    assert w == h and x >= 0 and y >= 0 and x + w <= 512 and y + h <= 512
    fx, fy, fw, fh = astronaut_result.face_box
    assert x <= fx and y <= fy and fx + fw <= x + w and fy + fh <= y + h
    parts = {line.part for line in astronaut_result.overlay}
    assert parts == set(BREAKDOWN_KEYS)
    for line in astronaut_result.overlay:
        for px, py in line.points:
            assert x - 2 <= px <= x + w + 2 and y - 2 <= py <= y + h + 2


# ---------------------------------------------------------------------------
# Photos without a face, or with a face that cannot be measured
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("image", [photos.coffee(), photos.chelsea()], ids=["coffee", "cat"])
def test_photos_without_a_human_face_are_refused(engine, image):
    assert refusal(engine, image) == messages.NO_FACE_FOUND


def test_a_man_in_profile_is_asked_to_face_the_camera(engine):
    assert refusal(engine, photos.camera_man()) == messages.FACE_NOT_FRONTAL


def test_a_plain_grey_image_and_a_tiny_image_have_no_face(engine):
    assert refusal(engine, np.full((600, 800, 3), 128, np.uint8)) == messages.NO_FACE_FOUND
    assert refusal(engine, np.full((10, 10, 3), 128, np.uint8)) == messages.NO_FACE_FOUND


def test_two_faces_side_by_side_are_refused(engine):
    pair = photos.side_by_side(photos.astronaut(), photos.astronaut())
    assert refusal(engine, pair) == messages.SEVERAL_FACES


def test_a_second_face_of_real_size_in_the_background_is_refused(engine):
    assert refusal(engine, photos.with_background_face(0.4)) == messages.SEVERAL_FACES


def test_a_small_face_far_in_the_background_does_not_count(engine):
    result = engine.analyse(photos.with_background_face(0.2))
    x, y, w, h = result.face_box
    assert w > 250 and x < 300 and y < 300  # the large face, top left, was scored


def portrait_in_a_large_photo(face_width: int, size: tuple[int, int]) -> np.ndarray:
    """The astronaut, scaled so her face is ``face_width`` pixels wide, in the upper
    middle of a large photo (width, height) of other things: a full-length shot's face."""
    scale = face_width / 92  # her face is about 92 pixels wide in the portrait
    head = cv2.resize(photos.astronaut(), None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    canvas = cv2.resize(photos.coffee(), size, interpolation=cv2.INTER_CUBIC)
    top, left = size[1] // 12, (size[0] - head.shape[1]) // 2
    canvas[top : top + head.shape[0], left : left + head.shape[1]] = head
    return canvas


@pytest.mark.parametrize("size", [(1333, 2000), (4000, 3000)], ids=["2000 px", "12 MP"])
def test_a_150_pixel_face_in_a_large_photo_is_measured(engine, astronaut_result, size):
    result = engine.analyse(portrait_in_a_large_photo(150, size))
    assert 140 <= result.face_box[2] <= 165
    assert abs(result.score - astronaut_result.score) <= SAME_FACE_TOLERANCE


def test_a_face_too_small_to_measure_is_refused(engine):
    small = cv2.resize(photos.astronaut(), (200, 200), interpolation=cv2.INTER_AREA)
    assert refusal(engine, small) == messages.FACE_TOO_SMALL


def test_a_face_cut_by_the_photos_edge_is_refused(engine):
    half_face = np.ascontiguousarray(photos.astronaut()[:, :230])
    assert refusal(engine, half_face) == messages.FACE_CUT_OFF


def test_a_head_tilted_far_over_is_asked_to_face_the_camera(engine):
    assert refusal(engine, photos.rotated(photos.astronaut(), 50)) == messages.FACE_NOT_FRONTAL


# The astronaut's face is 91 pixels wide: σ 4 softens its edges over 4.4% of its width.
# (σ 3, 3.5%, is still scored: the LFW faces, 25 pixels enlarged, measure up to 3.2%,
# and darker copies of them up to 3.5%; they must not be refused for their skin.)
@pytest.mark.parametrize("sigma", [4.0, 5.0])
def test_a_heavily_blurred_face_is_refused(engine, sigma):
    image = photos.blurred(photos.astronaut(), sigma)
    assert refusal(engine, image) == messages.FACE_TOO_BLURRED


def test_a_photo_too_dark_to_show_the_face_is_refused(engine):
    image = photos.scaled_light(photos.astronaut(), 0.04)
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
    assert FaceMeshEngine().analyse(photos.astronaut()) == astronaut_result


def test_the_result_does_not_depend_on_opencvs_thread_count(engine, astronaut_result):
    threads = cv2.getNumThreads()
    try:
        cv2.setNumThreads(1)
        single = engine.analyse(photos.astronaut())
    finally:
        cv2.setNumThreads(threads)
    assert single == astronaut_result


def test_concurrent_analyses_on_several_threads_give_the_same_result(engine, astronaut_result):
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
    "tilted left": lambda image: photos.rotated(image, 10),
    "tilted right": lambda image: photos.rotated(image, -10),
    "jpeg quality 70": lambda image: photos.jpeg_round_trip(image, 70),
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


def test_a_large_photos_grain_reads_the_same_from_bands_of_it(monkeypatch):
    """Around a 12 MP photo's face, grain is read on bands of rows, not every pixel:
    they must read the same noise as the whole region would."""
    grey = face_mesh.luminance(photos.twelve_megapixels(photos.astronaut()))
    noise = np.random.default_rng(7).normal(0.0, 8.0, grey.shape)
    grainy = np.clip(grey + noise, 0, 255).astype(np.uint8)
    points = face_landmarks.locate_face(grainy).points
    from_bands = face_skin.photo_grain(grainy, points)
    monkeypatch.setattr(face_skin, "GRAIN_MAX_PIXELS", grainy.size)
    from_every_pixel = face_skin.photo_grain(grainy, points)
    assert from_bands == pytest.approx(from_every_pixel, rel=0.03)
    assert from_bands > face_calibration.GRAIN_HIDES_SKIN - 1.0


def test_the_mirror_image_finds_the_mirrored_face(engine, astronaut_result):
    result = engine.analyse(photos.mirrored(photos.astronaut()))
    x, _, w, _ = result.face_box
    ox, _, ow, _ = astronaut_result.face_box
    assert abs((x + w / 2) - (512 - (ox + ow / 2))) <= 4


@pytest.mark.parametrize("sigma", [1.0, 1.5, 2.0])
def test_a_softer_copy_never_scores_higher(engine, astronaut_result, sigma):
    softer = engine.analyse(photos.blurred(photos.astronaut(), sigma))
    assert softer.score <= astronaut_result.score
    assert softer.breakdown["skinQuality"] < astronaut_result.breakdown["skinQuality"]


# ---------------------------------------------------------------------------
# The measures respond to what they say they measure
# ---------------------------------------------------------------------------
def test_blemishes_on_the_cheeks_lower_skin_quality_and_the_score(engine, astronaut_result):
    spotted = engine.analyse(photos.with_blemishes(photos.astronaut()))
    assert spotted.breakdown["skinQuality"] <= astronaut_result.breakdown["skinQuality"] - 1.0
    assert spotted.score < astronaut_result.score
    evenness = next(note for note in spotted.notes if note.key == "skin_evenness")
    assert not evenness.in_ideal_range


def shown_evenness(result) -> float:
    """The skin evenness figure the "How we got your score" panel shows."""
    return next(note.value for note in result.notes if note.key == "skin_evenness")


def test_the_same_skin_in_less_light_shows_the_same_evenness(engine):
    """A darker skin, or the same skin in dimmer light, has every level of its light
    multiplied alike: its marks stay the same share of its brightness. Read on the
    photo's encoded levels, the portraits exposed 2.5 stops darker showed up to 26% more
    unevenness (obama3, biden 22%); read in linear light, at most 11%."""
    ratios = {}
    for photo in corpus.portraits():
        shown = shown_evenness(engine.analyse(photo.image))
        darker = shown_evenness(engine.analyse(corpus.exposure(-2.5)(photo)))
        ratios[photo.name] = round(darker / shown, 2)
    assert all(0.85 <= ratio <= 1.15 for ratio in ratios.values()), ratios


def test_glasses_frames_are_not_read_as_uneven_skin(engine):
    """Skin is read on skin only: black frames whose rims cross the upper cheeks (drawn on
    12 of the rated faces) are left out of the skin's figures, with the band they darken
    around them. Read as skin, they made it look three to six times less even."""
    ratios = []
    for path in sorted((FACES / "london").glob("*.jpg"))[:48:4]:
        with Image.open(path) as photo:
            pixels = np.array(photo.convert("RGB"))
        measured = engine.measure(pixels)
        framed = engine.measure(photos.with_glasses(pixels, measured.points))
        ratios.append(framed.measures["skin_evenness"] / measured.measures["skin_evenness"])
    assert 0.75 <= statistics.median(ratios) <= 1.33, ratios
    assert max(ratios) <= 2.0, ratios


def test_a_strongly_compressed_copy_never_reads_sharper(engine):
    """JPEG quality 40 draws 8-pixel blocks whose seams look like edges. Read as they
    are, an enlarged LFW face's copy read up to 10% sharper than the photo (and scored
    0.5 higher); the blocks are now seen, and the copy reads at most a few percent
    sharper, and softer on most faces."""
    faces = corpus.portraits()[:2] + corpus.lfw_faces(30)[20:]
    readings = {}
    for photo in faces:
        original = engine.analyse(photo.image).measures
        compressed = engine.analyse(photos.jpeg_round_trip(photo.image, 40)).measures
        assert compressed["compression_blocks"] > original["compression_blocks"] + 0.2
        readings[photo.name] = compressed["sharpness"] / original["sharpness"]
    assert min(readings.values()) >= 0.95, readings
    assert sum(ratio >= 1.0 for ratio in readings.values()) > len(readings) / 2, readings


FRONTAL_PORTRAITS = [name for name in corpus.PORTRAIT_NAMES if name != "luispedro.jpg"]


@pytest.mark.parametrize("name", FRONTAL_PORTRAITS)
def test_a_face_made_perfectly_symmetric_reads_as_symmetric(engine, name):
    """Each half of a frontal portrait mirrored onto the other is a face with no
    asymmetry at all: every mirror distance the panel shows then reads near 0, whatever
    the face, and its symmetry bar near full. What is left is the mesh's own imprecision:
    0.6% of face width at most on these faces, against 0.3–1.6% on the photos as taken.
    (The three-quarter view of mahotas' author is left out: mirrored, it is no face.)"""
    photo = corpus.portrait(name)
    points = face_landmarks.locate_face(face_skin.luminance(photo.image)).points
    midline = points[list(face_mesh_points.MIDLINE), :2]
    for half, image in photos.symmetric_halves(photo.image, midline).items():
        result = engine.analyse(image)
        distances = {n.name: n.value for n in result.notes if n.key.startswith("asymmetry_")}
        assert max(distances.values()) <= 0.7, (half, distances)
        assert result.breakdown["symmetry"] >= 9.7, (half, result.breakdown)


def test_a_face_made_lopsided_scores_lower_symmetry(engine, astronaut_result):
    """One half of the face shifted down a little (a warp of the right half only)."""
    image = photos.astronaut()
    height, width = image.shape[:2]
    rows, cols = np.mgrid[0:height, 0:width].astype(np.float32)
    shift = np.where(cols < 226, 6.0 * np.clip((226 - cols) / 40, 0, 1), 0.0).astype(np.float32)
    lopsided = cv2.remap(image, cols, rows - shift, cv2.INTER_LINEAR, cv2.BORDER_REFLECT)
    result = engine.analyse(lopsided)
    assert result.breakdown["symmetry"] < astronaut_result.breakdown["symmetry"] - 1.0


# ---------------------------------------------------------------------------
# Input the upload code might hand over
# ---------------------------------------------------------------------------
def test_an_rgba_or_greyscale_array_is_analysed_like_rgb(engine, astronaut_result):
    image = photos.astronaut()
    rgba = np.dstack([image, np.full(image.shape[:2], 255, np.uint8)])
    assert engine.analyse(rgba) == astronaut_result
    grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    assert engine.analyse(grey) == astronaut_result


def test_a_non_image_array_is_a_programming_error(engine):
    with pytest.raises(TypeError):
        engine.analyse(photos.astronaut().astype(np.float32))
    with pytest.raises(ValueError):
        engine.analyse(np.zeros((10, 10, 5), np.uint8))
