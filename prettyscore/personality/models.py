"""Saved personality test results."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import created_at_field, foreign_key, id_field, json_field


class PersonalityResult(SQLModel, table=True):
    """A basic or detailed analysis of a member's 20 answers; detailed ones are paid for."""

    __tablename__ = "personality_results"

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id")
    quiz_type: str = Field(default="basic", max_length=8)  # basic | detailed
    answers: dict = json_field()
    score: int
    personality_type: str = Field(max_length=64)
    analysis: str
    paid: bool = Field(default=False)
    created_at: datetime = created_at_field()
