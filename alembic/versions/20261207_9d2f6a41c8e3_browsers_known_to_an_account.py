"""browsers known to an account (auth_known_browsers)

A correct authenticator code from a browser that has signed in to the account before
passes even when strangers with the password have spent the factor's budget of wrong
codes for the day. Browsers signed in now are known from the start.

Revision ID: 9d2f6a41c8e3
Revises: 7c41e9b2d5a6
Create Date: 2026-12-07 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import prettyscore.core.model_types

revision: str = "9d2f6a41c8e3"
down_revision: str | None = "7c41e9b2d5a6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "auth_known_browsers",
        sa.Column("key_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column(
            "created_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("key_hash", "user_id"),
    )
    with op.batch_alter_table("auth_known_browsers", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_auth_known_browsers_user_id"), ["user_id"], unique=False
        )
    op.execute(
        "INSERT INTO auth_known_browsers (key_hash, user_id, created_at) "
        "SELECT b.key_hash, s.user_id, b.updated_at FROM auth_browser_sessions AS b "
        "JOIN refresh_tokens AS t ON t.id = b.refresh_token_id "
        "JOIN auth_sessions AS s ON s.id = t.session_id"
    )


def downgrade() -> None:
    with op.batch_alter_table("auth_known_browsers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_auth_known_browsers_user_id"))
    op.drop_table("auth_known_browsers")
