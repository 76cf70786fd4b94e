"""free edit allowances, counted on the server

Revision ID: c19f0bb5db42
Revises: c6b11358231a
Create Date: 2026-11-21 12:50:47.808086
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import prettyscore.core.model_types

revision: str = "c19f0bb5db42"
down_revision: str | None = "c6b11358231a"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "edit_allowances",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("owner_key", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("edits_used", sa.Integer(), nullable=False),
        sa.Column(
            "updated_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("owner_key"),
    )


def downgrade() -> None:
    op.drop_table("edit_allowances")
