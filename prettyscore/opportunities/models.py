"""Opportunity applications (modelling and brand work); one per member."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import created_at_field, id_field, json_field


class OpportunityClaim(SQLModel, table=True):
    """An application; the unique user_id turns a second one into 'already submitted'."""

    __tablename__ = "opportunity_claims"

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = Field(foreign_key="users.id", unique=True, ondelete="CASCADE")
    full_name: str = Field(max_length=100)
    email: str = Field(max_length=255)
    phone: str = Field(max_length=16)
    instagram: str | None = Field(default=None, max_length=31)
    location: str = Field(max_length=200)
    bio: str | None = Field(default=None, max_length=1000)
    interests: list = json_field(list)
    created_at: datetime = created_at_field()
