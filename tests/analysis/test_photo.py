"""The photo's part of the score: light, sharpness, grain, expression and framing.

The score is the person's; the photo nudges it within a narrow band. These check the
readings a visitor would notice: a darker skin is not a darker photo, noise is not
sharpness, a worse photo never helps, and the advice names what to change.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFilter

from prettyscore.analysis.engines import face_photo
from prettyscore.analysis.engines.face_mesh import FaceMeshEngine

SAME_PERSON = Path(__file__).resolve().parents[1] / "fixtures" / "faces" / "same_person"

# A clear studio photo, as the analysis measures one (London Set medians).
STUDIO = {
    "light_contrast": 96.0,
    "light_clipped": 0.0,
    "light_median": 145.0,
    "light_sides": 0.07,
    "sharpness": 1.1,
    "grain": 0.5,
    "eye_openness": 0.07,
    "yaw": 2.0,
    "pitch": 3.0,
    "roll": 1.0,
    "face_width_pixels": 400.0,
}


def test_a_darker_skin_in_the_same_light_is_not_a_darker_photo():
    """In the London Set's studio the Black sitters' faces read about 74 in the middle
    and 72 in contrast, the White sitters' 145 and 96: the light reads the same."""
    lighter = face_photo.reading(STUDIO)
    darker = face_photo.reading(dict(STUDIO, light_median=74.0, light_contrast=72.0))
    assert darker.aspects[face_photo.LIGHT] == lighter.aspects[face_photo.LIGHT]
    assert darker.nudge == lighter.nudge


def test_noise_is_not_read_as_sharpness():
    clean = face_photo.reading(dict(STUDIO, sharpness=1.8))
    # Grain sharpens the edges the blur is read from.
    noisy = face_photo.reading(dict(STUDIO, sharpness=1.3, grain=6.0))
    assert noisy.aspects[face_photo.SHARPNESS] <= clean.aspects[face_photo.SHARPNESS] + 0.05
    assert noisy.quality < clean.quality


@pytest.mark.parametrize(
    ("change", "aspect"),
    [
        ({"light_clipped": 0.2}, face_photo.LIGHT),
        ({"light_sides": 0.5}, face_photo.LIGHT),
        ({"sharpness": 2.2}, face_photo.SHARPNESS),
        ({"grain": 7.0}, face_photo.GRAIN),
        ({"eye_openness": 0.035}, face_photo.EXPRESSION),
        ({"yaw": 30.0}, face_photo.FRAMING),
        ({"face_width_pixels": 80.0}, face_photo.FRAMING),
    ],
)
def test_a_worse_photo_takes_a_little_off_and_says_what_to_change(change, aspect):
    studio = face_photo.reading(STUDIO)
    worse = face_photo.reading(dict(STUDIO, **change))
    assert worse.nudge < studio.nudge
    assert worse.nudge >= -face_photo.PHOTO_BAND
    assert worse.weakest == aspect
    assert worse.advice == face_photo.ADVICE[aspect]
    assert face_photo.ASPECT_NAMES[aspect] in face_photo.differences(worse, studio)


def test_a_clear_photo_needs_no_advice_and_keeps_the_persons_score():
    studio = face_photo.reading(STUDIO)
    assert studio.advice == face_photo.GOOD_PHOTO_ADVICE
    assert abs(studio.nudge) < 0.05
    assert studio.shown()["overall"] >= 9.5


def test_a_blurred_copy_of_a_photo_reads_softer_and_scores_no_higher():
    engine = FaceMeshEngine()
    with Image.open(SAME_PERSON / "lisa1.jpg") as photo:
        sharp = photo.convert("RGB")
        soft = sharp.filter(ImageFilter.GaussianBlur(4))
    first, second = engine.analyse(np.array(sharp)), engine.analyse(np.array(soft))
    assert second.photo.aspects[face_photo.SHARPNESS] < first.photo.aspects[face_photo.SHARPNESS]
    assert second.score <= first.score
    assert face_photo.ASPECT_NAMES[face_photo.SHARPNESS] in face_photo.differences(
        second.photo, first.photo
    )
