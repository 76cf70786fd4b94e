"""The face-scoring flow on the server: stage a photo, analyse it, describe the result.

A chosen photo is checked and stored (EXIF stripped) in the browser's own visitor
folder, where it lives for the session and at most an hour; nothing about it reaches
the database until a member saves it. The score, label and tier are computed here and
kept on the server: the browser only ever receives them to display.
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field

from PIL import Image

from prettyscore.analysis import explanation, kinds, tiers
from prettyscore.analysis.engines import face_calibration
from prettyscore.analysis.face import analyse_body, analyse_face
from prettyscore.analysis.kinds import BREAKDOWN_NAMES
from prettyscore.core import images, messages
from prettyscore.core.media import MediaOwner, MediaStore

# Stored photos are kept at most this large: plenty for the page, the card and edits,
# and a 12-megapixel upload then costs less disk and decoding time (measured:
# tests/analysis/NOTES.md, 'Stored photo size').
STORED_LONG_SIDE = 2560
#: The first bar's name: the score itself.
OVERALL = "Overall"

__all__ = [
    "BREAKDOWN_NAMES",
    "BreakdownView",
    "ScoreResult",
    "breakdown_view",
    "saved_breakdown_view",
    "score_body_photo",
    "score_staged_photo",
]


@dataclass(frozen=True)
class ScoreResult:
    """One analysed photo, as the results page shows it and a save stores it."""

    result_id: str
    image_key: str
    score: float
    label: str
    tier_key: str
    emoji: str
    color: str
    breakdown: dict[str, float]
    special_panel: str
    edited_key: str | None = None
    extra: dict = field(default_factory=dict)
    kind: str = kinds.FACE
    # "How we got your score": the measured picture's media key and the notes (each a
    # dict of part, part_name, text, in_range); none for an engine that does not look.
    explanation_key: str | None = None
    explanation: list[dict] = field(default_factory=list)
    # The face's centre as fractions (x, y) of the photo's width and height, or None.
    focus: tuple[float, float] | None = None
    # The person's score before the photo's nudge (the face's measuring engine only):
    # with it the page shows how the score follows from the bars.
    person_score: float | None = None
    # The token of this score's shared page (``scoring.share_links``), once written.
    share_token: str = ""

    def to_dict(self) -> dict:
        """A plain form, kept in the tab's server-side state between events."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data) -> ScoreResult:
        """Rebuild from ``to_dict``'s form, as plain values (state may hand us proxies)."""
        plain = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        plain["breakdown"] = {str(k): float(v) for k, v in dict(data["breakdown"]).items()}
        plain["extra"] = {str(k): v for k, v in dict(data.get("extra") or {}).items()}
        plain["explanation"] = [dict(note) for note in data.get("explanation") or []]
        focus = data.get("focus")
        plain["focus"] = (float(focus[0]), float(focus[1])) if focus else None
        return cls(**plain)

    @property
    def score_text(self) -> str:
        """The score as shown (``tiers.score_text``): "8.7", "9", "10"."""
        return tiers.score_text(self.score)


def stage_photo(
    store: MediaStore,
    owner: MediaOwner,
    data: bytes,
    *,
    name: str | None = None,
    content_type: str | None = None,
) -> str:
    """Check an upload and keep it for this browser's session; returns its media key.

    Raises the documented ``ValidationFailed`` for anything that is not a usable image,
    before a single byte is written: 'Failed to read image file' when the file claims to
    be an image (by its bytes, ``name`` or ``content_type``), else 'Please upload an
    image file'.
    """
    image = images.decode_claimed_upload(data, name=name, content_type=content_type)
    image.thumbnail((STORED_LONG_SIDE, STORED_LONG_SIDE), Image.Resampling.LANCZOS)
    return store.save(images.encode_jpeg(image), owner=owner, ext="jpg")


def score_staged_photo(store: MediaStore, image_key: str) -> ScoreResult:
    """Analyse a staged photo (slow: call it off the event loop)."""
    image = images.decode_upload(store.read(image_key))
    pixels = images.to_array(image)
    analysis = analyse_face(pixels)
    tier = tiers.tier_for(analysis.score)
    explained = explanation.explain(store, image_key, pixels, analysis)
    return ScoreResult(
        result_id=secrets.token_urlsafe(16),
        image_key=image_key,
        score=analysis.score,
        label=tier.label,
        tier_key=tier.key,
        emoji=tier.emoji,
        color=tier.color,
        breakdown=dict(analysis.breakdown),
        special_panel=tiers.special_panel_for(analysis.score),
        explanation_key=explained.image_key if explained else None,
        explanation=explained.notes if explained else [],
        focus=face_centre(analysis.face_box, pixels.shape),
        person_score=analysis.person_score,
    )


def face_centre(face_box, shape) -> tuple[float, float] | None:
    """The centre of ``face_box`` (x, y, w, h in pixels) as fractions of an image of
    ``shape`` (height, width, ...), rounded to a thousandth; None without a face."""
    if face_box is None:
        return None
    x, y, w, h = face_box
    height, width = shape[:2]
    centre = ((x + w / 2) / width, (y + h / 2) / height)
    return tuple(round(min(max(value, 0.0), 1.0), 3) for value in centre)


def score_body_photo(store: MediaStore, image_key: str, kind: str) -> ScoreResult:
    """Analyse a staged feet, hands or pet photo (slow: call it off the event loop)."""
    image = images.decode_upload(store.read(image_key))
    analysis = analyse_body(kind, images.to_array(image))
    label = kinds.label_for(kind, analysis.score)
    return ScoreResult(
        result_id=secrets.token_urlsafe(16),
        image_key=image_key,
        score=analysis.score,
        label=label.label,
        tier_key=kind,
        emoji=label.emoji,
        color=label.color,
        breakdown=dict(analysis.breakdown),
        special_panel=tiers.NO_SPECIAL_PANEL,
        kind=kind,
    )


def breakdown_rows(result: ScoreResult) -> list[dict]:
    """The overall score, then each measure, in the stored order (what the page shows,
    with the counted parts apart from the rest: ``breakdown_view``)."""
    return _plain_view(result.score, result.breakdown).bars


@dataclass(frozen=True)
class BreakdownView:
    """The breakdown as the results page and a saved face's details show it.

    ``bars`` are the score's: the overall, then the parts it counts, each row a dict of
    ``name``, ``value`` (out of 10) and ``share`` ("counts 72%", "" for the overall);
    ``apart`` the parts shown but not counted (symmetry); ``sum_line`` how the score
    follows from the bars, or "" when that cannot be said truly. Without the face
    model's figures (feet, hands, pets, the simulated engine, a result kept from before
    them) every part is a bar, as it always was, and nothing is apart."""

    bars: list[dict]
    apart: list[dict] = field(default_factory=list)
    sum_line: str = ""


def breakdown_view(result: ScoreResult) -> BreakdownView:
    """``result``'s breakdown as the results page shows it."""
    if result.kind != kinds.FACE or result.person_score is None:
        return _plain_view(result.score, result.breakdown)
    return _face_view(result.score, result.breakdown, result.person_score)


def saved_breakdown_view(
    kind: str,
    score: float,
    breakdown: dict,
    *,
    measured: bool,
    notes: list[dict] | None = None,
) -> BreakdownView:
    """A saved photo's breakdown, as its details show it, from what is stored: the
    score, the breakdown, whether the face was ``measured`` (it has the picture of "How
    we got your score") and that panel's ``notes`` (None: not loaded yet). The person's
    score is the score less what the photo added, kept with the photo's note (the stored
    breakdown keeps only its documented keys); without it the sum is not said."""
    breakdown = {str(key): float(value) for key, value in (breakdown or {}).items()}
    if kind != kinds.FACE or not measured:
        return _plain_view(score, breakdown)
    effect = photo_effect(notes or [])
    person_score = None if effect is None else round(score - effect, 1)
    return _face_view(score, breakdown, person_score)


def _row(name: str, value: float, share: str = "") -> dict:
    return {"name": name, "value": float(value), "share": share}


def _plain_view(score: float, breakdown: dict[str, float]) -> BreakdownView:
    rows = [_row(BREAKDOWN_NAMES.get(key, key), value) for key, value in breakdown.items()]
    return BreakdownView([_row(OVERALL, score), *rows])


def _face_view(
    score: float, breakdown: dict[str, float], person_score: float | None
) -> BreakdownView:
    """The counted parts as the score's bars, with their shares (the model's: the same
    for every face), the others apart, and the sum when it holds."""
    percents = face_calibration.part_percents()
    counted = [
        _row(BREAKDOWN_NAMES[part], breakdown[part], messages.BREAKDOWN_COUNTS.format(percent=pc))
        for part, pc in percents.items()
        if part in breakdown
    ]
    apart = [
        _row(BREAKDOWN_NAMES.get(key, key), value)
        for key, value in breakdown.items()
        if key not in percents
    ]
    combined = face_calibration.combination(breakdown, person_score, score)
    return BreakdownView([_row(OVERALL, score), *counted], apart, sum_line(combined))


def sum_line(combined: face_calibration.Combination | None) -> str:
    """The sum as the page says it, "Your score: 7.2 × 72% + 6.4 × 28% − 0.1 for the
    photo = 6.9" ("" for None); a figure of 0 is left out."""
    if combined is None:
        return ""
    terms = [
        messages.BREAKDOWN_SUM_PART.format(value=f"{combined.bars[part]:.1f}", percent=percent)
        for part, percent in combined.percents.items()
    ]
    line = " + ".join(terms)
    for value, template in (
        (combined.top, messages.BREAKDOWN_SUM_TOP),
        (combined.photo, messages.BREAKDOWN_SUM_PHOTO),
    ):
        if round(10 * value):
            sign = "+" if value > 0 else "\N{MINUS SIGN}"
            line += " " + template.format(sign=sign, value=f"{abs(value):.1f}")
    return messages.BREAKDOWN_SUM.format(terms=line, score=tiers.score_text(combined.score))


def photo_effect(notes: list[dict]) -> float | None:
    """What the photo added to the score (negative: took off), as kept with its note
    (``explanation.note_rows``), or None for notes kept without it."""
    for note in notes:
        if (effect := note.get("photo_effect")) is not None:
            return float(effect)
    return None
