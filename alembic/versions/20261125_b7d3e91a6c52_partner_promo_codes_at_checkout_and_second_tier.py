"""partner promo codes at checkout; second-tier partner commission

A checkout remembers the partner promo code the member gave (empty for none), and a
partner conversion its level: 1 for the partner's own referral (every existing row),
2 for a sale of a partner they referred.

Revision ID: b7d3e91a6c52
Revises: 4e7a2d9c3b18
Create Date: 2026-11-25 21:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "b7d3e91a6c52"
down_revision: str | None = "4e7a2d9c3b18"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("checkout_sessions", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "promo_code",
                sqlmodel.sql.sqltypes.AutoString(length=32),
                server_default="",
                nullable=False,
            )
        )
    with op.batch_alter_table("partner_conversions", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("level", sa.Integer(), server_default=sa.text("1"), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("partner_conversions", schema=None) as batch_op:
        batch_op.drop_column("level")
    with op.batch_alter_table("checkout_sessions", schema=None) as batch_op:
        batch_op.drop_column("promo_code")
