"""Alembic environment: migrates the database named by the app's settings.

A URL given on the config (``config.set_main_option("sqlalchemy.url", ...)``, as the
tests do) wins over the settings, so one process can migrate several databases.
"""

from logging.config import fileConfig

from alembic import context

from prettyscore.core import all_models
from prettyscore.core.db import make_engine
from prettyscore.core.settings import load_settings

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = all_models.metadata


def _url() -> str:
    return config.get_main_option("sqlalchemy.url") or load_settings().database_url


def run_migrations_offline() -> None:
    url = _url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=url.startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    url = _url()
    sqlite = url.startswith("sqlite")
    engine = make_engine(url)
    with engine.connect() as connection:
        if sqlite:
            _pause_sqlite_foreign_keys(connection)
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=sqlite,
            compare_type=True,
        )
        with context.begin_transaction():
            context.run_migrations()
            if sqlite:
                _check_sqlite_foreign_keys(connection)
    engine.dispose()


def _pause_sqlite_foreign_keys(connection) -> None:
    """SQLite changes a table by copying it and dropping the old one ("batch" mode); with
    foreign keys on, that drop would cascade and delete every row referring to the table
    (refresh tokens to sessions, ...). They are off while migrating, and checked after."""
    connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
    connection.commit()


def _check_sqlite_foreign_keys(connection) -> None:
    """Refuse (roll back) a migration that left a row pointing at nothing."""
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        raise RuntimeError(f"The migration left rows with broken references: {broken[:5]}")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
