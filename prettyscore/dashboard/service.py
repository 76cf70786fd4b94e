"""What the dashboard's Overview and Personality tabs show, read in one place.

Plain reads of the member's own rows: counts and their best score, their score across
their saved face photos, their video generations, their personality results and whether
they have Premium (the one ``is_subscriber`` check every limit asks).
"""

from __future__ import annotations

import statistics
import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, or_
from sqlmodel import Session, select

from prettyscore.analysis import kinds, tiers
from prettyscore.billing.service import is_subscriber
from prettyscore.core import messages
from prettyscore.editing import service as editing
from prettyscore.personality.models import PersonalityResult
from prettyscore.personality.quiz import BASIC, DETAILED
from prettyscore.photos.models import Photo
from prettyscore.video.models import VideoGeneration

RECENT_RESULTS = 10
#: The score across photos is shown from this many saved face photos: one is no range.
RANGE_MIN_PHOTOS = 2


@dataclass(frozen=True)
class ScoreRange:
    """A member's score across their saved face photos: how many, the middle (median)
    and the lowest and highest, each one decimal."""

    count: int
    middle: float
    lowest: float
    highest: float

    @property
    def text(self) -> str:
        """'Your score across N photos: middle X (range A–B)', or "" below two photos."""
        if self.count < RANGE_MIN_PHOTOS:
            return ""
        return messages.SCORE_ACROSS_PHOTOS.format(
            count=self.count,
            middle=tiers.score_text(self.middle),
            lowest=tiers.score_text(self.lowest),
            highest=tiers.score_text(self.highest),
        )


@dataclass(frozen=True)
class Overview:
    """The member's figures at a glance."""

    photo_count: int
    best_score: float | None
    listed_count: int
    video_count: int
    free_edits_left: int
    premium: bool
    score_range: ScoreRange | None = None


def score_range(db: Session, user_id: uuid.UUID) -> ScoreRange | None:
    """The member's score across their saved face photos (feet, hands and pets are
    scored on other scales), or None without one. The same face scores a little
    differently from photo to photo; the middle and the range say where it stands."""
    scores = db.exec(
        select(Photo.score).where(Photo.user_id == user_id, Photo.photo_type == kinds.FACE)
    ).all()
    if not scores:
        return None
    return ScoreRange(
        count=len(scores),
        middle=round(statistics.median(scores), 1),
        lowest=min(scores),
        highest=max(scores),
    )


def overview(db: Session, user_id: uuid.UUID) -> Overview:
    """Counts, the best score and the subscription state of one member (their latest
    personality type is the first of ``personality_results``)."""
    photo_count, best, listed = db.exec(
        select(
            func.count(Photo.id),
            func.max(Photo.score),
            func.count(Photo.id).filter(Photo.public_listing.is_(True)),
        ).where(Photo.user_id == user_id)
    ).one()
    videos = db.exec(
        select(func.count()).select_from(VideoGeneration).where(VideoGeneration.user_id == user_id)
    ).one()
    return Overview(
        photo_count=photo_count,
        best_score=best,
        listed_count=listed,
        video_count=videos,
        free_edits_left=editing.edits_remaining(db, editing.allowance_key(user_id, None)),
        premium=is_subscriber(db, user_id),
        score_range=score_range(db, user_id),
    )


@dataclass(frozen=True)
class SavedResult:
    """One saved personality result, as the Personality tab lists it."""

    id: uuid.UUID
    personality_type: str
    score: int
    detailed: bool
    analysis: str
    created_at: datetime


def personality_results(
    db: Session, user_id: uuid.UUID, limit: int = RECENT_RESULTS
) -> list[SavedResult]:
    """The member's latest personality results, newest first: basic results and the
    detailed analyses they have paid for (an unpaid one is not theirs to read yet)."""
    rows = db.exec(
        select(PersonalityResult)
        .where(
            PersonalityResult.user_id == user_id,
            or_(PersonalityResult.quiz_type == BASIC, PersonalityResult.paid),
        )
        .order_by(PersonalityResult.created_at.desc())
        .limit(limit)
    ).all()
    return [
        SavedResult(
            id=row.id,
            personality_type=row.personality_type,
            score=row.score,
            detailed=row.quiz_type == DETAILED,
            analysis=row.analysis,
            created_at=row.created_at,
        )
        for row in rows
    ]


def dashboard_figures(db: Session, user_id: uuid.UUID) -> tuple[Overview, list[SavedResult]]:
    """What the Overview and Personality tabs show, read in one unit of work."""
    return overview(db, user_id), personality_results(db, user_id)
