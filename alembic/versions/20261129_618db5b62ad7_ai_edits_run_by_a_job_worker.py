"""AI edits run by a job worker

With the job queue on Redis an AI edit is a row that a job worker fills with the edited
photo (or the refusal); the web process that asked takes it and deletes the row.

Revision ID: 618db5b62ad7
Revises: e5a1c2d3f401
Create Date: 2026-11-29 05:26:27.957521
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import prettyscore.core.model_types

revision: str = "618db5b62ad7"
down_revision: str | None = "e5a1c2d3f401"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "edit_jobs",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("image_key", sqlmodel.sql.sqltypes.AutoString(length=512), nullable=False),
        sa.Column("prompt", sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
        sa.Column("engine_name", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=True),
        sa.Column("result_jpeg", sa.LargeBinary(), nullable=True),
        sa.Column("error_kind", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True),
        sa.Column("error_message", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=True),
        sa.Column("error_code", sqlmodel.sql.sqltypes.AutoString(length=60), nullable=True),
        sa.Column("error_status", sa.Integer(), nullable=True),
        sa.Column("retry_after", sa.Integer(), nullable=True),
        sa.Column(
            "created_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "finished_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("edit_jobs")
