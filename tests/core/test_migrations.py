"""The migrations build the schema the models describe, and unbuild it, on both databases."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from prettyscore.core.all_models import metadata
from prettyscore.core.db import make_engine
from tests.fixtures.database import alembic_config


def test_upgrade_matches_the_models_and_downgrade_removes_everything(empty_database_url):
    config = alembic_config(empty_database_url)
    command.upgrade(config, "head")
    engine = make_engine(empty_database_url)
    try:
        with engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection), metadata)
            tables = set(sa.inspect(connection).get_table_names())
        assert differences == []
        assert set(metadata.tables) <= tables

        command.downgrade(config, "base")
        with engine.connect() as connection:
            remaining = set(sa.inspect(connection).get_table_names()) - {"alembic_version"}
        assert remaining == set()

        command.upgrade(config, "head")  # and back up again, cleanly
    finally:
        engine.dispose()
