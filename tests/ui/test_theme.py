"""The theme loads Radix's colour scales one by one: every colour the code names must be
among them, or the components in that colour would show with no colour at all."""

from __future__ import annotations

import re
from pathlib import Path

from prettyscore.ui.theme import COLOUR_SCALES, RadixThemeWithUsedColours

PACKAGE = Path(__file__).resolve().parents[2] / "prettyscore"
#: Radix Themes' colour scales (its tokens/colors/ folder).
RADIX_COLOURS = "|".join(
    ("tomato", "red", "ruby", "crimson", "pink", "plum", "purple", "violet", "iris", "indigo")
    + ("blue", "cyan", "teal", "jade", "green", "grass", "brown", "orange", "sky", "mint")
    + ("lime", "yellow", "amber", "gold", "bronze", "gray", "mauve", "slate", "sage", "olive")
    + ("sand",)
)
QUOTED_COLOUR = re.compile(rf"""["']({RADIX_COLOURS})["']""")
COLOUR_VARIABLE = re.compile(rf"var\(--({RADIX_COLOURS})-a?\d+\)")


def colours_named_in_the_code() -> dict[str, str]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        for match in (*QUOTED_COLOUR.finditer(text), *COLOUR_VARIABLE.finditer(text)):
            found.setdefault(match.group(1), str(path.relative_to(PACKAGE)))
    return found


def test_every_colour_the_pages_name_is_loaded():
    named = colours_named_in_the_code()
    assert {"pink", "gray", "red", "green"} <= named.keys()  # the scan finds them
    missing = {name: where for name, where in named.items() if name not in COLOUR_SCALES}
    assert missing == {}


def test_the_stylesheets_are_radix_parts_with_those_colours():
    sheets = RadixThemeWithUsedColours().get_stylesheet_paths()
    assert sheets[0] == "@radix-ui/themes/tokens/base.css"
    assert "@radix-ui/themes/tokens/colors/pink.css" in sheets
    assert "@radix-ui/themes/tokens/colors/mauve.css" in sheets  # pink's grey
    assert sheets[-2:] == ("@radix-ui/themes/components.css", "@radix-ui/themes/utilities.css")
    assert not any(sheet.endswith("styles.css") for sheet in sheets)
