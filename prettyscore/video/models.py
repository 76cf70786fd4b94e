"""Video generations: one row per requested image-to-video job."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import created_at_field, foreign_key, id_field, timestamp_field


class VideoStatus(StrEnum):
    """Where a generation stands (``VideoGeneration.status``)."""

    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"


class VideoGeneration(SQLModel, table=True):
    """A job: 'processing' on insert, later 'completed' (with a video) or 'failed'.

    Non-subscribers may own at most two rows, so the count of rows is the allowance.
    """

    __tablename__ = "video_generations"

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id")
    status: str = Field(default=VideoStatus.PROCESSING.value, max_length=12)
    source_image_url: str | None = Field(default=None, max_length=512)
    prompt: str | None = Field(default=None, max_length=1000)
    duration_seconds: int = Field(default=5)
    video_url: str | None = Field(default=None, max_length=512)
    error: str | None = Field(default=None, max_length=500)
    created_at: datetime = created_at_field()
    finished_at: datetime | None = timestamp_field()
