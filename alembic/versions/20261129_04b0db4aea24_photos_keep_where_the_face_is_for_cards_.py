"""photos keep where the face is, for cards cut to another shape

The analysis's face centre, as fractions of the photo's width and height: a dashboard
card cut to a landscape box centres on it instead of losing the top of the head.
Photos saved before keep None (the card then favours the photo's upper part).

Revision ID: 04b0db4aea24
Revises: 618db5b62ad7
Create Date: 2026-11-29 09:14:11.916697
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "04b0db4aea24"
down_revision: str | None = "618db5b62ad7"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("photos", schema=None) as batch_op:
        batch_op.add_column(sa.Column("focus_x", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("focus_y", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("photos", schema=None) as batch_op:
        batch_op.drop_column("focus_y")
        batch_op.drop_column("focus_x")
