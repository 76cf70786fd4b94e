""" "How we got your score": the measured picture and notes a scored face comes with."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from prettyscore.analysis import explanation, service
from prettyscore.analysis.engines.face_calibration import HARMONY, SKIN, SYMMETRY
from prettyscore.core.media import MediaOwner, parse_key
from tests.fixtures.photos import astronaut, jpeg

VISITOR = MediaOwner.visitor("an-explained-visitor")


def scored(store):
    key = service.stage_photo(store, VISITOR, jpeg(astronaut()))
    return service.score_staged_photo(store, key)


def test_a_scored_face_comes_with_its_picture_beside_the_photo(store):
    result = scored(store)
    assert result.explanation_key is not None
    assert parse_key(result.explanation_key).owner == VISITOR  # as private as the photo
    picture = Image.open(io.BytesIO(store.read(result.explanation_key)))
    assert picture.format == "JPEG"
    assert max(picture.size) == explanation.PICTURE_SIDE


def test_the_picture_shows_each_parts_lines_in_its_colour(store):
    result = scored(store)
    pixels = np.asarray(Image.open(io.BytesIO(store.read(result.explanation_key))), np.int32)
    for part in (SYMMETRY, HARMONY, SKIN):
        colour = np.array(explanation.PART_COLOURS[part], np.int32)
        near = np.abs(pixels - colour).sum(axis=2) < 60
        assert near.sum() > 200, f"{part}: {near.sum()} pixels of its colour"


def test_each_measure_is_a_sentence_against_its_ideal_for_its_part(store):
    notes = scored(store).explanation
    parts = {note["part"] for note in notes}
    assert parts == {SYMMETRY, HARMONY, SKIN}
    texts = [note["text"] for note in notes]
    counted = [text for text in texts if "(counts " in text]
    assert [text.split(":")[0] for text in counted] == [
        "Overall impression",
        "Face length to width",
        "Skin evenness",
    ]
    learned, *measured = counted
    assert "learned from 2,513 people's ratings of 102 faces" in learned
    assert all("raise" in text and "your score" in text and "typical" in text for text in measured)
    photo = next(text for text in texts if text.startswith("This photo: "))
    assert "out of 10" in photo and "moves it only a little" in photo
    assert any(text.startswith("Symmetry is shown but not counted") for text in texts)
    assert not any("golden ratio" in text for text in texts)
    assert all(isinstance(note["in_range"], bool) for note in notes)
    assert {note["part_name"] for note in notes} == {"Symmetry", "Facial Harmony", "Skin Quality"}


def test_the_same_photo_is_explained_the_same_way(store):
    first, second = scored(store), scored(store)
    assert first.explanation == second.explanation
    assert store.read(first.explanation_key) == store.read(second.explanation_key)


def test_a_result_keeps_its_explanation_through_the_tabs_state(store):
    result = scored(store)
    again = service.ScoreResult.from_dict(result.to_dict())
    assert again.explanation == result.explanation
    assert again.explanation_key == result.explanation_key
