"""The Radix theme, with only the colour scales the app uses, and only the Radix
components the pages import.

Radix Themes' one stylesheet (``styles.css``) carries all 31 colour scales, in light,
dark and wide-gamut forms: 40% of the CSS every page must load before it can paint
(35 KB of 86 KB compressed). Radix also ships it in parts; this plugin loads the base
tokens, the scales named below, and all of the components and utilities, and is
otherwise Reflex's own RadixThemesPlugin (wrapping every page in the theme).

A colour used with ``color_scheme=`` (or a ``--name-N`` variable) must be listed in
``COLOUR_SCALES``; tests/ui/test_theme.py checks the code for names that are not.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import reflex as rx

#: The theme's accent (pink), its matching grey (mauve, Radix's choice for pink), the
#: plain grey, and every colour the pages name.
COLOUR_SCALES = (
    "pink",
    "mauve",
    "gray",
    "amber",
    "blue",
    "bronze",
    "gold",
    "green",
    "orange",
    "purple",
    "red",
    "yellow",
)

RADIX = "@radix-ui/themes"


@dataclasses.dataclass
class RadixThemeWithUsedColours(rx.plugins.RadixThemesPlugin):
    """Reflex's Radix plugin, loading Radix's stylesheet in parts (see the module)."""

    colour_scales: tuple[str, ...] = COLOUR_SCALES

    def get_frontend_dependencies(self, **context: Any) -> tuple[str, ...]:
        """None of its own: the Radix package comes with the components that use it.

        Reflex's plugin also names it here, which puts the whole library on
        ``window.__reflex`` for ``rx.dynamic`` components (the app has none): every page
        then loads all of Radix Themes (0.5 MB of JavaScript) instead of the parts its
        components import.
        """
        return ()

    def get_stylesheet_paths(self, **context: Any) -> tuple[str, ...]:
        if not self.enabled:
            return ()
        return (
            f"{RADIX}/tokens/base.css",
            *(f"{RADIX}/tokens/colors/{name}.css" for name in self.colour_scales),
            f"{RADIX}/components.css",
            f"{RADIX}/utilities.css",
        )


def theme_plugin() -> RadixThemeWithUsedColours:
    """The app's theme: light, pink accent, large radius."""
    return RadixThemeWithUsedColours(
        theme=rx.theme(appearance="light", accent_color="pink", radius="large")
    )
