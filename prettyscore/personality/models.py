"""Saved personality test results."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import Index
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
    # A detailed analysis names what it analyses (``answers_key``): one per member and
    # set of answers, so two tabs buying it buy the same row (the index below).
    answers_key: str | None = Field(default=None, max_length=64)
    created_at: datetime = created_at_field()


def answers_key(answers: Mapping[str, str]) -> str:
    """The same answers give the same key, whatever order their JSON came in."""
    canonical = json.dumps(dict(answers), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


# One detailed analysis per member and set of answers (basic rows keep no key: NULLs never
# collide), so a second purchase finds the first's row even when both start at once.
Index(
    "uq_personality_results_one_detailed",
    PersonalityResult.user_id,
    PersonalityResult.answers_key,
    unique=True,
)
