"""Auth API: signing keys, one-time tokens, PKCE flows, MFA challenges

Revision ID: 397e5d1e5eef
Revises: 9f13ad581618
Create Date: 2026-11-21 22:48:45.898561
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import prettyscore.core.model_types

revision: str = "397e5d1e5eef"
down_revision: str | None = "9f13ad581618"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "auth_signing_keys",
        sa.Column("kid", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("algorithm", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("private_key_pem", sa.Text(), nullable=False),
        sa.Column("public_jwk", sa.JSON(), nullable=False),
        sa.Column(
            "created_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "retired_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.PrimaryKeyConstraint("kid"),
    )
    op.create_table(
        "auth_flow_states",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("auth_code_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("code_challenge", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column(
            "code_challenge_method", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False
        ),
        sa.Column(
            "authentication_method", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False
        ),
        sa.Column(
            "expires_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "used_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "created_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("auth_code_hash"),
    )
    with op.batch_alter_table("auth_flow_states", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_auth_flow_states_user_id"), ["user_id"], unique=False)

    op.create_table(
        "auth_one_time_tokens",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("token_type", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("relates_to", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=True),
        sa.Column(
            "expires_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "used_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "created_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("auth_one_time_tokens", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_auth_one_time_tokens_token_hash"), ["token_hash"], unique=False
        )
        batch_op.create_index(
            "ix_auth_one_time_tokens_user_type", ["user_id", "token_type"], unique=False
        )

    op.create_table(
        "mfa_challenges",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("factor_id", sa.Uuid(), nullable=False),
        sa.Column("ip_address", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column(
            "created_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "verified_at", prettyscore.core.model_types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.ForeignKeyConstraint(["factor_id"], ["mfa_factors.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("mfa_challenges", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_mfa_challenges_factor_id"), ["factor_id"], unique=False
        )

    with op.batch_alter_table("auth_sessions", schema=None) as batch_op:
        # Sessions opened before this revision were password sign-ins.
        batch_op.add_column(
            sa.Column("amr", sa.JSON(), nullable=False, server_default=sa.text("'[]'"))
        )
        batch_op.add_column(sa.Column("factor_id", sa.Uuid(), nullable=True))
        batch_op.create_foreign_key(
            "fk_auth_sessions_factor_id", "mfa_factors", ["factor_id"], ["id"], ondelete="SET NULL"
        )

    with op.batch_alter_table("mfa_factors", schema=None) as batch_op:
        batch_op.add_column(sa.Column("last_used_step", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("mfa_factors", schema=None) as batch_op:
        batch_op.drop_column("last_used_step")

    with op.batch_alter_table("auth_sessions", schema=None) as batch_op:
        batch_op.drop_constraint("fk_auth_sessions_factor_id", type_="foreignkey")
        batch_op.drop_column("factor_id")
        batch_op.drop_column("amr")

    with op.batch_alter_table("mfa_challenges", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mfa_challenges_factor_id"))

    op.drop_table("mfa_challenges")
    with op.batch_alter_table("auth_one_time_tokens", schema=None) as batch_op:
        batch_op.drop_index("ix_auth_one_time_tokens_user_type")
        batch_op.drop_index(batch_op.f("ix_auth_one_time_tokens_token_hash"))

    op.drop_table("auth_one_time_tokens")
    with op.batch_alter_table("auth_flow_states", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_auth_flow_states_user_id"))

    op.drop_table("auth_flow_states")
    op.drop_table("auth_signing_keys")
