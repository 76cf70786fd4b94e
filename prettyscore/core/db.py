"""Database engine and sessions.

Services receive a ``Session`` from :func:`session_scope`; pages and the API never build
SQL themselves. SQLite gets foreign keys and WAL so that it behaves like PostgreSQL for
our constraints and tolerates the app and a test reading at the same time.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, create_engine

from prettyscore.core.settings import get_settings
from prettyscore.core.workers import database_work


def _enable_sqlite_rules(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def _begin_before_first_savepoint(connection, _name) -> None:
    """Open the SQLite transaction before a savepoint that would otherwise start it.

    pysqlite sends BEGIN only before a write, never before SAVEPOINT, so a savepoint that
    is a unit of work's first statement becomes its outermost transaction, and releasing
    it commits: the unit is no longer all-or-nothing (a crash before the end keeps the
    first half). With BEGIN sent first, the savepoint nests as it does on PostgreSQL.
    """
    dbapi_connection = connection.connection.dbapi_connection
    if not dbapi_connection.in_transaction:
        dbapi_connection.execute("BEGIN")


def make_engine(url: str) -> Engine:
    """An engine for ``url`` with the connection rules we rely on."""
    if url.startswith("sqlite"):
        if url.startswith("sqlite:///"):
            from pathlib import Path

            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10})
        event.listen(engine, "connect", _enable_sqlite_rules)
        event.listen(engine, "savepoint", _begin_before_first_savepoint)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


@functools.cache
def get_engine() -> Engine:
    """The process-wide engine for the configured database.

    Every area's tables are loaded first: rows reference other areas' tables (a profile
    names its referring partner), and SQLAlchemy must know them all to write one row.
    """
    from prettyscore.core import all_models  # noqa: F401  (registers every table)

    return make_engine(get_settings().database_url)


#: What slow work takes instead of a session: it opens a unit of work (``session_scope``,
#: or a test's) only around its database steps, not around its image or provider work.
DbFactory = Callable[[], AbstractContextManager[Session]]


@contextlib.contextmanager
def session_scope(engine: Engine | None = None) -> Iterator[Session]:
    """One unit of work: committed when the block ends, rolled back if it raises."""
    with Session(engine or get_engine(), expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


async def run_in_session(fn, /, *args, **kwargs):
    """Run ``fn(db, *args, **kwargs)`` in one unit of work on a worker thread.

    Event handlers and API routes are async; database work and password hashing block,
    so they go to a thread and the event loop keeps serving every other user.
    """

    def work():
        with session_scope() as db:
            return fn(db, *args, **kwargs)

    return await database_work(work)
