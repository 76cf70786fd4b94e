"""What free text keeps when it is stored: what a person meant to write, nothing that
could pose as something else on screen."""

from __future__ import annotations

import pytest

from prettyscore.core.text import clean_name, storable


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("Bob\u202eevil", "Bobevil"),  # would show as "Boblive"
        ("\u2067Alice\u2069", "Alice"),
        ("Ann\u200bie\ufeff", "Annie"),
        ("a\x00b\ud800c", "abc"),
        ("\U0001f469\u200d\U0001f467 \u0645\u0631\u062d\u0628\u0627", None),  # emoji, Arabic
        ('<b>"markup"</b>', None),
    ],
)
def test_only_what_cannot_be_stored_or_poses_as_other_text_is_dropped(typed, kept):
    assert storable(typed) == (typed if kept is None else kept)


@pytest.mark.parametrize(
    ("typed", "name"),
    [
        ("Bob\u202eevil", "Bobevil"),
        ("  Ada \n\t Lovelace\x07 ", "Ada Lovelace"),
        ("\x1b[31mAnn", "[31mAnn"),
        ("\x01\x02\x7f\x9f", ""),  # control characters only: no name
        ("\u3164\u2800 \u200b", ""),  # blank letters only
        ("\U0001f469\u200d\U0001f467 \u0645\u0631\u062d\u0628\u0627", None),
        ("Zo\u00eb O'Brien-Smith", None),
    ],
)
def test_a_name_is_one_visible_line(typed, name):
    assert clean_name(typed) == (typed if name is None else name)
