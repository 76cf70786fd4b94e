"""Telling "a service did not answer" apart from every other error.

PostgreSQL restarting, Redis restarting, a dropped connection: the work failed through
nobody's fault and will work again in a moment, so the person is told to try again (see
``prettyscore/ui/backend_errors.py``) and long-lived work waits and retries instead of
giving up (the chat's live loop).
"""

from __future__ import annotations

import psycopg
import redis.exceptions
import sqlalchemy.exc

#: Errors that mean "a service did not answer", wherever in the chain of causes they are.
OUTAGE_ERRORS: tuple[type[BaseException], ...] = (
    redis.exceptions.ConnectionError,  # includes BusyLoadingError (Redis still loading)
    redis.exceptions.TimeoutError,
    sqlalchemy.exc.OperationalError,  # connection refused, server closed the connection
    sqlalchemy.exc.InterfaceError,
    sqlalchemy.exc.DisconnectionError,
    sqlalchemy.exc.TimeoutError,  # no pooled connection came free in time
    psycopg.OperationalError,
    psycopg.InterfaceError,
    ConnectionError,  # the socket itself: refused, reset, aborted
)


def is_service_outage(error: BaseException) -> bool:
    """Whether ``error``, or an error that caused it, says a service did not answer."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, OUTAGE_ERRORS):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
