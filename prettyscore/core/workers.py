"""Where blocking work runs: one thread pool for the database, one for photos.

Event handlers are async and must not block, so database work and image work go to
threads. asyncio's default pool has only ``cpu_count + 4`` threads, shared by both: under
load a few photo analyses (a few hundred milliseconds each) held every thread, and a
page's quick database look (a few milliseconds) waited behind them. So each kind gets
its own pool:

* database work: as many threads as PostgreSQL connections the engine may open (SQLite's
  default pool has fewer, and a thread beyond them waits for one), so a query never waits
  behind a photo;
* photo work (decoding, analysis, encoding, cards, edits, video frames): at most
  ``PHOTO_WORK_THREADS`` at once (default: half the cores, at least one). Photos then
  queue among themselves and the other cores stay free to answer every other click.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from prettyscore.core.settings import get_settings

#: Threads for database work: the PostgreSQL engine's pool_size + max_overflow (core.db).
DATABASE_THREADS = 30


@functools.cache
def _database_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(DATABASE_THREADS, thread_name_prefix="database")


@functools.cache
def _photo_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(
        get_settings().photo_work_threads, thread_name_prefix="photo", initializer=_one_core_each
    )


def _one_core_each() -> None:
    """OpenCV runs each job on its calling thread: left to itself it spreads every face
    detection over all cores, and PHOTO_WORK_THREADS would no longer bound what photos
    take. (Scores do not depend on it: tests/analysis checks 1 thread against several.)"""
    import cv2

    cv2.setNumThreads(1)


async def _run(pool: ThreadPoolExecutor, fn, /, *args, **kwargs) -> Any:
    """``fn(*args, **kwargs)`` on ``pool``, with the caller's context (as to_thread)."""
    context = contextvars.copy_context()
    call = functools.partial(context.run, fn, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(pool, call)


async def database_work(fn, /, *args, **kwargs) -> Any:
    """Run blocking database work (or password hashing) off the event loop."""
    return await _run(_database_pool(), fn, *args, **kwargs)


async def photo_work(fn, /, *args, **kwargs) -> Any:
    """Run blocking image work off the event loop, a few at a time."""
    return await _run(_photo_pool(), fn, *args, **kwargs)


#: Threads waiting on AI edits that job workers run (JOB_QUEUE=redis): each only polls a row.
EDIT_WAIT_THREADS = 32


@functools.cache
def _edit_wait_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(EDIT_WAIT_THREADS, thread_name_prefix="edit-wait")


async def edit_work(fn, /, *args, **kwargs) -> Any:
    """Run an AI edit off the event loop. Where this process runs the edit engine, on the
    photo pool; with the job queue on Redis a job worker runs it and the thread here
    mostly waits, so it waits on a pool of its own rather than hold a photo thread."""
    pool = _edit_wait_pool() if get_settings().job_queue == "redis" else _photo_pool()
    return await _run(pool, fn, *args, **kwargs)
