"""Free text as it may be stored: what no database can hold is dropped, the rest is kept.

A form's text reaches the services from the browser's JSON, which can carry characters
nobody types: NUL (PostgreSQL text cannot hold it) and lone UTF-16 surrogates such as
"\\ud800" (half of an emoji cut in two; neither SQLite nor PostgreSQL can encode them, so
storing one would fail with an unexpected error). Dropping them loses nothing a person
meant to write.

Invisible direction controls are dropped too: a right-to-left override turns
"Bob\u202eevil" into "Boblive" on screen, so a name or a message could pose as another
(the embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, the marks
U+200E, U+200F and U+061C), and so are the invisible zero-width space, word joiner and
byte-order mark. The zero-width joiner and non-joiner stay: emoji sequences and
Persian or Indic words need them. Everything else, markup included, is kept as typed:
pages show it as text.

A name (a profile's, a listing's, a partner's, an application's, an authenticator's) is
shown to other people on one line: ``clean_name`` also drops control characters, puts
it on one line with single spaces, and makes a name with nothing visible in it an empty
one, so the form's "required" rule refuses it.
"""

from __future__ import annotations

import re
import unicodedata

_UNSTORABLE = re.compile(
    "[\x00\ud800-\udfff\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b\u2060\ufeff]"
)
# C0 and C1 controls and the line and paragraph separators: each becomes a space.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# Letters that draw nothing: the Hangul fillers, the Braille blank, the Mongolian vowel
# separator. A name of them alone looks empty.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")
# Letters, digits, punctuation and symbols: what a reader sees.
_VISIBLE_CATEGORIES = ("L", "N", "P", "S")


def storable(text: str | None) -> str:
    """``text`` without NUL, lone surrogates and invisible direction controls ("" for
    None)."""
    return _UNSTORABLE.sub("", text or "")


def clean_name(text: str | None) -> str:
    """``text`` as a name is stored and shown: ``storable``, control characters and line
    breaks turned into spaces, runs of spaces made one, trimmed; "" when no visible
    character is left, so a name of control characters alone counts as no name."""
    one_line = " ".join(_CONTROLS.sub(" ", storable(text)).split())
    return one_line if any(_visible(character) for character in one_line) else ""


def _visible(character: str) -> bool:
    return (
        unicodedata.category(character).startswith(_VISIBLE_CATEGORIES)
        and character not in _BLANK_LETTERS
    )
