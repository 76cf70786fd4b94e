"""Verification requests for the verified badge; one per member."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import created_at_field, id_field, timestamp_field


class VerificationStatus(StrEnum):
    """Where a verification request stands (``VerificationRequest.status``)."""

    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


class VerificationRequest(SQLModel, table=True):
    """A member's request: pending, then approved (the profile gets verified) or rejected."""

    __tablename__ = "verification_requests"

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = Field(foreign_key="users.id", unique=True, ondelete="CASCADE")
    full_name: str = Field(max_length=100)
    reason: str = Field(max_length=1000)
    instagram_handle: str | None = Field(default=None, max_length=64)
    other_social: str | None = Field(default=None, max_length=255)
    status: str = Field(default=VerificationStatus.PENDING.value, max_length=12)
    admin_notes: str | None = Field(default=None, max_length=1000)
    created_at: datetime = created_at_field()
    reviewed_at: datetime | None = timestamp_field()
