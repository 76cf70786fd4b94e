"""The result card: a real 600×1000 PNG, drawn offline, the same bytes for the same input."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from skimage import data as skdata

from prettyscore.core import constants
from prettyscore.photos.card import (
    breakdown_name,
    format_score,
    render_result_card,
    without_emoji,
)

FACE_BREAKDOWN = {"symmetry": 8.9, "skinQuality": 8.2, "facialHarmony": 9.1}


@pytest.fixture(scope="module")
def astronaut() -> Image.Image:
    return Image.fromarray(skdata.astronaut())


def card(photo: Image.Image, **overrides) -> bytes:
    options = {
        "score": 8.7,
        "label": "Stunning",
        "emoji": "😍",
        "breakdown": FACE_BREAKDOWN,
    }
    options.update(overrides)
    return render_result_card(photo, **options)


def opened(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def test_the_card_is_a_valid_600_by_1000_png(astronaut):
    png = card(astronaut)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = opened(png)
    assert image.format == "PNG"
    assert image.size == constants.RESULT_CARD_SIZE == (600, 1000)
    assert image.mode == "RGB"
    for chunk_type in (b"eXIf", b"tEXt", b"iTXt", b"iCCP"):
        assert chunk_type not in png


def test_the_same_input_gives_the_same_bytes(astronaut):
    assert card(astronaut) == card(astronaut.copy())


def test_the_card_has_real_content_where_it_should(astronaut):
    pixels = np.asarray(opened(card(astronaut))).astype(int)
    # the photo area shows the photo (the astronaut's orange suit is not in the palette)
    photo_area = pixels[100:560, 40:560]
    assert (np.abs(photo_area - [0xEC, 0x48, 0x99]).sum(axis=2) > 120).mean() > 0.5
    # the score line carries bright white glyphs on the pink/purple background
    score_band = pixels[590:690, 150:450]
    assert (score_band.min(axis=2) > 235).mean() > 0.05
    # the top corner is the brand gradient's pink; the bottom corner its purple
    assert np.abs(pixels[2, 2] - [0xEC, 0x48, 0x99]).max() < 12
    assert np.abs(pixels[-2, -2] - [0xA8, 0x55, 0xF7]).max() < 12


def test_different_scores_draw_differently(astronaut):
    low, high = opened(card(astronaut, score=6.5)), opened(card(astronaut, score=9.8))
    difference = np.abs(np.asarray(low).astype(int) - np.asarray(high).astype(int)).sum(axis=2)
    rows_changed = np.nonzero(difference.any(axis=1))[0]
    assert rows_changed.size > 0
    assert rows_changed.min() > 560  # only the score (and nothing above it) changed


def test_emoji_in_the_label_do_not_break_the_card(astronaut):
    with_emoji = card(astronaut, label="Stunning 😍✨")
    assert with_emoji == card(astronaut, label="Stunning")


def test_a_shorter_card_for_feet_and_hands(astronaut):
    png = render_result_card(
        astronaut,
        score=7,
        label="Very Pretty",
        emoji="✨",
        breakdown={"archShape": 7.9, "toe_alignment": 6.2, "nailCare": 9.9},
        kind="feet",
        size=(600, 800),
    )
    assert opened(png).size == (600, 800)


@pytest.mark.parametrize(
    "photo",
    [
        Image.new("RGBA", (300, 900), (10, 200, 10, 128)),  # tall, translucent
        Image.new("L", (2000, 50), 90),  # a thin grey strip
        Image.new("RGB", (1, 1), (0, 0, 0)),
    ],
)
def test_odd_photos_are_cover_fitted(photo):
    assert opened(card(photo, breakdown={})).size == (600, 1000)


def test_long_labels_and_out_of_range_values_are_contained(astronaut):
    png = card(
        astronaut,
        label="An exceptionally long label that would never fit on one line of the card",
        breakdown={"symmetry": 14, "skinQuality": -3, "facialHarmony": 5, "extra": 1, "more": 2},
    )
    assert opened(png).size == (600, 1000)


@pytest.mark.parametrize(
    ("score", "text"),
    [(8.7, "8.7/10"), (8, "8/10"), (10, "10/10"), (9.96, "10/10"), (6.04, "6/10"), (99, "99/100")],
)
def test_format_score(score, text):
    assert format_score(score) == text


def test_breakdown_names_and_emoji_removal():
    assert breakdown_name("skinQuality") == "Skin Quality"
    assert breakdown_name("facialHarmony") == "Facial Harmony"
    assert breakdown_name("toe_alignment") == "Toe Alignment"
    assert breakdown_name("archShape") == "Arch Shape"
    assert without_emoji("Drop-Dead Gorgeous 🔥❤️") == "Drop-Dead Gorgeous"
    assert without_emoji("👍🏽 Cute") == "Cute"
