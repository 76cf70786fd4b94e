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
"""

from __future__ import annotations

import re

_UNSTORABLE = re.compile(
    "[\x00\ud800-\udfff\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b\u2060\ufeff]"
)


def storable(text: str | None) -> str:
    """``text`` without NUL, lone surrogates and invisible direction controls ("" for
    None)."""
    return _UNSTORABLE.sub("", text or "")
