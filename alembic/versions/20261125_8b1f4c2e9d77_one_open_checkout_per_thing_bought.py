"""one open checkout per member and thing bought; duplicate payments are marked

Premium checkouts name their thing by their kind (reference_id was empty). Where a
member already had several open checkouts for one thing, the newest stays open and the
older ones are cancelled, as ``start_checkout`` now does.

Revision ID: 8b1f4c2e9d77
Revises: 5d2e8c1f7a40
Create Date: 2026-11-25 15:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "8b1f4c2e9d77"
down_revision: str | None = "5d2e8c1f7a40"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

checkouts = sa.table(
    "checkout_sessions",
    sa.column("id", sa.Uuid()),
    sa.column("user_id", sa.Uuid()),
    sa.column("kind", sa.String()),
    sa.column("reference_id", sa.String()),
    sa.column("status", sa.String()),
    sa.column("created_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    with op.batch_alter_table("checkout_sessions", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("duplicate", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    op.execute(
        checkouts.update()
        .where(checkouts.c.reference_id.is_(None))
        .values(reference_id=checkouts.c.kind)
    )
    _cancel_older_open_checkouts()
    op.create_index(
        "uq_checkout_sessions_one_open",
        "checkout_sessions",
        ["user_id", "kind", "reference_id"],
        unique=True,
        sqlite_where=sa.text("status = 'open'"),
        postgresql_where=sa.text("status = 'open'"),
    )


def _cancel_older_open_checkouts() -> None:
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(checkouts.c.id, checkouts.c.user_id, checkouts.c.kind, checkouts.c.reference_id)
        .where(checkouts.c.status == "open")
        .order_by(checkouts.c.created_at.desc())
    ).all()
    seen: set[tuple] = set()
    for row in rows:
        key = (row.user_id, row.kind, row.reference_id)
        if key in seen:
            connection.execute(
                checkouts.update().where(checkouts.c.id == row.id).values(status="cancelled")
            )
        seen.add(key)


def downgrade() -> None:
    op.drop_index("uq_checkout_sessions_one_open", table_name="checkout_sessions")
    with op.batch_alter_table("checkout_sessions", schema=None) as batch_op:
        batch_op.drop_column("duplicate")
