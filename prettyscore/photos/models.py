"""The photos table: saved results of every kind (face, feet, hands, pet).

A photo is stored only when a member saves it. The leaderboard reads the listed ones in
score order, so the indexes below follow its query and the two My Photos sort orders.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import JSON, Index, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import (
    UTCDateTime,
    created_at_field,
    foreign_key,
    id_field,
    json_field,
)


class Photo(SQLModel, table=True):
    """A saved, scored photo. Image URLs point at our own media route, never a public path."""

    __tablename__ = "photos"
    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id", index=False)
    original_image_url: str = Field(max_length=512)
    edited_image_url: str | None = Field(default=None, max_length=512)
    score: float
    rating_label: str = Field(max_length=64)
    breakdown: dict = json_field()
    photo_type: str = Field(default="face", max_length=8)  # face | feet | hands | pet
    public_listing: bool = Field(default=False)
    featured: bool = Field(default=False)
    is_verified: bool = Field(default=False)
    display_name: str | None = Field(default=None, max_length=100)
    bio: str | None = Field(default=None, max_length=500)
    # The analysed result this row was saved from: saving the same result twice (a double
    # click, two tabs) finds this row instead of making a second one.
    result_id: str | None = Field(default=None, max_length=64)
    # "How we got your score": the measured picture and each measure in words (a list of
    # {part, part_name, text, in_range}), kept as they were shown when it was scored.
    explanation_image_url: str | None = Field(default=None, max_length=512)
    explanation: list | None = Field(default=None, sa_type=JSON, nullable=True)
    # The prompt of the member's latest edit of this photo: the editor's Redo applies it again.
    last_edit_prompt: str | None = Field(default=None, max_length=1000)
    # The centre of the face the analysis found, as fractions of the photo's width and
    # height: a card cut to another shape keeps the face (None: no face was measured).
    focus_x: float | None = Field(default=None)
    focus_y: float | None = Field(default=None)
    created_at: datetime = created_at_field()


class PhotoEditStep(SQLModel, table=True):
    """One entry of a saved photo's undo stack (the dashboard editor).

    Each edit pushes the image the photo showed before it; Undo pops the newest entry
    and shows that image again. ``previous_image_url`` None means "no edit": the
    original is shown.
    """

    __tablename__ = "photo_edit_steps"
    __table_args__ = (UniqueConstraint("photo_id", "position"),)

    id: uuid.UUID = id_field()
    photo_id: uuid.UUID = foreign_key("photos.id", index=False)
    position: int
    previous_image_url: str | None = Field(default=None, max_length=512)
    prompt: str = Field(max_length=1000)
    created_at: datetime = created_at_field()


class MediaFile(SQLModel, table=True):
    """A temporary file in a member's folder, one that no other row owns: a photo chosen on
    the video page, a photo sent to the REST API inline or an edit it made, a clip being
    rendered. It belongs to the member (it goes with their account) and is kept until
    ``expires_at``; housekeeping then deletes it, unless a row has come to own it (a saved
    photo, a video generation), which then keeps it (``photos.media_files``).
    """

    __tablename__ = "media_files"

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id")
    key: str = Field(max_length=128, unique=True)  # the file's media key, u/<user id>/...
    kind: str = Field(max_length=16)  # what made it (media_files.VIDEO_PICK, ...)
    created_at: datetime = created_at_field()
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False, index=True)


# The leaderboard reads listed photos by score (high first), then oldest first; a partial
# index holds only listed photos in exactly that order. My Photos sorts by date or score.
Index(
    "ix_photos_leaderboard",
    Photo.score.desc(),
    Photo.created_at,
    sqlite_where=text("public_listing"),
    postgresql_where=text("public_listing"),
)
Index("ix_photos_user_created", Photo.user_id, Photo.created_at.desc())
Index("ix_photos_user_score", Photo.user_id, Photo.score.desc())
Index("uq_photos_result_id", Photo.result_id, unique=True)
