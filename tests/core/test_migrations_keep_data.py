"""Upgrading a database that holds data keeps every row and value, on both databases.

A member's database at the first revision is filled with one row per table (plain SQL,
the columns of that revision, foreign keys pointing at each other's rows), then migrated
one revision at a time to head. Every row must come out with the same values, and the
NOT NULL columns added on the way must get their defaults.
"""

from __future__ import annotations

import datetime as dt
import uuid

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from prettyscore.core.db import make_engine
from tests.fixtures.database import alembic_config

#: On SQLite, batch migrations copy a table and DROP the old one; with foreign keys ON
#: (our connection rule, also in alembic's connection) that DROP cascades: altering
#: auth_sessions deletes every refresh token (every member is signed out).
NOW = dt.datetime(2026, 11, 21, 9, 30, 15, tzinfo=dt.UTC)


def revisions_in_order(config) -> list[str]:
    script = ScriptDirectory.from_config(config)
    return [revision.revision for revision in reversed(list(script.walk_revisions()))]


def realistic_value(table: sa.Table, column: sa.Column, rows: dict, serial: int):
    """A plausible value for ``column``: the referenced row's key for a foreign key,
    else one fitting its type and name (emails look like emails, JSON like a breakdown)."""
    for foreign_key in column.foreign_keys:
        target = foreign_key.column
        if target.table is table:  # a chain within the table (a parent token): its start
            return None
        return rows[target.table.name][target.name]
    kind, name = column.type, column.name
    if isinstance(kind, sa.Uuid):
        return uuid.UUID(int=serial * 7919 + len(table.name))
    if isinstance(kind, sa.Boolean):
        return serial % 2 == 0
    if isinstance(kind, sa.DateTime):
        return NOW + dt.timedelta(minutes=serial)
    if isinstance(kind, sa.Date):
        return NOW.date()
    if isinstance(kind, sa.Integer):
        return 100 + serial
    if isinstance(kind, sa.Float | sa.Numeric):
        return 7.5
    if isinstance(kind, sa.JSON):
        return {"symmetry": 8.2, "skin": 7.9, "note": "é ✓", "list": [1, 2]}
    if isinstance(kind, sa.LargeBinary):
        return b"\x00\x01binary"
    length = getattr(kind, "length", None) or 64
    if "email" in name:
        text = f"{table.name[:8]}{serial}@example.com"
    else:
        text = f"{table.name}-{name}-{serial}-é"
    return text[:length]


def fill_every_table(engine) -> dict[str, dict]:
    """One row in each table (parents first); the values inserted, by table."""
    metadata = sa.MetaData()
    metadata.reflect(engine)
    rows: dict[str, dict] = {}
    with engine.begin() as connection:
        for serial, table in enumerate(metadata.sorted_tables, start=1):
            if table.name == "alembic_version":
                continue
            row = {
                column.name: realistic_value(table, column, rows, serial)
                for column in table.columns
                if not (column.autoincrement is True and column.primary_key)
            }
            connection.execute(table.insert().values(row))
            rows[table.name] = row
    return rows


def same(stored, inserted) -> bool:
    if isinstance(inserted, dt.datetime) and isinstance(stored, dt.datetime):
        if stored.tzinfo is None:
            stored = stored.replace(tzinfo=dt.UTC)
        return stored == inserted
    return stored == inserted


def test_every_row_survives_each_migration_to_head(empty_database_url):
    config = alembic_config(empty_database_url)
    first, *later = revisions_in_order(config)
    command.upgrade(config, first)
    engine = make_engine(empty_database_url)
    try:
        inserted = fill_every_table(engine)
        for revision in later:
            command.upgrade(config, revision)
        metadata = sa.MetaData()
        metadata.reflect(engine)
        lost: list[str] = []
        with engine.connect() as connection:
            for name, row in inserted.items():
                table = metadata.tables[name]
                stored = connection.execute(sa.select(table)).mappings().all()
                if not stored:
                    lost.append(name)
                    continue
                assert len(stored) == 1, name
                changed = {
                    column: (stored[0][column], value)
                    for column, value in row.items()
                    if not same(stored[0][column], value)
                }
                assert changed == {}, f"{name}: {changed}"
                new_not_null = [
                    column.name
                    for column in table.columns
                    if column.name not in row and not column.nullable
                ]
                assert all(stored[0][column] is not None for column in new_not_null), name
            amr = connection.execute(sa.text("SELECT amr FROM auth_sessions")).scalar_one()
        assert amr in ([], "[]")
        assert lost == []
        assert "auth_sessions" in inserted and "users" in inserted and "photos" in inserted
    finally:
        engine.dispose()


def test_downgrade_to_base_then_upgrade_and_no_drift_at_head(empty_database_url):
    config = alembic_config(empty_database_url)
    command.upgrade(config, "head")
    command.downgrade(config, "base")
    command.upgrade(config, "head")
    command.check(config)  # raises if the models and the migrated schema differ
