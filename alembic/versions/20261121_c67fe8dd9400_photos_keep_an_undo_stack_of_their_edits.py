"""photos keep an undo stack of their edits

Revision ID: c67fe8dd9400
Revises: c19f0bb5db42
Create Date: 2026-11-21 13:47:54.586267
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import prettyscore.core.model_types

revision: str = "c67fe8dd9400"
down_revision: str | None = "c19f0bb5db42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "photo_edit_steps",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("photo_id", sa.Uuid(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column(
            "previous_image_url", sqlmodel.sql.sqltypes.AutoString(length=512), nullable=True
        ),
        sa.Column("prompt", sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
        sa.Column(
            "created_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(["photo_id"], ["photos.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("photo_id", "position"),
    )
    with op.batch_alter_table("photos", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "last_edit_prompt", sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=True
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("photos", schema=None) as batch_op:
        batch_op.drop_column("last_edit_prompt")

    op.drop_table("photo_edit_steps")
