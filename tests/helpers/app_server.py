"""Start the real app (production build, one port) for the browser tests, and stop it.

The test server never disturbs a developer's `make run` in the same checkout: its
frontend is built in its own folder (``REFLEX_WEB_WORKDIR``, kept under ``.tools/e2e-web/``
so the frontend packages are installed once and later sessions only rebuild), and it keeps
its Reflex state, uploads and data in the session's tmp dir.

One frontend build serves every server of a test run, in all its processes
(``FrontendBuild``): it is built once, for ``http://localhost:P``, and each server listens
on port P of a loopback address of its own (127.0.0.2, 127.0.0.3, ...), which the
browser opens; the pages then talk to the server that served them
(``tests/helpers/prebuilt_frontend.py`` says why).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock

from prettyscore.core import settings

PROJECT_ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
WEB_CACHE = PROJECT_ROOT / ".tools" / "e2e-web"
#: The module that serves a prebuilt frontend with the app (``python -m``).
PREBUILT_SERVER = "tests.helpers.prebuilt_frontend"
#: How long a press goes unanswered before the test server's pages say so (product: 8 s).
NO_ANSWER_SECONDS = 3

#: Every variable of prettyscore/core/settings.py: a developer's values must not leak in.
APP_SETTINGS = settings.VARIABLES

#: The rate limits, lifted for the browser tests (see ``server_environment``).
RATE_LIMITS = tuple(name for name in APP_SETTINGS if name.startswith("RATE_LIMIT_"))
UNLIMITED_RATE = "1000000 per minute"

#: The app's webhook signing secret, so tests can sign events as Stripe would. No
#: STRIPE_SECRET_KEY is set: the app uses its built-in test checkout.
STRIPE_WEBHOOK_SECRET = "whsec_e2e_test_0123456789abcdef"

#: How long the frontend build may take (and another test process wait for it).
BUILD_TIMEOUT_SECONDS = 900

#: The settings compiled into the pages (besides PUBLIC_URL, whose host the pages replace
#: with their own): every server of a run has the build's.
COMPILED_SETTINGS = ("NO_ANSWER_SECONDS",)

#: What scripts/js-env may set: the JavaScript runtime Reflex builds the frontend with.
JS_ENV_VARS = ("PATH", "REFLEX_USE_NPM", "REFLEX_USE_SYSTEM_BUN", "NPM_CONFIG_REGISTRY")


class AppServerError(RuntimeError):
    """The app did not start; the message ends with the tail of its log."""


@dataclass
class AppServer:
    """A running PrettyScore: open ``base_url`` (``http://host:port``) in the browser."""

    name: str
    base_url: str
    host: str
    port: int
    data_dir: Path
    database_url: str
    redis_url: str | None
    log_path: Path
    env: dict[str, str] = field(repr=False)
    process: subprocess.Popen | None = field(default=None, repr=False)
    # With Redis, the job worker that renders its videos (as `make run` starts one).
    worker: subprocess.Popen | None = field(default=None, repr=False)
    startup_seconds: float = 0.0

    def log_tail(self, lines: int = 50) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def url(self, path: str = "/") -> str:
        return self.base_url + "/" + path.lstrip("/")

    @property
    def address(self) -> tuple[str, int]:
        """(host, port) the server listens on."""
        return self.host, self.port


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _can_listen(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


#: The loopback addresses the servers take, one after the other (127.0.0.1 is left to
#: everything else on the machine). Each test process has a block of its own (xdist's
#: worker gwN the block N), so two processes never pick the same address at once.
_LOOPBACK = ipaddress.IPv4Network("127.0.0.0/8")
_HOSTS_PER_PROCESS = 65_536


def _worker_index() -> int:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(worker[2:]) if worker[2:].isdigit() else 0


_first_host = _worker_index() * _HOSTS_PER_PROCESS + 2
_next_host = iter(range(_first_host, _first_host + _HOSTS_PER_PROCESS - 2))
_hosts_lock = threading.Lock()


def free_loopback_host(port: int) -> str:
    """A loopback address, not yet used by this process, on which ``port`` is free."""
    with _hosts_lock:
        for index in _next_host:
            host = str(_LOOPBACK[index])
            if _can_listen(host, port):
                return host
    raise AppServerError(f"No loopback address has port {port} free")


def web_slot() -> str:
    """The build folder's name: ``E2E_WEB_SLOT`` (for test runs of several checkouts at
    once, or a benchmark that keeps a build of its own), else "main". Every process of
    one test run shares it (``FrontendBuild``)."""
    return os.environ.get("E2E_WEB_SLOT") or "main"


_PROCESS_RUN_ID = f"process-{os.getpid()}-{secrets.token_hex(4)}"


def this_run_id() -> str:
    """What names this test run to its processes: ``E2E_RUN_ID`` (the same one on
    several runs of unchanged pages reuses their build: a developer's loop), else
    pytest-xdist's id of the run, else this process's own."""
    return (
        os.environ.get("E2E_RUN_ID") or os.environ.get("PYTEST_XDIST_TESTRUNUID") or _PROCESS_RUN_ID
    )


class FrontendBuild:
    """The frontend build every server of this test run serves.

    Built on first use, once per run (``this_run_id``), in ``web_dir``
    (``.tools/e2e-web/<slot>/.web``) with the test servers' settings
    (``server_environment``) and ``PUBLIC_URL=http://localhost:P``, where the port P is
    free on every address when chosen; each server then listens on port P of a loopback
    address of its own. The test processes of one run (pytest-xdist's workers) share it:
    the first builds under a file lock and records the run and the port beside the
    folder, the others wait for the lock and read the record. The settings compiled
    into the pages (``COMPILED_SETTINGS``) are the build's: a server cannot set them
    otherwise.
    """

    def __init__(self, web_dir: Path):
        self.web_dir = web_dir
        self.port = 0
        self.seconds = 0.0
        self._lock = threading.Lock()
        self._record = web_dir.parent / "build-of-run.json"

    def ready(self, log_dir: Path) -> FrontendBuild:
        """Build if this run has not built yet (the log goes to
        ``log_dir/frontend-build.log``)."""
        with self._lock:
            if self.port:
                return self
            self.web_dir.parent.mkdir(parents=True, exist_ok=True)
            with FileLock(self.web_dir.parent / "build.lock", timeout=BUILD_TIMEOUT_SECONDS):
                self.port = self._port_built_by_this_run() or self._build(log_dir)
            return self

    def _port_built_by_this_run(self) -> int:
        try:
            record = json.loads(self._record.read_text())
        except (OSError, ValueError):
            return 0
        return int(record["port"]) if record.get("run") == this_run_id() else 0

    def _build(self, log_dir: Path) -> int:
        self._record.unlink(missing_ok=True)
        port = _free_port_everywhere()
        log_path = log_dir / "frontend-build.log"
        build_dir = log_dir / "frontend-build"
        (build_dir / "data").mkdir(parents=True, exist_ok=True)
        env = server_environment(
            host="localhost",
            port=port,
            data_dir=build_dir / "data",
            run_dir=build_dir,
            web_dir=self.web_dir,
            database_url=f"sqlite:///{build_dir / 'data' / 'prettyscore.db'}",
            redis_url=None,
        )
        started = time.monotonic()
        command = [str(VENV_BIN / "reflex"), "export", "--frontend-only", "--no-zip"]
        with log_path.open("a") as log:
            try:
                _run_logged(command, env, log, "The frontend build", timeout=BUILD_TIMEOUT_SECONDS)
            except (AppServerError, subprocess.TimeoutExpired) as error:
                log.flush()
                tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-50:])
                raise AppServerError(
                    f"{error}. Log: {log_path}\n--- last 50 lines ---\n{tail}"
                ) from None
        self.seconds = time.monotonic() - started
        self._record.write_text(json.dumps({"run": this_run_id(), "port": port}))
        print(f"\n[frontend] built once for this run in {self.seconds:.0f} s ({log_path})")
        return port


def _free_port_everywhere() -> int:
    """A port nothing listens on, on any address (bound on 0.0.0.0 to find it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("0.0.0.0", 0))
        return sock.getsockname()[1]


_builds: dict[Path, FrontendBuild] = {}


def frontend_build(web_dir: Path | None = None) -> FrontendBuild:
    """The (not yet built) shared build in ``web_dir``, by default this slot's folder."""
    web_dir = web_dir or WEB_CACHE / web_slot() / ".web"
    return _builds.setdefault(web_dir, FrontendBuild(web_dir))


def js_environment() -> dict[str, str]:
    """The variables scripts/js-env sets (it installs Node 22 into .tools/ when needed)."""
    script = f'eval "$({PROJECT_ROOT / "scripts" / "js-env"})" && env -0'
    result = subprocess.run(
        ["bash", "-c", script],
        cwd=PROJECT_ROOT,
        capture_output=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if result.returncode != 0:
        raise AppServerError(
            "No JavaScript runtime for the frontend build:\n"
            + result.stderr.decode(errors="replace")
        )
    values = dict(item.split("=", 1) for item in result.stdout.decode().split("\0") if "=" in item)
    return {name: values[name] for name in JS_ENV_VARS if name in values}


def _answers(url: str, *, html: bool = False) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            if response.status != 200:
                return False
            if not html:
                return True
            body = response.read(200_000).decode(errors="replace").lower()
            return "<html" in body or "<!doctype html" in body
    except Exception:
        return False


def server_environment(
    *,
    host: str,
    port: int,
    data_dir: Path,
    run_dir: Path,
    web_dir: Path,
    database_url: str,
    redis_url: str | None,
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in APP_SETTINGS}
    env.update(js_environment())
    env.update(
        {
            "PORT": str(port),
            "PUBLIC_URL": f"http://{host}:{port}",
            "DATA_DIR": str(data_dir),
            "DATABASE_URL": database_url,
            "SECRET_KEY": secrets.token_urlsafe(32),
            # The analysis still shows its progress, just for less than the documents' 3 s.
            "ANALYSIS_WAIT_SECONDS": "0.5",
            "BODY_ANALYSIS_WAIT_SECONDS": "0.5",
            # An open dashboard's subscription recheck: its loop is tested, not the 30 s.
            "SUBSCRIPTION_RECHECK_SECONDS": "3",
            # The no-answer notice: its words and "Try again" are tested, not the 8 s.
            "NO_ANSWER_SECONDS": str(NO_ANSWER_SECONDS),
            "STRIPE_WEBHOOK_SECRET": STRIPE_WEBHOOK_SECRET,
            # Every browser test signs members up and in from 127.0.0.1, and on Redis the
            # counts outlive a run: the limits are tested in tests/security and tests/api.
            **dict.fromkeys(RATE_LIMITS, UNLIMITED_RATE),
            "REFLEX_TELEMETRY_ENABLED": "false",
            "REFLEX_CHECK_LATEST_VERSION": "false",
            "REFLEX_WEB_WORKDIR": str(web_dir),
            "REFLEX_STATES_WORKDIR": str(run_dir / "states"),
            "REFLEX_UPLOADED_FILES_DIR": str(run_dir / "uploaded_files"),
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
        # The server's own queue: a worker of another server never takes its jobs.
        env["JOB_NAMESPACE"] = f"prettyscore-e2e-{secrets.token_hex(8)}"
    # Without Redis, Reflex's in-memory state needs a single worker. With Redis, two workers
    # (E2E_WORKERS to change) so that a client's events really may land on either.
    env["GRANIAN_WORKERS"] = os.environ.get("E2E_WORKERS", "2") if redis_url else "1"
    return env


def _run_logged(
    command: list[str], env: dict[str, str], log, what: str, *, timeout: float = 300
) -> None:
    log.write(f"$ {' '.join(command)}\n")
    log.flush()
    result = subprocess.run(
        command,
        cwd=PROJECT_ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        check=False,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise AppServerError(f"{what} failed (exit {result.returncode})")


def stop(server: AppServer) -> None:
    """Stop the app, its job worker and everything they started (their process groups)."""
    for process in (server.process, server.worker):
        stop_process_group(process)


def stop_process_group(process: subprocess.Popen | None) -> None:
    """SIGTERM to the group ``process`` leads, SIGKILL if it is still there after 20 s."""
    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def start_job_worker(env: dict[str, str], log) -> subprocess.Popen:
    """A job worker (``scripts/worker``, what `make worker` runs) with the app's
    environment ``env``, logging to ``log``, in a process group of its own."""
    log.write("$ scripts/worker\n")
    log.flush()
    return subprocess.Popen(
        [str(PROJECT_ROOT / "scripts" / "worker")],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )


@contextlib.contextmanager
def running_app(
    name: str,
    run_dir: Path,
    *,
    database_url: str | None = None,
    redis_url: str | None = None,
    web_dir: Path | None = None,
    timeout: float | None = None,
    extra_env: dict[str, str] | None = None,
    job_worker: bool = True,
    host: str | None = None,
) -> Iterator[AppServer]:
    """Migrate a database, start the app on this process's frontend build, yield, stop.

    The server is the production backend with the prebuilt frontend mounted, what `reflex
    run --env prod --single-port` serves, without its build (``FrontendBuild``; the first
    server of a process builds it). ``database_url`` None means a SQLite file in the data
    dir. With Redis, a job worker runs beside the app (as `make run` starts one) unless
    ``job_worker`` is False. ``extra_env`` overrides settings for this server (e.g.
    ``ANALYSIS_WAIT_SECONDS=0`` for the load benchmark, which measures the work and not
    the documents' minimum wait). ``web_dir`` (default this slot's) is the build folder;
    ``host`` (default a free loopback address) lets a second server take a stopped one's
    place, as a restart does. Raises AppServerError, with the last 50 log lines, when the
    frontend cannot be built or the app is not serving /ping and / within ``timeout``
    seconds (default ``E2E_START_TIMEOUT`` or 300).
    """
    timeout = timeout or float(os.environ.get("E2E_START_TIMEOUT", "300"))
    run_dir.mkdir(parents=True, exist_ok=True)
    data_dir = run_dir / "data"
    data_dir.mkdir(exist_ok=True)
    database_url = database_url or f"sqlite:///{data_dir / 'prettyscore.db'}"
    build = frontend_build(web_dir).ready(run_dir)
    port = build.port
    host = host or free_loopback_host(port)
    env = server_environment(
        host=host,
        port=port,
        data_dir=data_dir,
        run_dir=run_dir,
        web_dir=build.web_dir,
        database_url=database_url,
        redis_url=redis_url,
    )
    extra_env = extra_env or {}
    if changed := [
        name for name in COMPILED_SETTINGS if extra_env.get(name, env[name]) != env[name]
    ]:
        raise AppServerError(f"{name}: {', '.join(changed)} is the frontend build's")
    env.update(extra_env)
    base_url = f"http://{host}:{port}"
    server = AppServer(
        name=name,
        base_url=base_url,
        host=host,
        port=port,
        data_dir=data_dir,
        database_url=database_url,
        redis_url=redis_url,
        log_path=run_dir / "app.log",
        env=env,
    )
    started = time.monotonic()
    with server.log_path.open("a") as log:
        try:
            _run_logged([str(VENV_BIN / "alembic"), "upgrade", "head"], env, log, "Migration")
            if job_worker and redis_url and env.get("JOB_QUEUE", "redis") == "redis":
                server.worker = start_job_worker(env, log)
            command = [sys.executable, "-m", PREBUILT_SERVER, "serve", host, str(port)]
            log.write(f"$ {' '.join(command)}\n")
            log.flush()
            server.process = subprocess.Popen(
                command,
                cwd=PROJECT_ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            deadline = started + timeout
            while True:
                if server.process.poll() is not None:
                    raise AppServerError(f"The app exited with {server.process.returncode}")
                if _answers(base_url + "/ping") and _answers(base_url + "/", html=True):
                    break
                if time.monotonic() > deadline:
                    raise AppServerError(f"The app did not answer within {timeout:.0f} s")
                time.sleep(0.5)
        except (AppServerError, subprocess.TimeoutExpired) as error:
            stop(server)
            log.flush()
            raise AppServerError(
                f"{name}: {error}. Log: {server.log_path}\n--- last 50 lines ---\n"
                + server.log_tail(50)
            ) from None
        except BaseException:
            stop(server)
            raise
        server.startup_seconds = time.monotonic() - started
        log.write(f"--- serving at {server.base_url} after {server.startup_seconds:.1f} s\n")
        log.flush()
        try:
            yield server
        finally:
            stop(server)


def _children(pid: int) -> list[int]:
    """The live (not zombie) child processes of ``pid``, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return sorted(found)


def granian_workers(server: AppServer) -> list[int]:
    """The pids of the app's Granian workers: the children of the server process
    (Granian's main process, as ``reflex run`` is in production), leaving out
    multiprocessing's resource tracker."""
    workers = []
    for pid in _children(server.process.pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"resource_tracker" not in command:
            workers.append(pid)
    return workers
