"""The editing presets of document 000 §9, verbatim, grouped as the editor's tabs show them.

``PRESET_GROUPS`` keeps the documents' order (tabs, then buttons); ``UPSCALE_PROMPT`` is
the 'Download HD Version (4K)' preset. Engines recognise these prompts exactly (case and
surrounding spaces aside); anything else is a custom prompt.
"""

from __future__ import annotations

BACKGROUND = "Background"
HAIR = "Hair"
OUTFIT = "Outfit"

REMOVE_BACKGROUND = "Remove background"
BLUR_BACKGROUND = "Blur background"
OUTDOOR_BACKGROUND = "Change to outdoor background"
STUDIO_BACKGROUND = "Change to studio background"

HAIR_VOLUME = "Improve hair volume"
HAIR_BLONDE = "Change hair color to blonde"
HAIR_HIGHLIGHTS = "Add natural highlights"
HAIR_POLISHED = "Make hair look more polished"

PROFESSIONAL_ATTIRE = "Change to professional attire"
CASUAL_OUTFIT = "Change to casual outfit"
FORMAL_JACKET = "Add formal jacket"
CLOTHING_COLORS = "Improve clothing colors"

UPSCALE_PROMPT = "Upscale this photo to 4K resolution with enhanced details"
# The long side of an upscaled photo, in pixels (4K UHD).
UPSCALE_LONG_SIDE = 3840

PRESET_GROUPS: dict[str, tuple[str, ...]] = {
    BACKGROUND: (REMOVE_BACKGROUND, BLUR_BACKGROUND, OUTDOOR_BACKGROUND, STUDIO_BACKGROUND),
    HAIR: (HAIR_VOLUME, HAIR_BLONDE, HAIR_HIGHLIGHTS, HAIR_POLISHED),
    OUTFIT: (PROFESSIONAL_ATTIRE, CASUAL_OUTFIT, FORMAL_JACKET, CLOTHING_COLORS),
}

# The twelve tab presets in order, then every preset an engine must carry out.
TAB_PRESETS: tuple[str, ...] = tuple(p for group in PRESET_GROUPS.values() for p in group)
ALL_PRESETS: tuple[str, ...] = (*TAB_PRESETS, UPSCALE_PROMPT)


def normalised(prompt: str) -> str:
    """The prompt as engines compare it: trimmed, lower case, inner spaces collapsed."""
    return " ".join(prompt.split()).lower().rstrip(".!")


def preset_named(prompt: str) -> str | None:
    """The preset ``prompt`` is (ignoring case, spacing and a final full stop), or None."""
    wanted = normalised(prompt)
    for preset in ALL_PRESETS:
        if normalised(preset) == wanted:
            return preset
    return None
