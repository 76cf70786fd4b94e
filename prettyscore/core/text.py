"""Free text as it may be stored: what no database can hold is dropped, the rest is kept.

A form's text reaches the services from the browser's JSON, which can carry characters
nobody types: NUL (PostgreSQL text cannot hold it) and lone UTF-16 surrogates such as
"\\ud800" (half of an emoji cut in two; neither SQLite nor PostgreSQL can encode them, so
storing one would fail with an unexpected error). Dropping them loses nothing a person
meant to write. Everything else, markup included, is kept as typed: pages show it as text.
"""

from __future__ import annotations

import re

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable(text: str | None) -> str:
    """``text`` without NUL and lone surrogates ("" for None)."""
    return _UNSTORABLE.sub("", text or "")
