"""The feet, hands and pet ``analysis`` engines on real and drawn photos.

No mocks: every test runs the real analysis on scikit-image's photos (the cat
``chelsea``, the astronaut, the coffee and the others it ships), on real photos of hands
(``body_photos.REAL_HANDS``: an adult's open hand and a child's hands, open or a fist,
fetched once from Debian's packages), on the drawn feet and hands of ``body_photos``, and
on the ordinary changes a phone or an editor makes to them. There is no real photo of
feet to test on: the feet page judges the drawn feet, and refuses scikit-image's photos,
none of which shows feet.
"""

from __future__ import annotations

import functools
import statistics
from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np
import pytest
from PIL import Image
from skimage import data

from prettyscore.analysis import kinds, service
from prettyscore.analysis.engines import body_calibration, body_engine_named, body_subject
from prettyscore.analysis.engines.base import BodyAnalysis
from prettyscore.analysis.engines.body import BodyPhotoEngine, engine_for
from prettyscore.analysis.engines.body_measures import working_copies
from prettyscore.analysis.engines.body_pet import find_cat_face
from prettyscore.analysis.engines.hand_landmarks import locate_hand
from prettyscore.core import images, messages
from prettyscore.core.errors import ValidationFailed
from prettyscore.core.media import MediaOwner
from tests.fixtures import body_photos, photos

ALL_KINDS = kinds.BODY_KINDS
UNUSABLE_MESSAGE = {
    kinds.FEET: messages.FEET_PHOTO_UNUSABLE,
    kinds.HANDS: messages.HANDS_PHOTO_UNUSABLE,
    kinds.PET: messages.PET_PHOTO_UNUSABLE,
}


def the_photo_of(kind: str) -> np.ndarray:
    """A good photo of what each page asks for: drawn feet, a real open hand (the back
    of a child's hand), the cat."""
    if kind == kinds.FEET:
        return body_photos.feet()
    if kind == kinds.HANDS:
        return body_photos.real_hand("child-back")
    return photos.chelsea()


def another_photo_of(kind: str) -> np.ndarray:
    """A second photo each page judges: deep-toned feet on a grey floor, an adult's open
    hand, the astronaut for pets (anything is judged there)."""
    if kind == kinds.FEET:
        return body_photos.feet(body_photos.Scene(skin="deep", background="floor"))
    if kind == kinds.HANDS:
        return body_photos.real_hand("adult-palm")
    return photos.astronaut()


def judged_photos(kind: str) -> dict[str, np.ndarray]:
    """Photos each kind scores: for feet the drawn feet of every skin tone on every
    background, for hands every real hand photo (a photo without a hand is refused
    there), for pets scikit-image's photos too."""
    if kind == kinds.FEET:
        return drawn_feet()
    if kind == kinds.HANDS:
        return {name: body_photos.real_hand(name) for name in body_photos.REAL_HANDS}
    return bundled_photos()


def drawn_feet() -> dict[str, np.ndarray]:
    """A pair of feet in each skin tone on each background, by "tone on background"."""
    return {
        f"{skin} on {background}": body_photos.feet(
            body_photos.Scene(skin=skin, background=background)
        )
        for skin in body_photos.SKIN_TONES
        for background in body_photos.BACKGROUNDS
    }


def grey_as_rgb(grey: np.ndarray) -> np.ndarray:
    return np.dstack([grey] * 3)


@functools.cache
def bundled_photos() -> dict[str, np.ndarray]:
    """Every real photo scikit-image ships without a download, as RGB."""
    colour = ("astronaut", "chelsea", "coffee", "rocket", "hubble_deep_field")
    colour += ("immunohistochemistry", "retina", "colorwheel")
    grey = ("camera", "brick", "grass", "gravel", "moon", "clock", "coins", "page", "text")
    found = {name: getattr(data, name)() for name in colour}
    found.update({name: grey_as_rgb(getattr(data, name)()) for name in grey})
    return found


@pytest.fixture(scope="module", params=ALL_KINDS)
def kind(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def engine(kind) -> BodyPhotoEngine:
    return engine_for(kind)


def refusal(engine: BodyPhotoEngine, image: np.ndarray) -> ValidationFailed:
    with pytest.raises(ValidationFailed) as refused:
        engine.analyse(image)
    return refused.value


def is_one_decimal(value: float) -> bool:
    return abs(value * 10 - round(value * 10)) < 1e-9


# ---------------------------------------------------------------------------
# The result's form
# ---------------------------------------------------------------------------
def test_the_settings_family_gives_the_analysis_engine_of_each_kind(kind):
    engine = body_engine_named("analysis", kind)
    assert isinstance(engine, BodyPhotoEngine)
    assert (engine.name, engine.kind) == ("analysis", kind)


def test_an_unknown_kind_has_no_engine():
    with pytest.raises(ValueError):
        engine_for("face")


def test_each_kind_gives_its_own_four_sub_scores_in_order(engine, kind):
    result = engine.analyse(the_photo_of(kind))
    assert isinstance(result, BodyAnalysis)
    assert result.kind == kind and result.engine == "analysis"
    assert tuple(result.breakdown) == kinds.BREAKDOWN_KEYS[kind]


def test_scores_are_one_to_ten_and_sub_scores_zero_to_ten_with_one_decimal(engine, kind):
    for name, photo in judged_photos(kind).items():
        result = engine.analyse(photo)
        assert 1.0 <= result.score <= 10.0 and is_one_decimal(result.score), name
        for value in result.breakdown.values():
            assert 0.0 <= value <= 10.0 and is_one_decimal(value), name


# ---------------------------------------------------------------------------
# The same photo, the same score
# ---------------------------------------------------------------------------
def test_the_same_pixels_always_give_the_same_result(engine, kind):
    first = engine.analyse(the_photo_of(kind))
    again = engine_for(kind).analyse(the_photo_of(kind).copy())
    assert again == first


def test_the_same_uploaded_bytes_give_the_same_result_after_decoding(engine, kind):
    """As an upload is stored as a JPEG and read back for each analysis."""
    stored = images.encode_jpeg(Image.fromarray(the_photo_of(kind)), quality=90)
    results = [engine.analyse(images.to_array(images.decode_upload(stored))) for _ in range(2)]
    assert results[0] == results[1]


def test_results_do_not_depend_on_the_thread_or_on_opencvs_thread_count(kind):
    photo = the_photo_of(kind)
    expected = engine_for(kind).analyse(photo)
    with ThreadPoolExecutor(max_workers=3) as pool:
        in_threads = list(pool.map(lambda _: engine_for(kind).analyse(photo), range(3)))
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        single = engine_for(kind).analyse(photo)
    finally:
        cv2.setNumThreads(threads)
    assert in_threads == [expected] * 3
    assert single == expected


def test_a_grey_or_transparent_copy_is_scored_like_its_rgb_form(engine, kind):
    """A grey photo has no skin colour to find: the feet page refuses it, whatever form
    it comes in."""
    photo = the_photo_of(kind)
    grey = cv2.cvtColor(photo, cv2.COLOR_RGB2GRAY)
    if kind == kinds.FEET:
        assert refusal(engine, grey).message == messages.NO_FEET_FOUND
        assert refusal(engine, grey_as_rgb(grey)).message == messages.NO_FEET_FOUND
    else:
        assert engine.analyse(grey) == engine.analyse(grey_as_rgb(grey))
    rgba = cv2.cvtColor(photo, cv2.COLOR_RGB2RGBA)
    assert engine.analyse(rgba) == engine.analyse(photo)


def test_anything_but_a_uint8_image_is_a_programming_error(engine):
    with pytest.raises(TypeError):
        engine.analyse(photos.astronaut().astype(np.float32))


# ---------------------------------------------------------------------------
# A better photo scores higher
# ---------------------------------------------------------------------------
def test_a_blurred_copy_scores_below_the_sharp_photo_and_more_blur_lower_still(engine, kind):
    photo = the_photo_of(kind)
    sharp = engine.analyse(photo).score
    soft = engine.analyse(photos.blurred(photo, 2.0)).score
    very_soft = engine.analyse(photos.blurred(photo, 5.0)).score
    assert sharp - soft >= 0.5
    assert soft > very_soft


def test_a_dark_copy_scores_below_the_well_exposed_photo(engine, kind):
    photo = the_photo_of(kind)
    dark = photos.scaled_light(photo, 0.4)
    assert engine.analyse(photo).score - engine.analyse(dark).score >= 0.5


def test_another_real_photo_sharp_scores_above_its_blurred_and_darkened_copies(engine, kind):
    photo = another_photo_of(kind)
    score = engine.analyse(photo).score
    assert score > engine.analyse(photos.blurred(photo, 2.0)).score
    assert score > engine.analyse(photos.scaled_light(photo, 0.4)).score


def test_feet_and_hands_of_every_skin_tone_score_alike():
    """Skin is found by its chroma and judged on texture relative to its own contrast:
    the same feet or hand drawn in four skin tones on the same floor score within a
    point of each other."""
    for kind, draw in ((kinds.FEET, body_photos.feet), (kinds.HANDS, body_photos.hand)):
        engine = engine_for(kind)
        for background in ("towel", "floor"):
            scores = [
                engine.analyse(draw(body_photos.Scene(skin=skin, background=background))).score
                for skin in body_photos.SKIN_TONES
            ]
            assert max(scores) - min(scores) <= 1.0, (kind, background, scores)


def test_a_pair_of_feet_has_better_toe_symmetry_than_a_shapeless_photo():
    """The feet page refuses the coffee: its measures are taken as the engine would."""
    pair = engine_for(kinds.FEET).analyse(body_photos.feet()).breakdown["toeSymmetry"]
    coffee = body_calibration.score_photo(kinds.FEET, working_copies(photos.coffee()))
    assert pair >= 8.5
    assert pair > coffee.breakdown["toeSymmetry"] + 2.0


# ---------------------------------------------------------------------------
# Hands: the hand's 21 landmarks
# ---------------------------------------------------------------------------
@functools.cache
def hand_result(name: str) -> BodyAnalysis:
    return engine_for(kinds.HANDS).analyse(body_photos.real_hand(name))


@pytest.mark.parametrize("name", body_photos.OPEN_HANDS)
def test_an_open_hand_has_straight_fingers_in_a_real_hands_proportions(name):
    """Measured on the landmarks in three dimensions, from the knuckle joints: the
    middle finger about as long as the palm, the index, ring and little fingers graded
    below it, the palm longer than it is wide across the knuckles."""
    m = hand_result(name).measures
    assert m["hand_straightness"] >= 0.98
    assert 0.8 <= m["hand_finger_to_palm"] <= 1.25
    assert m["hand_little_to_middle"] < m["hand_index_to_middle"] < 1.0
    assert m["hand_little_to_middle"] < m["hand_ring_to_middle"] < 1.0
    assert 0.85 <= m["hand_index_to_ring"] <= 1.05
    assert 1.1 <= m["hand_palm_shape"] <= 1.7


@pytest.mark.parametrize("name", body_photos.OPEN_HANDS)
def test_an_open_hand_shows_its_finger_proportions_and_nails(name):
    result = hand_result(name)
    assert result.breakdown["fingerProportions"] >= 9.0
    assert result.breakdown["nailAppearance"] >= 6.5
    assert result.breakdown["skinQuality"] >= 8.0
    assert result.measures["skin_found"] == 1.0


@pytest.mark.parametrize("name", body_photos.FISTS)
def test_a_fist_hides_its_finger_proportions(name):
    """A fist's landmarks fold its fingers to half their length or less: the hand is
    found and judged, but its finger proportions cannot be seen."""
    result = hand_result(name)
    assert result.measures["hand_straightness"] <= 0.65
    assert result.breakdown["fingerProportions"] <= 4.5
    open_hands = [hand_result(n).breakdown["fingerProportions"] for n in body_photos.OPEN_HANDS]
    assert result.breakdown["fingerProportions"] < min(open_hands) - 4.0


@pytest.mark.parametrize("name", body_photos.OPEN_HANDS + body_photos.FISTS[:1])
def test_a_mirrored_hand_scores_as_the_hand_itself(name):
    """A left hand is a mirrored right one: the landmarks are averaged over the photo
    and its mirror image, so the proportions come out the same, and so does the
    score."""
    photo = body_photos.real_hand(name)
    result = hand_result(name)
    mirrored = engine_for(kinds.HANDS).analyse(np.ascontiguousarray(photo[:, ::-1]))
    assert abs(mirrored.score - result.score) <= 0.1
    for key, value in result.breakdown.items():
        assert abs(mirrored.breakdown[key] - value) <= 0.3, key
    for key in ("hand_finger_to_palm", "hand_index_to_ring", "hand_straightness"):
        assert mirrored.measures[key] == pytest.approx(result.measures[key], abs=1e-6)


def test_a_turned_or_resized_hand_keeps_its_proportions():
    """The same hand turned a quarter, or at a third of its size: the same fingers."""
    photo = body_photos.real_hand("adult-palm")
    result = hand_result("adult-palm")
    turned = engine_for(kinds.HANDS).analyse(np.ascontiguousarray(np.rot90(photo)))
    smaller = engine_for(kinds.HANDS).analyse(
        cv2.resize(photo, (214, 160), interpolation=cv2.INTER_AREA)
    )
    for other in (turned, smaller):
        assert (
            abs(other.breakdown["fingerProportions"] - result.breakdown["fingerProportions"]) <= 0.5
        )
        for key in ("hand_finger_to_palm", "hand_index_to_ring", "hand_palm_shape"):
            assert other.measures[key] == pytest.approx(result.measures[key], rel=0.08), key


def canvas_with(hands: dict[tuple[int, int], np.ndarray]) -> np.ndarray:
    """A plain 1350×900 table with each photo put at its (left, top)."""
    canvas = np.full((900, 1350, 3), (200, 190, 180), np.uint8)
    for (left, top), photo in hands.items():
        canvas[top : top + photo.shape[0], left : left + photo.shape[1]] = photo
    return canvas


def test_a_small_hand_is_found_where_it_is_in_a_larger_photo():
    child = body_photos.real_hand("child-back")  # 302×200
    hand = locate_hand(canvas_with({(1000, 600): child}))
    (x0, y0), (x1, y1) = hand.points[:, :2].min(axis=0), hand.points[:, :2].max(axis=0)
    assert 990 <= x0 < x1 <= 1310 and 590 <= y0 < y1 <= 810
    assert hand.count == 1
    result = engine_for(kinds.HANDS).analyse(canvas_with({(1000, 600): child}))
    assert result.breakdown["fingerProportions"] >= 9.0


def test_of_two_hands_the_larger_one_is_measured():
    child = body_photos.real_hand("child-back")
    adult = cv2.resize(body_photos.real_hand("adult-palm"), (480, 360), cv2.INTER_AREA)
    hand = locate_hand(canvas_with({(80, 100): child, (700, 450): adult}))
    assert hand.count == 2
    x0, y0 = hand.points[:, :2].min(axis=0)
    assert x0 >= 690 and y0 >= 440


@pytest.mark.parametrize("name", ["coffee", "astronaut", "chelsea", "rocket", "camera"])
def test_a_photo_without_a_hand_is_refused_like_a_photo_without_a_face(name):
    refused = refusal(engine_for(kinds.HANDS), bundled_photos()[name])
    assert refused.message == messages.NO_HAND_FOUND
    assert refused.status == 422


# ---------------------------------------------------------------------------
# Pets: the cat's face
# ---------------------------------------------------------------------------
def test_chelseas_face_is_found_where_it_is_and_as_large_as_it_is():
    face = find_cat_face(working_copies(photos.chelsea()).gray)
    assert face is not None
    x, y = face.centre
    assert 0.4 <= x <= 0.65 and 0.35 <= y <= 0.65  # the face fills the middle
    assert 0.55 <= face.size <= 0.95  # a close-up: the face is most of the frame


def test_a_smaller_cat_off_centre_is_found_too():
    """The cat at a third of the frame's width, up and to the left, on the coffee."""
    canvas = cv2.resize(photos.coffee(), (1350, 900), interpolation=cv2.INTER_AREA)
    cat = cv2.resize(photos.chelsea(), (450, 300), interpolation=cv2.INTER_AREA)
    canvas[150:450, 200:650] = cat
    face = find_cat_face(working_copies(canvas).gray)
    assert face is not None
    assert 0.2 <= face.centre[0] <= 0.4 and 0.2 <= face.centre[1] <= 0.45
    assert 0.15 <= face.size <= 0.35


@pytest.mark.parametrize("name", ["astronaut", "coffee", "rocket", "camera", "coins", "grass"])
def test_photos_without_a_cat_have_no_cat_face(name):
    assert find_cat_face(working_copies(bundled_photos()[name]).gray) is None


def test_chelsea_is_among_the_cutest_and_her_face_counts():
    result = engine_for(kinds.PET).analyse(photos.chelsea())
    assert result.measures["face_found"] == 1.0
    assert result.score >= 8.5
    assert kinds.label_for(kinds.PET, result.score).label in (
        "Absolutely Adorable!",
        "Super Cute!",
    )
    assert result.breakdown["faceVisibility"] >= 9.0


def test_a_pet_without_a_cat_face_still_gets_a_fair_score():
    """A dog, a rabbit or a cat in profile is not refused: the rest of the photo counts."""
    pet = engine_for(kinds.PET)
    for photo in (photos.coffee(), photos.astronaut(), data.rocket()):
        result = pet.analyse(photo)
        assert result.measures["face_found"] == 0.0
        assert 6.0 <= result.score <= 9.0
        assert result.breakdown["faceVisibility"] >= 5.0


# ---------------------------------------------------------------------------
# Feet: a photo that shows no feet is refused
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("skin", list(body_photos.SKIN_TONES))
def test_feet_of_every_skin_tone_on_every_background_are_judged_in_good_and_dim_light(skin):
    """Light to deep skin alike: the skin covers a fifth of the frame and none of its
    border, in a well-lit photo and in one with 40% of the light, where deep skin
    would fall out of skin's chroma and brightness if the light were not levelled."""
    feet = engine_for(kinds.FEET)
    for background in body_photos.BACKGROUNDS:
        photo = body_photos.feet(body_photos.Scene(skin=skin, background=background))
        for copy in (photo, photos.scaled_light(photo, 0.4)):
            frame, border = body_subject.skin_shares(working_copies(copy))
            assert frame >= 4 * body_subject.MIN_SKIN_SHARE and border == 0.0, background
            assert 1.0 <= feet.analyse(copy).score <= 10.0, background


@pytest.mark.parametrize("skin", list(body_photos.SKIN_TONES))
def test_smaller_feet_and_one_foot_are_judged(skin):
    feet = engine_for(kinds.FEET)
    scene = body_photos.Scene(skin=skin, background="grass", scale=0.4, centre=(0.6, 0.45))
    assert 1.0 <= feet.analyse(body_photos.feet(scene)).score <= 10.0
    one = body_photos.feet(body_photos.Scene(skin=skin, angle=-20), pair=False)
    assert 1.0 <= feet.analyse(one).score <= 10.0


def test_a_portrait_is_refused_on_the_feet_page_for_its_face():
    """The astronaut's face, hands and suit show as much skin as small feet do, against a
    background that is not skin: it is her face that says this is no photo of feet."""
    portrait = photos.astronaut()
    frame, border = body_subject.skin_shares(working_copies(portrait))
    assert frame >= body_subject.MIN_SKIN_SHARE
    assert border <= body_subject.MAX_BORDER_SKIN_SHARE
    assert body_subject.face_found(working_copies(portrait).gray)
    refused = refusal(engine_for(kinds.FEET), portrait)
    assert refused.message == messages.NO_FEET_FOUND
    assert refused.status == 422


def test_a_cat_on_a_plain_sheet_is_refused_on_the_feet_page_for_its_face():
    """Its fur is skin-coloured and stands out from the sheet as feet would."""
    canvas = np.full((600, 800, 3), body_photos.BACKGROUNDS["sheet"], np.uint8)
    canvas[150:450, 175:625] = cv2.resize(photos.chelsea(), (450, 300), cv2.INTER_AREA)
    frame, border = body_subject.skin_shares(working_copies(canvas))
    assert frame >= body_subject.MIN_SKIN_SHARE and border == 0.0
    assert find_cat_face(working_copies(canvas).gray) is not None
    assert refusal(engine_for(kinds.FEET), canvas).message == messages.NO_FEET_FOUND


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("coffee", "a skin-coloured table fills the frame's border"),
        ("immunohistochemistry", "skin-coloured stain fills the frame's border"),
        ("rocket", "too little skin"),
        ("colorwheel", "too little skin"),
        ("camera", "no colour, and a face"),
    ],
)
def test_photos_of_other_things_are_refused_on_the_feet_page(name, reason):
    assert refusal(engine_for(kinds.FEET), bundled_photos()[name]).message == (
        messages.NO_FEET_FOUND
    ), reason


@pytest.mark.parametrize("name", ["astronaut", "coffee", "rocket"])
def test_the_same_pixels_are_refused_alike_every_time(name):
    photo = bundled_photos()[name]
    first = refusal(engine_for(kinds.FEET), photo)
    with ThreadPoolExecutor(max_workers=2) as pool:
        again = list(pool.map(lambda _: refusal(engine_for(kinds.FEET), photo.copy()), range(2)))
    assert {(r.message, r.status) for r in [first, *again]} == {(messages.NO_FEET_FOUND, 422)}


def test_mediapipe_hands_takes_drawn_feet_for_hands_so_the_feet_page_does_not_ask_it():
    """Why a photo of a hand is not refused on the feet page: the hands model finds a
    hand in each of a pair of drawn feet (tests/analysis/NOTES.md, 'Feet or not')."""
    assert locate_hand(body_photos.feet(body_photos.Scene(skin="light"))).count == 2


# ---------------------------------------------------------------------------
# Refusals: only what cannot be judged at all
# ---------------------------------------------------------------------------
def blank_photos() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    gradient = np.tile(np.linspace(0, 255, 640, dtype=np.float32), (480, 1))
    return {
        "grey": np.full((480, 640, 3), 128, np.uint8),
        "white": np.full((1920, 2560, 3), 255, np.uint8),
        "black": np.zeros((600, 800, 3), np.uint8),
        "noise on grey": photos.as_uint8(rng.normal(128, 2.0, (480, 640, 3))),
        "smooth gradient": grey_as_rgb(photos.as_uint8(gradient)),
        "blank page as JPEG": photos.jpeg_round_trip(np.full((480, 640, 3), 240, np.uint8), 75),
    }


@pytest.mark.parametrize("name", list(blank_photos()))
def test_a_blank_or_uniform_photo_is_refused_with_the_kinds_message(engine, kind, name):
    refused = refusal(engine, blank_photos()[name])
    assert refused.message == UNUSABLE_MESSAGE[kind]
    assert refused.status == 422


@pytest.mark.parametrize("size", [(40, 60), (63, 400), (1, 1)])
def test_a_tiny_photo_is_refused_with_the_kinds_message(engine, kind, size):
    tiny = cv2.resize(photos.chelsea(), size[::-1], interpolation=cv2.INTER_AREA)
    assert refusal(engine, tiny).message == UNUSABLE_MESSAGE[kind]


def test_a_small_but_real_photo_is_judged(engine, kind):
    photo = {
        kinds.FEET: body_photos.feet(body_photos.Scene(skin="deep")),
        kinds.HANDS: body_photos.real_hand("child-palm"),
        kinds.PET: photos.chelsea(),
    }[kind]
    small = cv2.resize(photo, (96, 64), interpolation=cv2.INTER_AREA)
    assert 1.0 <= engine.analyse(small).score <= 10.0


def test_every_photo_scikit_image_ships_is_judged_for_pets_and_none_has_feet_or_a_hand(
    engine, kind
):
    refused = {kinds.FEET: messages.NO_FEET_FOUND, kinds.HANDS: messages.NO_HAND_FOUND}
    for name, photo in bundled_photos().items():
        if kind in refused:
            assert refusal(engine, photo).message == refused[kind], name
        else:
            assert 1.0 <= engine.analyse(photo).score <= 10.0, name


# ---------------------------------------------------------------------------
# Calibration
# ---------------------------------------------------------------------------
def test_ordinary_photos_land_between_six_and_nine_with_a_spread(engine, kind):
    named = bundled_photos()
    others = [named[name] for name in ("astronaut", "coffee", "rocket", "camera")]
    ordinary = {
        kinds.FEET: [body_photos.feet(body_photos.Scene(skin=skin)) for skin in ("light", "deep")]
        + ordinary_feet(),
        kinds.HANDS: list(judged_photos(kinds.HANDS).values()),
        kinds.PET: [photos.chelsea(), *others],
    }[kind]
    scores = [engine.analyse(photo).score for photo in ordinary]
    assert all(5.5 <= score <= 9.8 for score in scores), scores
    assert 6.5 <= statistics.median(scores) <= 9.0, scores
    assert max(scores) - min(scores) >= 1.0, scores


def ordinary_feet() -> list[np.ndarray]:
    """Feet as a phone takes them: one foot, a smaller pair off-centre and turned, a
    blurred and a dim photo."""
    scene = body_photos.Scene
    return [
        body_photos.feet(scene(skin="tan", background="grass"), pair=False),
        body_photos.feet(scene(skin="light", scale=0.45, centre=(0.4, 0.4), angle=15)),
        photos.blurred(body_photos.feet(scene(background="sheet")), 2.0),
        photos.scaled_light(body_photos.feet(scene(skin="deep", background="floor")), 0.5),
    ]


def test_the_photo_each_page_asks_for_scores_in_the_upper_part(engine, kind):
    assert engine.analyse(the_photo_of(kind)).score >= 8.0


# ---------------------------------------------------------------------------
# Through the upload flow
# ---------------------------------------------------------------------------
def uploaded(pixels: np.ndarray) -> bytes:
    return images.encode_jpeg(Image.fromarray(pixels), quality=92)


def test_uploaded_feet_are_scored_on_the_feet_page_and_a_hand_on_the_hands_page(store):
    """The browser tests upload drawn feet to the feet page and a real hand to the hands
    page; the astronaut shows neither feet nor a hand, and each page says so."""
    visitor = MediaOwner.visitor("a-visitor-secret-for-tests")
    astronaut = service.stage_photo(store, visitor, uploaded(photos.astronaut()))
    feet = service.stage_photo(store, visitor, uploaded(body_photos.feet()))
    hand = service.stage_photo(store, visitor, uploaded(body_photos.real_hand("adult-palm")))
    for kind, key in ((kinds.FEET, feet), (kinds.HANDS, hand)):
        first = service.score_body_photo(store, key, kind)
        again = service.score_body_photo(store, key, kind)
        assert (first.score, first.breakdown) == (again.score, again.breakdown)
        assert first.label == kinds.label_for(kind, first.score).label
        assert tuple(first.breakdown) == kinds.BREAKDOWN_KEYS[kind]
        assert 6.0 <= first.score <= 9.5
    for kind, message in (
        (kinds.FEET, messages.NO_FEET_FOUND),
        (kinds.HANDS, messages.NO_HAND_FOUND),
    ):
        with pytest.raises(ValidationFailed) as refused:
            service.score_body_photo(store, astronaut, kind)
        assert refused.value.message == message


def test_an_uploaded_blank_photo_gets_the_pages_own_message(store):
    visitor = MediaOwner.visitor("a-visitor-secret-for-tests")
    key = service.stage_photo(store, visitor, uploaded(np.full((600, 800, 3), 250, np.uint8)))
    for kind in ALL_KINDS:
        with pytest.raises(ValidationFailed) as refused:
            service.score_body_photo(store, key, kind)
        assert refused.value.message == UNUSABLE_MESSAGE[kind]
