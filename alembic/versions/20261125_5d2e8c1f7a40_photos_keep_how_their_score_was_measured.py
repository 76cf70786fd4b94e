"""photos keep how their score was measured (the explanation picture and notes)

Revision ID: 5d2e8c1f7a40
Revises: 397e5d1e5eef
Create Date: 2026-11-25 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5d2e8c1f7a40"
down_revision: str | None = "397e5d1e5eef"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("photos", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("explanation_image_url", sa.String(length=512), nullable=True)
        )
        batch_op.add_column(sa.Column("explanation", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("photos", schema=None) as batch_op:
        batch_op.drop_column("explanation")
        batch_op.drop_column("explanation_image_url")
