"""feature trials remember how many activated trials were already used

Revision ID: 1bc6a177e2dc
Revises: c67fe8dd9400
Create Date: 2026-11-21 14:11:19.972409
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "1bc6a177e2dc"
down_revision: str | None = "c67fe8dd9400"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("feature_trials", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("trials_consumed", sa.Integer(), server_default="0", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("feature_trials", schema=None) as batch_op:
        batch_op.drop_column("trials_consumed")
