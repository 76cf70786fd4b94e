"""one detailed personality analysis per member and set of answers

A detailed analysis is named by its answers (``answers_key``, a hash of them), unique per
member, so that every purchase of "the detailed analysis of these answers" finds the same
row and the same open checkout. Where a member already had several detailed rows for the
same answers, the paid one (else the oldest) takes the key; the others keep none.

Revision ID: e5a1c2d3f401
Revises: b7d3e91a6c52
Create Date: 2026-11-28 15:00:00
"""

import hashlib
import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "e5a1c2d3f401"
down_revision: str | None = "b7d3e91a6c52"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

results = sa.table(
    "personality_results",
    sa.column("id", sa.Uuid()),
    sa.column("user_id", sa.Uuid()),
    sa.column("quiz_type", sa.String()),
    sa.column("answers", sa.JSON()),
    sa.column("paid", sa.Boolean()),
    sa.column("answers_key", sa.String()),
    sa.column("created_at", sa.DateTime(timezone=True)),
)


def _key(answers) -> str:
    """As ``personality.models.answers_key`` computes it (copied: a migration is frozen)."""
    if isinstance(answers, str):
        answers = json.loads(answers)
    canonical = json.dumps(dict(answers), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def upgrade() -> None:
    with op.batch_alter_table("personality_results", schema=None) as batch_op:
        batch_op.add_column(sa.Column("answers_key", sa.String(length=64), nullable=True))
    _key_existing_detailed_rows()
    op.create_index(
        "uq_personality_results_one_detailed",
        "personality_results",
        ["user_id", "answers_key"],
        unique=True,
    )


def _key_existing_detailed_rows() -> None:
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(results.c.id, results.c.user_id, results.c.answers)
        .where(results.c.quiz_type == "detailed")
        .order_by(results.c.paid.desc(), results.c.created_at, results.c.id)
    ).all()
    seen: set[tuple] = set()
    for row in rows:
        key = (row.user_id, _key(row.answers))
        if key not in seen:
            connection.execute(
                results.update().where(results.c.id == row.id).values(answers_key=key[1])
            )
        seen.add(key)


def downgrade() -> None:
    op.drop_index("uq_personality_results_one_detailed", table_name="personality_results")
    with op.batch_alter_table("personality_results", schema=None) as batch_op:
        batch_op.drop_column("answers_key")
