"""The job worker's entry point: ``make worker``, that is
``dramatiq prettyscore.job_worker:declare_jobs``.

Dramatiq imports this module in each worker process and calls ``declare_jobs``, which
declares every job of the app (``core.jobs``) on the Redis queue of ``REDIS_URL`` and
sets the broker Dramatiq consumes. The worker reads the same settings as the web
processes (database, media store, engines).
"""

from __future__ import annotations

from dramatiq.brokers.redis import RedisBroker

from prettyscore.core import jobs
from prettyscore.editing import jobs as editing_jobs  # noqa: F401  (declares its jobs)
from prettyscore.video import jobs as video_jobs  # noqa: F401


def declare_jobs() -> RedisBroker:
    """Every job on the queue's broker (Dramatiq's global one from now on)."""
    return jobs.declare_all()
