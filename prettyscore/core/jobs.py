"""Slow work (video renders, AI edits) as jobs, on a queue shared by every machine or
in-process.

``JOB_QUEUE=redis`` (the default when ``REDIS_URL`` is set): a job is a message on a
Dramatiq queue in Redis, and worker processes (``make worker``, ``prettyscore.job_worker``)
run it. A render then outlives the web process that started it, and web workers only
answer clicks. ``JOB_QUEUE=inline`` (the default without Redis): the job runs on a thread
of the process that started it, so ``make run`` stays one process on a fresh machine.

Dramatiq, because it does what we would otherwise write: acknowledgement after the work
(a message of a worker that died is delivered again once the worker's heartbeat is
``JOB_HEARTBEAT_TIMEOUT_SECONDS`` old), retries with exponential back-off, time limits,
and it runs on the Redis the app already uses. Celery does the same with far more
moving parts; RQ forks a process per job (a MediaPipe and OpenCV import each time); arq
and Taskiq want ``async`` jobs, and ours call blocking engines; Procrastinate needs
PostgreSQL, and the default set-up is SQLite.

The queue carries only a job's id: the job's state lives in its area's table, where the
page reads its progress. A job may therefore run twice (a worker killed at the last
moment): each job checks its row first and does nothing for a finished one.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import dramatiq
from dramatiq.brokers.redis import RedisBroker

from prettyscore.core.settings import get_settings

log = logging.getLogger(__name__)

#: Threads running inline jobs in one process (renders are mostly ffmpeg's own process).
INLINE_THREADS = 4
#: How many queue commands in a million also requeue the jobs of dead workers (Dramatiq's
#: default, 1,000, can leave them for many minutes on an idle queue).
MAINTENANCE_CHANCE = 100_000

#: Every job of the app by name, filled as the areas' ``jobs`` modules are imported.
JOBS: dict[str, Job] = {}


@dataclass
class Job:
    """One kind of job: a function of plain arguments (ids, texts) that never needs the
    caller's memory, so any process can run it."""

    fn: Callable[..., None]
    # Longest run before the worker stops it (Dramatiq cannot stop C code or a child
    # process: those need their own timeout, as ffmpeg has).
    time_limit_seconds: float
    # Runs again after an exception escaping fn, waiting longer each time.
    max_retries: int = 3
    min_backoff_seconds: float = 5.0
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = f"{self.fn.__module__}.{self.fn.__qualname__}"

    def send(self, *args: str) -> None:
        """Start the job: on the queue, or on a thread here. Returns at once."""
        if get_settings().job_queue == "redis":
            self.actor().send(*args)
        else:
            _inline_pool().submit(self._run_inline, *args)

    def _run_inline(self, *args: str) -> None:
        try:
            self.fn(*args)
        except Exception:  # a thread has no one to raise to
            log.exception("Job %s%r failed", self.name, args)

    def actor(self) -> dramatiq.Actor:
        """This job on the queue's broker (made once per process)."""
        return _actors(self.name)


def job(*, time_limit_seconds: float, max_retries: int = 3) -> Callable[[Callable], Job]:
    """Declare a job; ``send`` on the result starts it."""

    def declare(fn: Callable[..., None]) -> Job:
        declared = Job(fn, time_limit_seconds=time_limit_seconds, max_retries=max_retries)
        JOBS[declared.name] = declared
        return declared

    return declare


@functools.cache
def _inline_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(INLINE_THREADS, thread_name_prefix="job")


@functools.cache
def broker() -> RedisBroker:
    """The queue's broker in this process, set as Dramatiq's global one."""
    settings = get_settings()
    if not settings.redis_url:
        raise RuntimeError(
            "The job queue lives in Redis: set REDIS_URL (for a job worker, or JOB_QUEUE=redis)."
        )
    queue = RedisBroker(
        url=settings.redis_url,
        namespace=settings.job_namespace,
        heartbeat_timeout=int(settings.job_heartbeat_timeout_seconds * 1000),
        maintenance_chance=MAINTENANCE_CHANCE,
    )
    dramatiq.set_broker(queue)
    return queue


@functools.cache
def _actors(name: str) -> dramatiq.Actor:
    declared = JOBS[name]
    return dramatiq.Actor(
        declared.fn,
        broker=broker(),
        actor_name=name,
        queue_name="default",
        priority=0,
        options={
            "time_limit": int(declared.time_limit_seconds * 1000),
            "max_retries": declared.max_retries,
            "min_backoff": int(declared.min_backoff_seconds * 1000),
        },
    )


def declare_all() -> RedisBroker:
    """Every job on the broker, for a worker process to consume."""
    for name in JOBS:
        _actors(name)
    return broker()
