"""Rate limits shared by every worker: how often an address or an account may try something.

Counts live in Redis when ``REDIS_URL`` is set, so several backend processes behind a load
balancer count together; otherwise in this process's memory (one worker, a developer
machine, the tests). A limit is written as the ``limits`` library reads it, e.g.
``"10 per 15 minutes"``, and counted over a moving window: the oldest attempt leaves the
window exactly its length after it was made, so there is no burst at a window boundary.

What is counted (an email, a client address) is hashed before it becomes a key: the store
holds no email addresses.
"""

from __future__ import annotations

import functools
import hashlib
import math
import time

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage, RedisStorage, Storage
from limits.strategies import MovingWindowRateLimiter

from prettyscore.core.errors import DomainError
from prettyscore.core.settings import get_settings

REDIS_KEY_PREFIX = "prettyscore-rate-limits"
TOO_MANY_REQUESTS = "Request rate limit reached"


class RateLimited(DomainError):
    """Too many attempts; ``headers`` tell the client when to try again."""

    status = 429
    code = "over_request_rate_limit"

    def __init__(self, message: str, *, retry_after: int, code: str | None = None):
        super().__init__(message, code=code)
        self.retry_after = retry_after
        self.headers = {"Retry-After": str(retry_after)}


@functools.lru_cache(maxsize=64)
def _rule(limit: str) -> RateLimitItem:
    return parse(limit)


def _identifiers(purpose: str, keys: tuple[str, ...]) -> tuple[str, ...]:
    hashed = (hashlib.sha256(key.encode("utf-8")).hexdigest()[:32] for key in keys)
    return (purpose, *hashed)


class RateLimiter:
    """Counts attempts per (purpose, key) against a limit like ``"5 per minute"``."""

    def __init__(self, storage: Storage):
        self.storage = storage
        self._strategy = MovingWindowRateLimiter(storage)

    def allows(self, limit: str, purpose: str, *keys: str) -> bool:
        """Whether one more attempt would stay within the limit (counts nothing)."""
        return self._strategy.test(_rule(limit), *_identifiers(purpose, keys))

    def hit(self, limit: str, purpose: str, *keys: str) -> bool:
        """Count one attempt; False (and nothing counted) when the limit is already used up."""
        return self._strategy.hit(_rule(limit), *_identifiers(purpose, keys))

    def remaining(self, limit: str, purpose: str, *keys: str) -> int:
        """Attempts left in the current window."""
        stats = self._strategy.get_window_stats(_rule(limit), *_identifiers(purpose, keys))
        return max(0, stats.remaining)

    def retry_after(self, limit: str, purpose: str, *keys: str) -> int:
        """Whole seconds until the oldest counted attempt leaves the window (at least 1)."""
        stats = self._strategy.get_window_stats(_rule(limit), *_identifiers(purpose, keys))
        return max(1, math.ceil(stats.reset_time - time.time()))

    def clear(self, limit: str, purpose: str, *keys: str) -> None:
        """Forget the attempts counted for this key."""
        self._strategy.clear(_rule(limit), *_identifiers(purpose, keys))

    def enforce(
        self,
        limit: str,
        purpose: str,
        *keys: str,
        count: bool = True,
        code: str | None = None,
        message: str = TOO_MANY_REQUESTS,
    ) -> None:
        """Raise ``RateLimited`` when the limit is used up; otherwise count this attempt
        (unless ``count`` is False: the caller counts only failures, later)."""
        allowed = self.hit(limit, purpose, *keys) if count else self.allows(limit, purpose, *keys)
        if not allowed:
            seconds = self.retry_after(limit, purpose, *keys)
            raise RateLimited(message.format(seconds=seconds), retry_after=seconds, code=code)

    def reset(self) -> None:
        """Forget every count (tests start from zero)."""
        self.storage.reset()


def limiter_for(redis_url: str | None, *, key_prefix: str = REDIS_KEY_PREFIX) -> RateLimiter:
    """A limiter on Redis at ``redis_url``, or in this process's memory when it is None."""
    if redis_url:
        return RateLimiter(RedisStorage(redis_url, key_prefix=key_prefix))
    return RateLimiter(MemoryStorage())


@functools.cache
def _shared_limiter(redis_url: str | None) -> RateLimiter:
    return limiter_for(redis_url)


def get_rate_limiter() -> RateLimiter:
    """This process's limiter, on the storage the settings choose."""
    return _shared_limiter(get_settings().redis_url)


def reset_rate_limits() -> None:
    """Forget every count of this process's limiter."""
    get_rate_limiter().reset()
