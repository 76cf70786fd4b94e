"""payments: one checkout record per paid thing; subscription events applied in order

Revision ID: 9f13ad581618
Revises: 1bc6a177e2dc
Create Date: 2026-11-21 14:11:58.251720
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import prettyscore.core.model_types

revision: str = "9f13ad581618"
down_revision: str | None = "1bc6a177e2dc"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "checkout_sessions",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("amount_cents", sa.Integer(), nullable=False),
        sa.Column("currency", sqlmodel.sql.sqltypes.AutoString(length=3), nullable=False),
        sa.Column("description", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("reference_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column(
            "provider_session_id", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False
        ),
        sa.Column("payment_intent_id", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=True),
        sa.Column("invoice_id", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("test_mode", sa.Boolean(), nullable=False),
        sa.Column("success_path", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("cancel_path", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column(
            "created_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "paid_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "updated_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("provider_session_id"),
    )
    with op.batch_alter_table("checkout_sessions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_checkout_sessions_invoice_id"), ["invoice_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_checkout_sessions_payment_intent_id"),
            ["payment_intent_id"],
            unique=False,
        )
        batch_op.create_index(
            batch_op.f("ix_checkout_sessions_reference_id"), ["reference_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_checkout_sessions_user_id"), ["user_id"], unique=False)

    with op.batch_alter_table("subscriptions", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "last_event_at",
                prettyscore.core.model_types.UTCDateTime(timezone=True),
                nullable=True,
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("subscriptions", schema=None) as batch_op:
        batch_op.drop_column("last_event_at")

    with op.batch_alter_table("checkout_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_checkout_sessions_user_id"))
        batch_op.drop_index(batch_op.f("ix_checkout_sessions_reference_id"))
        batch_op.drop_index(batch_op.f("ix_checkout_sessions_payment_intent_id"))
        batch_op.drop_index(batch_op.f("ix_checkout_sessions_invoice_id"))

    op.drop_table("checkout_sessions")
