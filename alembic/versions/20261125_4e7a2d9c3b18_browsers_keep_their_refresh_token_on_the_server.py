"""browsers keep their refresh token on the server (auth_browser_sessions)

A browser's refresh token was a cookie that scripts could read. The server now keeps
which refresh token is a browser's current one, found by the SHA-256 of the browser's
HttpOnly key; the browser holds only its short-lived access token.

Revision ID: 4e7a2d9c3b18
Revises: 1c5ec3442e0a
Create Date: 2026-11-25 17:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import prettyscore.core.model_types

revision: str = "4e7a2d9c3b18"
down_revision: str | None = "1c5ec3442e0a"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "auth_browser_sessions",
        sa.Column("key_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("refresh_token_id", sa.Uuid(), nullable=False),
        sa.Column(
            "updated_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(["refresh_token_id"], ["refresh_tokens.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("key_hash"),
    )
    with op.batch_alter_table("auth_browser_sessions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_auth_browser_sessions_refresh_token_id"),
            ["refresh_token_id"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("auth_browser_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_auth_browser_sessions_refresh_token_id"))
    op.drop_table("auth_browser_sessions")
