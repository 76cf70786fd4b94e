"""What a score means on screen: the tier table and the special panels (document 000 §4, §2).

The tier table is the documents' exactly (minimum score, key, label); the emoji and the
colour are ours, for the score circle and the badge. Two tiers share the key ``lovely``
("Pretty" from 6, "Lovely" below), as the documents have it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tier:
    """One row of the tier table: a score of at least ``min_score`` earns it."""

    key: str
    label: str
    emoji: str
    color: str
    min_score: float


# Highest first; a score takes the first tier whose minimum it reaches.
TIERS = (
    Tier("legendary", "WORLD'S MOST BEAUTIFUL", "👑", "#d4a017", 10.0),
    Tier("elite", "Elite Beauty", "💎", "#7c3aed", 9.5),
    Tier("exceptional", "Exceptional", "🌟", "#db2777", 9.0),
    Tier("stunning", "Absolutely Stunning", "✨", "#e11d48", 8.5),
    Tier("gorgeous", "Gorgeous", "🔥", "#ea580c", 8.0),
    Tier("beautiful", "Beautiful", "💖", "#ec4899", 7.5),
    Tier("pretty", "Very Pretty", "😊", "#f472b6", 7.0),
    Tier("lovely", "Pretty", "🌸", "#0ea5e9", 6.0),
    Tier("lovely", "Lovely", "💐", "#14b8a6", float("-inf")),
)

# Special panel kinds (the results page maps each to its panel); "" means none.
WORLD_RECORD = "world_record"
ELITE_STATUS = "elite_status"
EXCEPTIONAL_SCORE = "exceptional_score"
NO_SPECIAL_PANEL = ""


def score_text(score: float) -> str:
    """A score as every page, card, file name and share text shows it: one decimal,
    without a trailing ".0" ("8.7", "9", "10"; the hands default on the 100-point reading,
    "85"). The documents give whole scores as whole numbers (feet, hands and pets score
    7 to 9; "X/10") and the sub-scores, not the score, with one decimal always.
    ``ui.score.format_score_var`` is the same rule in the browser."""
    return f"{float(score):.1f}".removesuffix(".0")


def tier_for(score: float) -> Tier:
    """The tier a score earns (scores carry one decimal; 9.49 would still be "Exceptional")."""
    for tier in TIERS:
        if score >= tier.min_score:
            return tier
    raise AssertionError("the last tier has no minimum")


def displayed_in_hundreds(score: float) -> int:
    """The score as the special panels' scale shows it: ``round(score * 10)``.

    The documents show the special panels "as displayed in 100s" (exactly 10, 99,
    95 to 98) without saying how that scale relates to the 1–10 score; they leave both
    readings standing. Ours: a one-decimal score times ten, so 9.9 displays as 99,
    9.5–9.8 as 95–98 and 10.0 as 100, the world record. Read on the 1–10 scale, the
    same rule gives "exactly 10 is the world record" and "9.5 and up is exceptional",
    so both readings hold at once.
    """
    return round(score * 10)


def special_panel_for(score: float) -> str:
    """Which special panel a score opens: world record, elite status, exceptional, or "".

    Exactly 10 (displayed 100) is the world record ($100,000 claim, 24-hour follow-up);
    a displayed 99 (9.9) is elite status ($50,000, 48 hours); a displayed 95–98
    (9.5–9.8) is the exceptional score. See ``displayed_in_hundreds``.
    """
    shown = displayed_in_hundreds(score)
    if shown >= 100:
        return WORLD_RECORD
    if shown == 99:
        return ELITE_STATUS
    if 95 <= shown <= 98:
        return EXCEPTIONAL_SCORE
    return NO_SPECIAL_PANEL
