"""What every test may use: which local services answer, and a database per backend.

The default run uses SQLite and Reflex's in-memory state manager. PostgreSQL
(127.0.0.1:5432, database ``test``, trust auth) and Redis (127.0.0.1:6379) are used where
they answer; where they do not, their runs are skipped with the reason shown (``-ra``).
``TEST_POSTGRES_URL`` and ``TEST_REDIS_URL`` point the suite at other servers.

PostgreSQL isolation: databases are created for this test session, named
``ps_test_<pid>_<random>``, and dropped at its end, so parallel runs (pytest-xdist, two
checkouts) and the leftovers of an interrupted run never collide. Leftovers whose
process is gone are dropped at the start of the next session.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
import redis
from psycopg import sql

# Shared fixtures: migrated databases (db, app_database, ...), rows to start from
# (make_member, ...), the app's clock, and the running app in a browser (page, ...).
pytest_plugins = [
    "tests.fixtures.database",
    "tests.fixtures.clock",
    "tests.fixtures.factories",
    "tests.fixtures.media",
    "tests.fixtures.object_storage",
    "tests.fixtures.browser",
    "tests.fixtures.ai_provider",
    "tests.fixtures.job_queue",
]

PROJECT_ROOT = Path(__file__).resolve().parents[1]

POSTGRES_HOST = "127.0.0.1"
POSTGRES_PORT = 5432
POSTGRES_ADMIN_DATABASE = "test"
POSTGRES_USERS = ("postgres", "root")
REDIS_DEFAULT_URL = "redis://127.0.0.1:6379/0"

POSTGRES_SKIP_REASON = "PostgreSQL not reachable at " + (
    os.environ.get("TEST_POSTGRES_URL", "").strip() or f"{POSTGRES_HOST}:{POSTGRES_PORT}"
)
REDIS_SKIP_REASON = "Redis not reachable at " + (
    os.environ.get("TEST_REDIS_URL", "").strip() or "127.0.0.1:6379"
)

_DATABASE_NAME = re.compile(r"^ps_test_(\d+)_[0-9a-f]+$")


def _libpq(url: str) -> str:
    """The libpq form of a SQLAlchemy URL (psycopg does not know ``+psycopg``)."""
    return re.sub(r"^postgres(ql)?(\+\w+)?://", "postgresql://", url)


def _sqlalchemy(url: str) -> str:
    return re.sub(r"^postgres(ql)?(\+\w+)?://", "postgresql+psycopg://", url)


def _with_database(url: str, name: str) -> str:
    return url.rsplit("/", 1)[0] + "/" + name


@functools.cache
def postgres_url() -> str | None:
    """The admin database's URL (SQLAlchemy form) if PostgreSQL answers within 1 s, else None.

    ``postgresql+psycopg://postgres@127.0.0.1:5432/test``, trying the users ``postgres``
    then ``root``; ``TEST_POSTGRES_URL`` replaces both.
    """
    override = os.environ.get("TEST_POSTGRES_URL", "").strip()
    if override:
        candidates = [_sqlalchemy(override)]
    else:
        candidates = [
            f"postgresql+psycopg://{user}@{POSTGRES_HOST}:{POSTGRES_PORT}/{POSTGRES_ADMIN_DATABASE}"
            for user in POSTGRES_USERS
        ]
    for url in candidates:
        try:
            with psycopg.connect(_libpq(url), connect_timeout=1) as connection:
                connection.execute("SELECT 1")
            return url
        except psycopg.Error:
            continue
    return None


@functools.cache
def redis_url() -> str | None:
    """``redis://127.0.0.1:6379/0`` (or ``TEST_REDIS_URL``) if Redis answers a ping, else None."""
    url = os.environ.get("TEST_REDIS_URL", "").strip() or REDIS_DEFAULT_URL
    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
    try:
        client.ping()
        return url
    except redis.RedisError:
        return None
    finally:
        client.close()


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class PostgresDatabases:
    """Creates and drops this session's PostgreSQL databases."""

    def __init__(self, admin_url: str):
        self.admin_url = admin_url
        self._prefix = f"ps_test_{os.getpid()}_{secrets.token_hex(3)}"
        self._counter = itertools.count(1)
        self._created: list[str] = []

    def _execute(self, statement: sql.Composable) -> None:
        with psycopg.connect(
            _libpq(self.admin_url), autocommit=True, connect_timeout=5
        ) as connection:
            connection.execute(statement)

    def create(self) -> str:
        """A new, empty database; returns its SQLAlchemy URL."""
        name = f"{self._prefix}{next(self._counter):x}"
        self._execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        self._created.append(name)
        return _with_database(self.admin_url, name)

    def drop(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        self._execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        if name in self._created:
            self._created.remove(name)

    def drop_all(self) -> None:
        for name in list(self._created):
            self.drop(_with_database(self.admin_url, name))

    def drop_orphans(self) -> None:
        """Drop the databases of earlier sessions whose process has ended."""
        with psycopg.connect(
            _libpq(self.admin_url), autocommit=True, connect_timeout=5
        ) as connection:
            names = [
                row[0]
                for row in connection.execute(
                    "SELECT datname FROM pg_database WHERE datname LIKE 'ps\\_test\\_%'"
                )
            ]
        for name in names:
            match = _DATABASE_NAME.match(name)
            if match and not _process_alive(int(match.group(1))):
                self.drop(_with_database(self.admin_url, name))


@pytest.fixture(scope="session")
def postgres_databases() -> Iterator[PostgresDatabases]:
    """This session's PostgreSQL database factory; skips when PostgreSQL does not answer."""
    admin_url = postgres_url()
    if admin_url is None:
        pytest.skip(POSTGRES_SKIP_REASON)
    databases = PostgresDatabases(admin_url)
    databases.drop_orphans()
    yield databases
    databases.drop_all()


@pytest.fixture(scope="session")
def postgres_database(postgres_databases: PostgresDatabases) -> str:
    """The URL of a PostgreSQL database created for this session (empty at first)."""
    return postgres_databases.create()


@dataclass(frozen=True)
class Backend:
    """Where a test's data lives: ``name`` is "sqlite" or "postgres"."""

    name: str
    database_url: str
    redis_url: str | None


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request, tmp_path) -> Iterator[Backend]:
    """A fresh, empty database (no tables) for this test, once per backend.

    sqlite: a new file in the test's tmp dir, no Redis. postgres: a new database of this
    session (dropped after the test) and Redis when it answers, else ``redis_url`` None.
    """
    if request.param == "sqlite":
        yield Backend("sqlite", f"sqlite:///{tmp_path / 'prettyscore.db'}", None)
        return
    databases: PostgresDatabases = request.getfixturevalue("postgres_databases")
    url = databases.create()
    try:
        yield Backend("postgres", url, redis_url())
    finally:
        databases.drop(url)


def pytest_collection_modifyitems(config, items):
    """Mark the runs that need PostgreSQL, so ``-m "not postgres"`` leaves them out."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None:
            continue
        if any(str(value).startswith("postgres") for value in callspec.params.values()):
            item.add_marker(pytest.mark.postgres)


class _XdistGroupsOnPytest92:
    """Keeps ``--dist loadgroup``'s groups on one worker with pytest 9.2.

    pytest-xdist 3.8 names a test's ``xdist_group`` by appending ``@group`` to its node
    id, through a field pytest 9.2 no longer reads (pytest-xdist#1386): every group was
    spread over the workers as if unmarked, so each worker paid for its slow set-up (the
    score's fit on the rated faces). This appends it where pytest 9.2 keeps the node id,
    after pytest-xdist's own hook, on the workers only; with an xdist that does it
    itself, it does nothing.
    """

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        if not getattr(config.option, "loadgroup", False):
            return
        try:
            from _pytest.nodeid import NodeId
        except ImportError:  # a pytest before 9.2: pytest-xdist's own suffix is read
            return
        for item in items:
            names = {
                str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                for mark in item.iter_markers("xdist_group")
            }
            nodeid = item.nodeid
            if not names or nodeid.rfind("@") > nodeid.rfind("]"):
                continue
            if isinstance(getattr(item, "_id", None), NodeId):
                item._id = NodeId.parse(f"{nodeid}@{'_'.join(sorted(names))}")


def pytest_configure(config):
    config.pluginmanager.register(_XdistGroupsOnPytest92(), "xdist-groups-on-pytest-9.2")
