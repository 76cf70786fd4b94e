"""The downloadable result card: a 600×1000 PNG drawn on the server with Pillow.

Drawn here rather than on a browser canvas so that the card is the same everywhere, can
be shared as a file, and never needs the photo's bytes in the client's state. Only
Pillow's built-in FreeType font is used (``ImageFont.load_default(size=...)``), so the
card renders identically on a fresh machine with no system fonts and no internet; that
font has no emoji, so emoji are left out of the drawn text. Same input, same bytes.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np
from PIL import Image, ImageDraw, ImageFont, ImageOps

from prettyscore.analysis.kinds import BREAKDOWN_NAMES, FEET, HANDS, PET
from prettyscore.analysis.tiers import score_text
from prettyscore.core import constants, messages
from prettyscore.core.images import encode_png

PINK = (0xEC, 0x48, 0x99)
PURPLE = (0xA8, 0x55, 0xF7)
WHITE = (255, 255, 255)
HASHTAG = "#AIPhotoChallenge"
MARGIN = 40
PHOTO_RADIUS = 28
MAX_BREAKDOWN_ROWS = 4
# What a card of each kind says under the brand; a face card says nothing more.
KIND_TITLES = {
    FEET: messages.TITLE_FEET_UPLOAD,
    HANDS: messages.TITLE_HANDS_UPLOAD,
    PET: messages.TITLE_PET_UPLOAD,
}


def render_result_card(
    photo: Image.Image,
    *,
    score: float,
    label: str,
    emoji: str = "",
    breakdown: dict[str, float],
    kind: str = "face",
    size: tuple[int, int] = constants.RESULT_CARD_SIZE,
) -> bytes:
    """The result card as PNG bytes: branding, photo, score, label, breakdown, disclaimer.

    ``emoji`` is accepted but not drawn (the offline font has no emoji glyphs). ``kind``
    (face, feet, hands, pet) names what was scored: any kind but face is titled under
    the brand ("Feet Score"); the breakdown keys decide the bars. ``size`` is
    (600, 1000), or (600, 800) for feet/hands cards.
    """
    del emoji  # see the docstring: kept in the signature for the callers
    width, height = size
    rows = _breakdown_rows(breakdown)
    card = _gradient(width, height).convert("RGBA")
    overlay = Image.new("RGBA", card.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)

    y = _draw_brand(draw, width, top=26)
    y = _draw_kind_title(draw, width, top=y, kind=kind)
    photo_height = height - y - _below_photo_height(len(rows)) - 16
    _paste_photo(card, photo, box=(MARGIN, y + 16, width - MARGIN, y + 16 + photo_height))
    y += 16 + photo_height + 14
    y = _draw_score(draw, width, top=y, score=score)
    y = _draw_label(draw, width, top=y, label=label)
    y = _draw_breakdown(draw, width, top=y + 6, rows=rows)
    _draw_footer(draw, width, height)
    return encode_png(Image.alpha_composite(card, overlay).convert("RGB"))


# ---------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------
def _font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's bundled FreeType font (Aileron) at ``size`` px: no system font needed."""
    return ImageFont.load_default(size=size)


def without_emoji(text: str) -> str:
    """``text`` with emoji and pictographs removed (the bundled font cannot draw them)."""
    kept = [
        char
        for char in text
        if ord(char) <= 0xFFFF
        and unicodedata.category(char) not in ("So", "Cs", "Co")
        and not (0xFE00 <= ord(char) <= 0xFE0F)  # variation selectors
        and char not in ("\u200d", "\u20e3")  # zero-width joiner, keycap
    ]
    return " ".join("".join(kept).split())


def format_score(score: float) -> str:
    """'8.7/10' (one decimal, '8/10' for whole numbers); the 100-point reading as '/100'."""
    scale = 100 if score > 10 else 10
    return f"{score_text(score)}/{scale}"


def breakdown_name(key: str) -> str:
    """A readable name for a breakdown key: 'skinQuality' → 'Skin Quality'."""
    if key in BREAKDOWN_NAMES:
        return BREAKDOWN_NAMES[key]
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", key).replace("_", " ").replace("-", " ")
    return " ".join(word.capitalize() for word in words.split())


def _fit_font(text: str, max_width: int, size: int, min_size: int = 14):
    """The largest font (from ``size`` down) in which ``text`` fits ``max_width``."""
    font = _font(size)
    while size > min_size and font.getlength(text) > max_width:
        size -= 2
        font = _font(size)
    return font


def _centered(draw: ImageDraw.ImageDraw, width: int, y: int, text: str, font, **style) -> None:
    draw.text((width / 2, y), text, font=font, anchor="mt", **style)


def _wrap(text: str, font, max_width: int) -> list[str]:
    """Greedy word wrap to ``max_width`` pixels."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if current and font.getlength(candidate) > max_width:
            lines.append(current)
            current = word
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


# ---------------------------------------------------------------------------
# Parts of the card, top to bottom
# ---------------------------------------------------------------------------
def _gradient(width: int, height: int) -> Image.Image:
    """The brand's diagonal gradient, pink (#ec4899) top-left to purple (#a855f7)."""
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    t = (xs / max(width - 1, 1) * 0.35 + ys / max(height - 1, 1) * 0.65)[..., None]
    start, end = np.array(PINK, np.float32), np.array(PURPLE, np.float32)
    pixels = np.rint(start + (end - start) * t).astype(np.uint8)
    return Image.fromarray(pixels)


def _draw_brand(draw: ImageDraw.ImageDraw, width: int, *, top: int) -> int:
    font = _font(40)
    _centered(draw, width, top, "PrettyScore", font, fill=WHITE, stroke_width=1, stroke_fill=WHITE)
    return top + 48


def _draw_kind_title(draw: ImageDraw.ImageDraw, width: int, *, top: int, kind: str) -> int:
    title = KIND_TITLES.get(kind)
    if title is None:
        return top
    _centered(draw, width, top, title, _font(22), fill=(*WHITE, 235))
    return top + 28


def _below_photo_height(row_count: int) -> int:
    """Height of everything under the photo, so the photo takes what is left."""
    score, label, footer = 110, 46, 118
    breakdown = 24 + row_count * 44 if row_count else 0
    return score + label + breakdown + footer


def _paste_photo(card: Image.Image, photo: Image.Image, *, box: tuple[int, int, int, int]):
    """The photo cover-fitted into ``box`` (faces sit high: the crop keeps the upper part),
    with rounded corners and a thin white frame."""
    left, top, right, bottom = box
    size = (right - left, bottom - top)
    fitted = ImageOps.fit(
        photo.convert("RGB"), size, Image.Resampling.LANCZOS, centering=(0.5, 0.3)
    )
    frame = ImageDraw.Draw(card)
    frame.rounded_rectangle(
        (left - 4, top - 4, right + 3, bottom + 3), radius=PHOTO_RADIUS + 4, fill=(*WHITE, 255)
    )
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, size[0] - 1, size[1] - 1), PHOTO_RADIUS, 255)
    card.paste(fitted, (left, top), mask)


def _draw_score(draw: ImageDraw.ImageDraw, width: int, *, top: int, score: float) -> int:
    """The big score, '8.7' large and '/10' smaller, on one baseline, centred."""
    number, scale = format_score(score).split("/")
    big, small = _font(92), _font(40)
    suffix = "/" + scale
    total = big.getlength(number) + small.getlength(suffix) + 4
    x = (width - total) / 2
    baseline = top + 86
    shadow = (0, 0, 0, 50)
    for offset, fill in ((3, shadow), (0, (*WHITE, 255))):
        position = (x, baseline + offset)
        draw.text(
            position, number, font=big, anchor="ls", fill=fill, stroke_width=2, stroke_fill=fill
        )
    suffix_x = x + big.getlength(number) + 4
    draw.text((suffix_x, baseline), suffix, font=small, anchor="ls", fill=(*WHITE, 230))
    return top + 110


def _draw_label(draw: ImageDraw.ImageDraw, width: int, *, top: int, label: str) -> int:
    text = without_emoji(label)
    if text:
        font = _fit_font(text, width - 2 * MARGIN, 32)
        _centered(draw, width, top, text, font, fill=WHITE, stroke_width=1, stroke_fill=WHITE)
    return top + 46


def _breakdown_rows(breakdown: dict[str, float]) -> list[tuple[str, float]]:
    """(name, value 0–10) for the first few measures, in the order given."""
    rows = []
    for key, value in list(breakdown.items())[:MAX_BREAKDOWN_ROWS]:
        rows.append((breakdown_name(key), min(max(float(value), 0.0), 10.0)))
    return rows


def _draw_breakdown(draw, width: int, *, top: int, rows: list[tuple[str, float]]) -> int:
    """A translucent panel with one bar per measure, each out of 10."""
    if not rows:
        return top
    left, right = MARGIN, width - MARGIN
    bottom = top + 12 + len(rows) * 44
    draw.rounded_rectangle((left, top, right, bottom), radius=18, fill=(255, 255, 255, 46))
    font = _font(19)
    y = top + 12
    for name, value in rows:
        draw.text((left + 18, y), name, font=font, fill=WHITE, anchor="lt")
        draw.text((right - 18, y), f"{value:.1f}", font=font, fill=WHITE, anchor="rt")
        bar_top, bar_left, bar_right = y + 24, left + 18, right - 18
        draw.rounded_rectangle(
            (bar_left, bar_top, bar_right, bar_top + 9), radius=5, fill=(255, 255, 255, 70)
        )
        filled = bar_left + round((bar_right - bar_left) * value / 10)
        if filled > bar_left + 9:
            draw.rounded_rectangle((bar_left, bar_top, filled, bar_top + 9), radius=5, fill=WHITE)
        y += 44
    return bottom + 12


def _draw_footer(draw: ImageDraw.ImageDraw, width: int, height: int) -> None:
    """The hashtag and the entertainment disclaimer, anchored to the bottom edge."""
    small = _font(13)
    lines = _wrap(messages.DISCLAIMER, small, width - 2 * MARGIN)
    line_height = 17
    y = height - 18 - line_height * len(lines)
    for index, line in enumerate(lines):
        _centered(draw, width, y + index * line_height, line, small, fill=(255, 255, 255, 225))
    tag = _font(26)
    _centered(draw, width, y - 42, HASHTAG, tag, fill=WHITE, stroke_width=1, stroke_fill=WHITE)
