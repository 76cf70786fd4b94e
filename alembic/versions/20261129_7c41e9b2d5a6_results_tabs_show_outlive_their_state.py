"""The result a tab shows outlives the tab's state

Each score shown on /results is also kept in ``shown_results`` (an hour, like the
photo it points to), so that a tab whose state was lost can still save it.

Revision ID: 7c41e9b2d5a6
Revises: 04b0db4aea24
Create Date: 2026-11-29 14:50:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import prettyscore.core.model_types

revision: str = "7c41e9b2d5a6"
down_revision: str | None = "04b0db4aea24"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "shown_results",
        sa.Column("tab_digest", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("browser_digests", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column(
            "updated_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.PrimaryKeyConstraint("tab_digest"),
    )
    op.create_index(
        op.f("ix_shown_results_updated_at"), "shown_results", ["updated_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_shown_results_updated_at"), table_name="shown_results")
    op.drop_table("shown_results")
