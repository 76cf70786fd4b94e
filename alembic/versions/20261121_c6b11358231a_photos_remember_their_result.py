"""photos remember the result they were saved from

Revision ID: c6b11358231a
Revises: a99da269f9a8
Create Date: 2026-11-21 12:11:26.342624
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "c6b11358231a"
down_revision: str | None = "a99da269f9a8"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("photos", schema=None) as batch_op:
        batch_op.add_column(sa.Column("result_id", sa.String(length=64), nullable=True))
        batch_op.create_index("uq_photos_result_id", ["result_id"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("photos", schema=None) as batch_op:
        batch_op.drop_index("uq_photos_result_id")
        batch_op.drop_column("result_id")
