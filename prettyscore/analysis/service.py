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
from prettyscore.analysis.face import analyse_body, analyse_face
from prettyscore.analysis.kinds import BREAKDOWN_NAMES
from prettyscore.core import images
from prettyscore.core.media import MediaOwner, MediaStore

# Stored photos are kept at most this large: plenty for the page, the card and edits,
# and a 12-megapixel upload then costs less disk and decoding time (measured:
# tests/analysis/NOTES.md, 'Stored photo size').
STORED_LONG_SIDE = 2560

__all__ = ["BREAKDOWN_NAMES", "ScoreResult", "score_body_photo", "score_staged_photo"]


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
    """The four bars of the results page: the overall score, then each measure."""
    rows = [{"name": "Overall", "value": result.score}]
    rows += [
        {"name": BREAKDOWN_NAMES.get(key, key), "value": value}
        for key, value in result.breakdown.items()
    ]
    return rows
