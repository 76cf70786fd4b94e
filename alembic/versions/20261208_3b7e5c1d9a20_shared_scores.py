"""shared scores (shared_scores)

Each scored face gets a page of its own, /s/{token}, that its Copy Link and share
options carry: the score, its label and tier, never the photo.

Revision ID: 3b7e5c1d9a20
Revises: 9d2f6a41c8e3
Create Date: 2026-12-08 00:45:52.037288
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import prettyscore.core.model_types

revision: str = "3b7e5c1d9a20"
down_revision: str | None = "9d2f6a41c8e3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "shared_scores",
        sa.Column("token", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("label", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("tier_key", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("emoji", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("color", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column(
            "created_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.PrimaryKeyConstraint("token"),
    )


def downgrade() -> None:
    op.drop_table("shared_scores")
