"""Feature gate tables: each member's free trials of a gated feature, and its uses."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import created_at_field, foreign_key, id_field


class FeatureTrial(SQLModel, table=True):
    """A member's free trials of one gated feature: how many they have activated, and how
    many of those they have since used (an activated trial not yet used grants access)."""

    __tablename__ = "feature_trials"
    __table_args__ = (
        UniqueConstraint("user_id", "feature_name", name="uq_feature_trials_user_feature"),
    )

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id")
    feature_name: str = Field(max_length=64)
    trials_used: int = Field(default=0)
    trials_consumed: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    updated_at: datetime = created_at_field()


class FeatureUsage(SQLModel, table=True):
    """One use of a gated feature (record-feature-usage)."""

    __tablename__ = "feature_usage"

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = foreign_key("users.id")
    feature_name: str = Field(max_length=64, index=True)
    used_at: datetime = created_at_field()
