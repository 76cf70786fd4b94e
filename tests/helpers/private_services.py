"""Private Redis and PostgreSQL servers that a test may kill and restart.

The machine's shared PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) serve other
people: a fault test never touches them. It starts its own servers on free loopback
ports, in a temporary folder, and restarts those:

    with private_redis() as redis, private_postgres() as postgres:
        ...  # point the app at redis.url and postgres.database_url("prettyscore")
        redis.restart()  # SIGKILL, then the same port again (nothing kept: --save "")
        postgres.restart()  # an immediate stop (a crash: recovery at start), then start

``kill()`` / ``start()`` split a restart when a test wants to act during the outage.
PostgreSQL refuses to run as root, so as root its programs run as the ``postgres`` OS
user (in a folder that user owns). ``missing_redis()`` / ``missing_postgres()`` say why a
server cannot be started here (a binary or that user is missing), for ``pytest.skip``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import redis
from psycopg import sql

REDIS_SERVER = os.environ.get("PRIVATE_REDIS_SERVER") or shutil.which("redis-server") or ""
POSTGRES_USER = "postgres"
START_TIMEOUT_SECONDS = 30.0


class ServiceError(RuntimeError):
    """A private server did not start or stop; the message ends with its log."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _tail(path: Path, lines: int = 20) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    return "(no log)"


def _wait_until(check, timeout: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise ServiceError(f"{what} did not answer within {timeout:.0f} s:\n{_tail(log)}")
        time.sleep(0.05)


# --- Redis --------------------------------------------------------------------------


def missing_redis() -> str | None:
    """Why a private Redis cannot run here, or None."""
    if not REDIS_SERVER or not os.access(REDIS_SERVER, os.X_OK):
        return "redis-server not found (PATH or PRIVATE_REDIS_SERVER)"
    return None


@dataclass
class PrivateRedis:
    """One redis-server on a loopback port, with no persistence (a restart loses all)."""

    folder: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def log_path(self) -> Path:
        return self.folder / "redis.log"

    def answers(self) -> bool:
        client = redis.Redis(
            host="127.0.0.1", port=self.port, socket_connect_timeout=0.5, socket_timeout=0.5
        )
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def start(self) -> None:
        """Start (again) on the same port; returns once it answers PING."""
        command = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--daemonize", "no"]
        command += ["--dir", str(self.folder)]
        with self.log_path.open("a") as log:
            self.process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        _wait_until(self.answers, START_TIMEOUT_SECONDS, "Redis", self.log_path)

    def kill(self) -> None:
        """SIGKILL: gone at once, every connection reset, every key lost."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def restart(self) -> None:
        self.kill()
        self.start()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


@contextlib.contextmanager
def private_redis() -> Iterator[PrivateRedis]:
    """A started private Redis, stopped and its folder removed afterwards."""
    reason = missing_redis()
    if reason:
        raise ServiceError(reason)
    folder = Path(tempfile.mkdtemp(prefix="ps-private-redis-"))
    server = PrivateRedis(folder)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


# --- PostgreSQL -----------------------------------------------------------------------


def postgres_bindir() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres (PATH first, then Debian's layout)."""
    candidates = []
    if initdb := shutil.which("initdb"):
        candidates.append(Path(os.path.realpath(initdb)).parent)
    candidates += [Path(path) for path in sorted(glob.glob("/usr/lib/postgresql/*/bin"))[::-1]]
    for folder in candidates:
        if all(os.access(folder / name, os.X_OK) for name in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


def _run_as() -> str | None:
    """The OS user to run PostgreSQL as: ``postgres`` when we are root, else ourselves."""
    return POSTGRES_USER if os.geteuid() == 0 else None


def missing_postgres() -> str | None:
    """Why a private PostgreSQL cannot run here, or None."""
    if postgres_bindir() is None:
        return "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found"
    if (user := _run_as()) is not None:
        try:
            pwd.getpwnam(user)
        except KeyError:
            return f"running as root and there is no {user!r} OS user to run PostgreSQL as"
    return None


@dataclass
class PrivatePostgres:
    """One PostgreSQL cluster in its own folder, on a loopback port, trust auth."""

    folder: Path
    bindir: Path
    port: int = field(default_factory=free_port)

    @property
    def data_dir(self) -> Path:
        return self.folder / "data"

    @property
    def log_path(self) -> Path:
        return self.folder / "postgres.log"

    def database_url(self, name: str = "postgres") -> str:
        """The SQLAlchemy URL of database ``name`` (see ``create_database``)."""
        return f"postgresql+psycopg://{POSTGRES_USER}@127.0.0.1:{self.port}/{name}"

    def _libpq(self, name: str = "postgres") -> str:
        return f"postgresql://{POSTGRES_USER}@127.0.0.1:{self.port}/{name}"

    def _run(self, *arguments: str, timeout: float = 120) -> None:
        user = _run_as()
        result = subprocess.run(
            [str(self.bindir / arguments[0]), *arguments[1:]],
            user=user,
            group=user and pwd.getpwnam(user).pw_gid,
            extra_groups=[] if user else None,
            cwd=self.folder,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "LANG": "C"},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if result.returncode != 0:
            raise ServiceError(
                f"{' '.join(arguments)} failed ({result.returncode}):\n"
                f"{result.stdout}\n{result.stderr}\n{_tail(self.log_path)}"
            )

    def initdb(self) -> None:
        self._run(
            "initdb", "-D", str(self.data_dir), "-U", POSTGRES_USER, "-A", "trust",
            "-E", "UTF8", "--locale=C", "--no-sync",
        )  # fmt: skip

    def answers(self) -> bool:
        try:
            with psycopg.connect(self._libpq(), connect_timeout=1) as connection:
                connection.execute("SELECT 1")
            return True
        except psycopg.Error:
            return False

    def start(self) -> None:
        """Start (again) on the same port and data folder; returns once it answers."""
        # fsync off: an immediate stop crashes PostgreSQL, not the machine, so the OS
        # still holds every write; the test only pays for what it tests.
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} "
            "-c fsync=off -c full_page_writes=off -c max_connections=200"
        )
        self._run("pg_ctl", "start", "-D", str(self.data_dir), "-l", str(self.log_path),
                  "-o", options, "-w", "-t", str(int(START_TIMEOUT_SECONDS)))  # fmt: skip
        _wait_until(self.answers, START_TIMEOUT_SECONDS, "PostgreSQL", self.log_path)

    def kill(self, mode: str = "immediate") -> None:
        """Stop the server: ``immediate`` is a crash (every process quits at once, and
        the next start replays the log); ``fast`` ends sessions and shuts down cleanly."""
        if (self.data_dir / "postmaster.pid").exists():
            self._run("pg_ctl", "stop", "-D", str(self.data_dir), "-m", mode, "-w")

    def restart(self, mode: str = "immediate") -> None:
        self.kill(mode)
        self.start()

    def stop(self) -> None:
        self.kill("fast")

    def create_database(self, name: str) -> str:
        """Create database ``name``; returns its SQLAlchemy URL."""
        with psycopg.connect(self._libpq(), autocommit=True, connect_timeout=5) as connection:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.database_url(name)


@contextlib.contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    """A started private PostgreSQL cluster, stopped and its folder removed afterwards."""
    reason = missing_postgres()
    if reason:
        raise ServiceError(reason)
    folder = Path(tempfile.mkdtemp(prefix="ps-private-postgres-"))
    if (user := _run_as()) is not None:
        entry = pwd.getpwnam(user)
        os.chown(folder, entry.pw_uid, entry.pw_gid)
    server = PrivatePostgres(folder, postgres_bindir())
    try:
        server.initdb()
        server.start()
        yield server
    finally:
        with contextlib.suppress(ServiceError, subprocess.TimeoutExpired):
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)
