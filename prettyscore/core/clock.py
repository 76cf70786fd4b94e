"""The current time, read in one place so that tests can move it.

Every timestamp the services write and every expiry they decide (access and refresh
tokens, sessions, one-time codes, recovery and sign-in links, authenticator codes and
challenges, subscriptions) is measured against :func:`now`, through
``model_types.utcnow``. In the app it is the system clock, timezone-aware UTC; a test
replaces the source (``tests/fixtures/clock.py``) instead of sleeping until something
expires.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime


def system_now() -> datetime:
    """The system clock, timezone-aware UTC."""
    return datetime.now(UTC)


#: Where :func:`now` reads the time; only tests set another one.
source: Callable[[], datetime] = system_now


def now() -> datetime:
    """The current time, timezone-aware UTC."""
    return source()
