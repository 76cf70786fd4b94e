"""members' temporary files have an owner row and a lifetime (media_files)

A photo chosen on the video page, a photo sent inline to the REST API, an edit the REST
API returns and a clip being rendered are noted here before they are written: whose
they are (deleted with the account) and until when they are kept.

Revision ID: 1c5ec3442e0a
Revises: 8b1f4c2e9d77
Create Date: 2026-11-25 16:45:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import prettyscore.core.model_types

revision: str = "1c5ec3442e0a"
down_revision: str | None = "8b1f4c2e9d77"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "media_files",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column(
            "created_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "expires_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key"),
    )
    with op.batch_alter_table("media_files", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_media_files_user_id"), ["user_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_media_files_expires_at"), ["expires_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("media_files", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_media_files_expires_at"))
        batch_op.drop_index(batch_op.f("ix_media_files_user_id"))
    op.drop_table("media_files")
