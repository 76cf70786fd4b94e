"""Which photo shows you best: 2 to 6 photos of one person, ranked by the photo part.

The headline score is the person's (learned from the face), nudged by the photo within a
narrow band; the photo part (``analysis.face_photo``: light, sharpness, grain, expression,
framing) is how well each photo shows that face. So the ranking compares the photos, not
the person, and says for each one what differs from the best and what to change.

The photos are staged as a single upload is (checked, EXIF stripped, in the browser's
visitor folder, for the session and at most an hour) and nothing is written to the
database: a visitor's comparison leaves no row. The analysis is slow CPU work: callers
run ``read_photo`` (or ``rank_photos``) off the event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from prettyscore.analysis import face_photo, tiers
from prettyscore.analysis.face import analyse_face
from prettyscore.analysis.service import stage_photo
from prettyscore.core import images, messages
from prettyscore.core.constants import BEST_PHOTO_MAX_PHOTOS, BEST_PHOTO_MIN_PHOTOS
from prettyscore.core.errors import ValidationFailed
from prettyscore.core.media import MediaOwner, MediaStore


class Upload(NamedTuple):
    """One chosen file as the browser sent it."""

    data: bytes
    name: str | None = None
    content_type: str | None = None


@dataclass(frozen=True)
class PhotoRead:
    """One staged photo as the analysis read it, or the refusal that says why it could
    not (no face, several, too blurred...)."""

    image_key: str
    score: float | None = None
    person_score: float | None = None
    reading: face_photo.PhotoReading | None = None
    refusal: str = ""


@dataclass(frozen=True)
class RankedPhoto:
    """One photo of the comparison, as the page shows it.

    ``rank`` is 1 for the photo that shows the person best, None for a refused photo
    (its ``refusal`` says why). ``quality`` and ``aspects`` are on 0–10 with one decimal;
    ``differs`` names the aspects in which it falls short of the best, worst first.
    """

    image_key: str
    rank: int | None
    score: float | None = None
    person_score: float | None = None
    quality: float | None = None
    aspects: dict[str, float] = field(default_factory=dict)
    differs: list[str] = field(default_factory=list)
    advice: str = ""
    refusal: str = ""

    @property
    def score_text(self) -> str:
        return "" if self.score is None else tiers.score_text(self.score)

    @property
    def person_score_text(self) -> str:
        return "" if self.person_score is None else tiers.score_text(self.person_score)


@dataclass(frozen=True)
class Ranking:
    """The ranked photos, best first, then the refused ones in the order given.
    ``by_photo`` is False when the engine reads no photo (``simulated``): the photos are
    then ranked by their scores alone, without aspects or advice."""

    photos: list[RankedPhoto]
    by_photo: bool


def check_photo_count(count: int) -> None:
    """Refuse fewer than 2 photos (nothing to compare) or more than 6."""
    if count < BEST_PHOTO_MIN_PHOTOS:
        raise ValidationFailed(messages.BEST_PHOTO_TOO_FEW, code="too_few_photos")
    if count > BEST_PHOTO_MAX_PHOTOS:
        raise ValidationFailed(messages.BEST_PHOTO_TOO_MANY, code="too_many_photos")


def stage_photos(store: MediaStore, owner: MediaOwner, uploads: Sequence[Upload]) -> list[str]:
    """Check the chosen files and keep them for this browser's session, as a single
    upload is kept; returns their media keys in the order chosen.

    All or nothing: a file that is not a usable image (or over the size limit) refuses
    the whole choice with that file's documented text, and the files kept before it are
    deleted, so the person chooses again from a clean slate.
    """
    check_photo_count(len(uploads))
    keys: list[str] = []
    try:
        for upload in uploads:
            keys.append(
                stage_photo(
                    store, owner, upload.data, name=upload.name, content_type=upload.content_type
                )
            )
    except Exception:
        for key in keys:
            store.delete(key)
        raise
    return keys


def read_photo(store: MediaStore, image_key: str) -> PhotoRead:
    """Analyse one staged photo (slow: call it off the event loop). A photo the analysis
    refuses is kept with its refusal's text, to be listed after the ranked ones."""
    pixels = images.to_array(images.decode_upload(store.read(image_key)))
    try:
        analysis = analyse_face(pixels)
    except ValidationFailed as refusal:
        return PhotoRead(image_key, refusal=refusal.message)
    return PhotoRead(
        image_key,
        score=analysis.score,
        person_score=analysis.person_score,
        reading=analysis.photo,
    )


def rank(reads: Sequence[PhotoRead]) -> Ranking:
    """Rank read photos by the photo part (ties keep the order given); a photo of an
    engine that reads none is ranked by its score."""
    check_photo_count(len(reads))
    scored = [read for read in reads if not read.refusal]
    by_photo = all(read.reading is not None for read in scored)
    ordered = sorted(scored, key=_quality if by_photo else _score, reverse=True)
    best = ordered[0].reading if ordered and by_photo else None
    ranked = [_ranked(read, place, best) for place, read in enumerate(ordered, start=1)]
    refused = [
        RankedPhoto(read.image_key, None, refusal=read.refusal) for read in reads if read.refusal
    ]
    return Ranking(ranked + refused, by_photo)


def rank_photos(store: MediaStore, image_keys: Sequence[str]) -> Ranking:
    """Read and rank 2 to 6 staged photos of one person (slow: off the event loop)."""
    check_photo_count(len(image_keys))
    return rank([read_photo(store, key) for key in image_keys])


def aspect_rows(photo: RankedPhoto) -> list[dict]:
    """The photo's aspects as bars show them: each aspect's name and value (0–10)."""
    return [
        {"name": face_photo.ASPECT_NAMES[key], "value": photo.aspects[key]}
        for key in face_photo.ASPECTS
        if key in photo.aspects
    ]


def _quality(read: PhotoRead) -> float:
    """The photo's quality as shown (0–10, one decimal): two photos that read the same
    are a tie, and a stable sort keeps them in the order given."""
    return read.reading.shown()["overall"]


def _score(read: PhotoRead) -> float:
    return read.score


def _ranked(read: PhotoRead, place: int, best: face_photo.PhotoReading | None) -> RankedPhoto:
    """One ranked photo; the best one differs from nothing."""
    if read.reading is None:
        return RankedPhoto(read.image_key, place, read.score, read.person_score)
    shown = read.reading.shown()
    overall = shown.pop("overall")
    differs = [] if place == 1 else face_photo.differences(read.reading, best)
    return RankedPhoto(
        read.image_key,
        place,
        score=read.score,
        person_score=read.person_score,
        quality=overall,
        aspects=shown,
        differs=differs,
        advice=read.reading.advice,
    )
