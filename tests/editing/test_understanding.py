"""Custom AI Edit reads what people type: synonyms, word forms, several edits in one
sentence, and a short refusal (with edits it can do) for what it cannot."""

from __future__ import annotations

import re

import numpy as np
import pytest
from PIL import Image
from skimage import data

from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed
from prettyscore.editing import presets
from prettyscore.editing.engines import understanding as u
from prettyscore.editing.engines.base import UNSUPPORTED_EDIT
from prettyscore.editing.engines.local import LocalEditEngine, understood

# What a member types → the edits carried out (in the order they are applied).
PHRASINGS: list[tuple[str, list[str]]] = [
    # light
    ("increase brightness", [u.BRIGHTER]),
    ("make it brighter please", [u.BRIGHTER]),
    ("Make it brighter, please!", [u.BRIGHTER]),
    ("brighten it up a bit", [u.BRIGHTER]),
    ("more brightness", [u.BRIGHTER]),
    ("boost the exposure", [u.BRIGHTER]),
    ("lighter", [u.BRIGHTER]),
    ("lighten the photo", [u.BRIGHTER]),
    ("more light", [u.BRIGHTER]),
    ("improve the lighting", [u.BRIGHTER]),
    ("it's too dark", [u.BRIGHTER]),
    ("darker", [u.DARKER]),
    ("darken it", [u.DARKER]),
    ("reduce the brightness", [u.DARKER]),
    ("less bright", [u.DARKER]),
    ("it's too bright", [u.DARKER]),
    ("moodier", [u.DARKER]),
    # contrast
    ("more contrast", [u.MORE_CONTRAST]),
    ("increase the contrast", [u.MORE_CONTRAST]),
    ("high contrast", [u.MORE_CONTRAST]),
    ("make it pop", [u.MORE_CONTRAST]),
    ("less contrast", [u.LESS_CONTRAST]),
    ("lower the contrast a little", [u.LESS_CONTRAST]),
    # temperature
    ("warmer", [u.WARMER]),
    ("warm it up", [u.WARMER]),
    ("add some warmth", [u.WARMER]),
    ("golden hour", [u.WARMER]),
    ("less blue", [u.WARMER]),
    ("cooler", [u.COOLER]),
    ("cool it down", [u.COOLER]),
    ("colder tones", [u.COOLER]),
    ("less warm", [u.COOLER]),
    # colour
    ("more colorful", [u.MORE_COLOUR]),
    ("more vibrant", [u.MORE_COLOUR]),
    ("boost the colours", [u.MORE_COLOUR]),
    ("make the colors pop", [u.MORE_COLOUR]),
    ("saturate", [u.MORE_COLOUR]),
    ("desaturate", [u.LESS_COLOUR]),
    ("less saturation", [u.LESS_COLOUR]),
    ("muted colours", [u.LESS_COLOUR]),
    ("black and white", [u.BLACK_AND_WHITE]),
    ("b&w", [u.BLACK_AND_WHITE]),
    ("greyscale", [u.BLACK_AND_WHITE]),
    ("monochrome please", [u.BLACK_AND_WHITE]),
    ("vintage", [u.VINTAGE]),
    ("sepia", [u.VINTAGE]),
    ("retro look", [u.VINTAGE]),
    ("make it look like an old photo", [u.VINTAGE]),
    # detail and size
    ("sharper", [u.SHARPER]),
    ("sharpen it", [u.SHARPER]),
    ("more detail", [u.SHARPER]),
    ("it's blurry", [u.SHARPER]),
    ("crisper", [u.SHARPER]),
    ("upscale", [u.UPSCALE]),
    ("make it 4K", [u.UPSCALE]),
    ("higher resolution", [u.UPSCALE]),
    # skin
    ("smoother skin", [u.SMOOTH_SKIN]),
    ("smooth my skin", [u.SMOOTH_SKIN]),
    ("soften the skin", [u.SMOOTH_SKIN]),
    ("remove blemishes", [u.SMOOTH_SKIN]),
    ("airbrush my face", [u.SMOOTH_SKIN]),
    ("clearer skin", [u.SMOOTH_SKIN]),
    # background
    ("blur the background", [u.BLUR_BACKGROUND]),
    ("blurred background", [u.BLUR_BACKGROUND]),
    ("make the background blurry", [u.BLUR_BACKGROUND]),
    ("bokeh", [u.BLUR_BACKGROUND]),
    ("remove the background", [u.REMOVE_BACKGROUND]),
    ("get rid of the background", [u.REMOVE_BACKGROUND]),
    ("white background", [u.REMOVE_BACKGROUND]),
    ("no background", [u.REMOVE_BACKGROUND]),
    ("change the background", [u.STUDIO_BACKGROUND]),
    ("replace the backdrop", [u.STUDIO_BACKGROUND]),
    ("plain grey background", [u.STUDIO_BACKGROUND]),
    ("studio", [u.STUDIO_BACKGROUND]),
    ("change the background to something outdoors", [u.OUTDOOR_BACKGROUND]),
    ("put me outside in a park", [u.OUTDOOR_BACKGROUND]),
    ("nature background", [u.OUTDOOR_BACKGROUND]),
    ("put me in a garden", [u.OUTDOOR_BACKGROUND]),
    ("a blue sky background", [u.OUTDOOR_BACKGROUND]),
    # hair
    ("blonde", [u.BLONDE_HAIR]),
    ("make my hair blond", [u.BLONDE_HAIR]),
    ("lighter hair", [u.BLONDE_HAIR]),
    ("add highlights", [u.HAIR_HIGHLIGHTS]),
    ("balayage", [u.HAIR_HIGHLIGHTS]),
    ("more volume in my hair", [u.HAIR_VOLUME]),
    ("fuller hair", [u.HAIR_VOLUME]),
    ("smoother hair", [u.POLISHED_HAIR]),
    ("fix my frizzy hair", [u.POLISHED_HAIR]),
    ("neater hair", [u.POLISHED_HAIR]),
    # clothes
    ("brighter clothes", [u.CLOTHING_COLOURS]),
    ("make my outfit more colorful", [u.CLOTHING_COLOURS]),
    ("put me in a suit", [u.FORMAL_JACKET]),
    ("wear a suit and tie", [u.FORMAL_JACKET]),
    ("add a blazer", [u.FORMAL_JACKET]),
    ("business attire", [u.PROFESSIONAL_ATTIRE]),
    ("dress me professionally", [u.PROFESSIONAL_ATTIRE]),
    ("casual clothes", [u.CASUAL_OUTFIT]),
    ("a t-shirt", [u.CASUAL_OUTFIT]),
]

# Several edits in one sentence: all of them, in the order they are applied.
SEVERAL: list[tuple[str, list[str]]] = [
    ("make it brighter and blur the background", [u.BLUR_BACKGROUND, u.BRIGHTER]),
    ("Warmer and brighter, with a blurred background", [u.BLUR_BACKGROUND, u.BRIGHTER, u.WARMER]),
    (
        "brighten, add contrast and make it a bit warmer",
        [u.BRIGHTER, u.MORE_CONTRAST, u.WARMER],
    ),
    ("black and white with more contrast", [u.MORE_CONTRAST, u.BLACK_AND_WHITE]),
    (
        "smooth my skin, blonde hair and a studio backdrop",
        [u.STUDIO_BACKGROUND, u.BLONDE_HAIR, u.SMOOTH_SKIN],
    ),
    ("sharpen it then make it vintage", [u.VINTAGE, u.SHARPER]),
    ("sharpen and upscale it to 4k", [u.UPSCALE]),  # the upscale sharpens anyway
    ("make it brighter but don't blur the background", [u.BRIGHTER]),
    ("remove the background and put me outdoors", [u.OUTDOOR_BACKGROUND]),
    (
        "make me look professional with a studio background",
        [u.STUDIO_BACKGROUND, u.PROFESSIONAL_ATTIRE],
    ),
    ("can you make the picture a little warmer and sharper?", [u.WARMER, u.SHARPER]),
]

# What the local engine cannot do: refused as a whole, even beside something it can.
REFUSED = [
    "add sunglasses",
    "make me look younger",
    "make it brighter and add sunglasses",
    "blur the background and give me a beard",
    "add a hat",
    "Make me a pirate",
    "turn into anime",
    "make my hair darker",
    "red hair",
    "give me a tan",
    "whiten my teeth",
    "brighten my eyes",
    "make me slimmer",
    "change the background to a beach",
    "remove the person behind me",
    "add a dog",
    "remove red eye",
    "xyz",
    "don't change anything",
]

# One word of the refusal's list for each edit it can do.


@pytest.mark.parametrize(("prompt", "edits"), PHRASINGS)
def test_ordinary_ways_of_asking_are_understood(prompt: str, edits: list[str]) -> None:
    assert understood(prompt) == edits


@pytest.mark.parametrize(("prompt", "edits"), SEVERAL)
def test_several_edits_in_one_sentence_are_all_made_in_a_fixed_order(prompt, edits) -> None:
    assert understood(prompt) == edits


def test_the_table_covers_every_edit_the_local_engine_can_do() -> None:
    assert {edit for _, edits in PHRASINGS for edit in edits} == set(u.APPLY_ORDER)


@pytest.mark.parametrize("preset", presets.ALL_PRESETS)
def test_each_preset_is_its_own_edit_typed_exactly_or_loosely(preset: str) -> None:
    assert understood(preset) == [u.PRESET_EDITS[preset]]
    loosely = f"please {preset.lower()}"
    assert understood(loosely) == [u.PRESET_EDITS[preset]]


@pytest.mark.parametrize("prompt", REFUSED)
def test_what_it_cannot_do_is_refused_with_the_list_of_what_it_can(prompt: str) -> None:
    assert understood(prompt) == []
    photo = Image.fromarray(data.astronaut()).resize((128, 128))
    with pytest.raises(ValidationFailed) as refused:
        LocalEditEngine().edit(photo, prompt)
    assert refused.value.code == UNSUPPORTED_EDIT
    assert refused.value.message == messages.EDIT_NOT_SUPPORTED


def test_the_refusal_is_one_short_line_whose_suggestions_all_work() -> None:
    text = messages.EDIT_NOT_SUPPORTED
    assert len(text) <= 140  # a line a phone's toast shows whole, read in a few seconds
    assert "no free edit used" in text
    suggestions = re.split(r", | or ", text.split("Try: ", 1)[1].rstrip("."))
    assert len(suggestions) >= 4
    assert [s for s in suggestions if not understood(s)] == []  # each one it can do


def test_a_new_phrasing_does_what_the_matching_preset_does() -> None:
    photo = Image.fromarray(data.astronaut()).resize((160, 160))
    engine = LocalEditEngine()
    assert np.array_equal(
        np.asarray(engine.edit(photo, "please make my hair blond")),
        np.asarray(engine.edit(photo, presets.HAIR_BLONDE)),
    )
    before = np.asarray(photo, dtype=np.float64).mean()
    assert np.asarray(engine.edit(photo, "increase brightness"), dtype=np.float64).mean() > (
        before + 5
    )
