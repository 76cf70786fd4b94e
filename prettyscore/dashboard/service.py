"""What the dashboard's Overview and Personality tabs show, read in one place.

Plain reads of the member's own rows: counts and their best score, their video
generations, their personality results and whether they have Premium (the one
``is_subscriber`` check every limit asks).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, or_
from sqlmodel import Session, select

from prettyscore.billing.service import is_subscriber
from prettyscore.editing import service as editing
from prettyscore.personality.models import PersonalityResult
from prettyscore.personality.quiz import BASIC, DETAILED
from prettyscore.photos.models import Photo
from prettyscore.video.models import VideoGeneration

RECENT_RESULTS = 10


@dataclass(frozen=True)
class Overview:
    """The member's figures at a glance."""

    photo_count: int
    best_score: float | None
    listed_count: int
    video_count: int
    free_edits_left: int
    premium: bool


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
