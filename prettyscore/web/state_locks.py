"""Tabs' state locks in Redis: never left behind by a cancelled event, and a slow wait
says in the log whom it waited for.

Why: with several workers each tab's state lives in Redis, and every event takes the
tab's lock (a ``SET NX PX`` key) before it reads the state. Reflex cancels events: a
page's load chain when the tab navigates or reconnects, every pending event of a socket
that closes. An event cancelled while it takes the lock, after Redis granted it but
before Reflex's ``_lock`` entered the block that releases it (the ``SET`` answered late,
or the waiter's own bookkeeping awaited), never releases it. The lock then stands until
it expires (``redis_lock_expiration``, 10 s), and every later event of that tab waits for
it without a word in any log: "Get My Score!" did nothing for ten seconds, about one
test in a hundred on PostgreSQL + Redis, right after the page had been switched.

How: ``ReleasingStateManagerRedis`` is Reflex's own Redis state manager, with the lock's
acquisition wrapped: when the event is cancelled while taking the lock, a task of its own
deletes the lock if, and only if, it holds this event's lock id (compare and delete, so a
lock another event holds is never touched), and wakes the next waiter. A wait longer than
``SLOW_WAIT_SECONDS`` is logged while it lasts, naming the event that holds the lock and
how long it may still hold it, and again when the lock is taken. ``release_cancelled_locks``
puts it in the app in place of Reflex's; the in-memory manager (one worker) needs nothing:
its locks are asyncio locks, released by ``async with`` on cancellation.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time

import reflex as rx
from reflex.istate.manager.redis import StateManagerRedis

log = logging.getLogger(__name__)

#: A wait for a tab's state longer than this is logged (an event normally holds it for
#: milliseconds; a sign-in's password hash, a few hundred).
SLOW_WAIT_SECONDS = 2.0

#: Deletes KEYS[1] only while it holds ARGV[1]: one atomic step in Redis.
_DELETE_IF_HELD = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
"""


@dataclasses.dataclass
class ReleasingStateManagerRedis(StateManagerRedis):
    """Reflex's Redis state manager whose locks a cancelled event does not leave behind."""

    _releases: set[asyncio.Task] = dataclasses.field(default_factory=set, init=False)

    async def _wait_lock(self, lock_key: bytes, lock_id: bytes) -> None:
        """Take the lock as Reflex does; released again if the event is cancelled meanwhile."""
        acquiring = asyncio.ensure_future(super()._wait_lock(lock_key, lock_id))
        started = time.monotonic()
        try:
            await self._await_reporting_slow_waits(acquiring, lock_key, lock_id)
        except asyncio.CancelledError:
            acquiring.cancel()
            self._release_later(acquiring, lock_key, lock_id)
            raise
        waited = time.monotonic() - started
        if waited > SLOW_WAIT_SECONDS:
            log.warning(
                "%s: %s got its state after %.1f s", _tab(lock_key), _event(lock_id), waited
            )

    async def _await_reporting_slow_waits(
        self, acquiring: asyncio.Future, lock_key: bytes, lock_id: bytes
    ) -> None:
        try:
            await asyncio.wait_for(asyncio.shield(acquiring), SLOW_WAIT_SECONDS)
            return
        except TimeoutError:
            await self._report_holder(lock_key, lock_id)
        await asyncio.shield(acquiring)

    async def _report_holder(self, lock_key: bytes, lock_id: bytes) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            holder, left_ms = await pipe.get(lock_key).pttl(lock_key).execute()
        log.warning(
            "%s: %s has waited %.0f s for its state, held by %s for up to %.1f s more",
            _tab(lock_key),
            _event(lock_id),
            SLOW_WAIT_SECONDS,
            _event(holder) if holder else "nobody (being released)",
            max(left_ms, 0) / 1000,
        )

    def _release_later(self, acquiring: asyncio.Future, lock_key: bytes, lock_id: bytes) -> None:
        """The cancelled event cannot await anything more: its own task releases the lock."""
        release = asyncio.ensure_future(self._release_if_held(acquiring, lock_key, lock_id))
        self._releases.add(release)
        release.add_done_callback(self._releases.discard)

    async def _release_if_held(
        self, acquiring: asyncio.Future, lock_key: bytes, lock_id: bytes
    ) -> None:
        await asyncio.gather(acquiring, return_exceptions=True)
        try:
            released = await self.redis.eval(_DELETE_IF_HELD, 1, lock_key, lock_id)
        except Exception:  # Redis gone: the lock expires on its own.
            log.warning(
                "%s: could not release the state lock of cancelled %s",
                _tab(lock_key),
                _event(lock_id),
            )
            return
        if released:
            # Rare, and each one was a tab stalled for the lock's lifetime: worth a line.
            tab, event = _tab(lock_key), _event(lock_id)
            log.warning("%s: released the state lock of cancelled %s", tab, event)
            self._notify_next_waiter(lock_key)

    async def close(self):
        """Finish the releases in flight before the connection goes."""
        if self._releases:
            await asyncio.gather(*self._releases, return_exceptions=True)
        await super().close()


def _tab(lock_key: bytes) -> str:
    return "tab " + lock_key.decode(errors="replace").rsplit("_lock", 1)[0][:36]


def _event(lock_id: bytes) -> str:
    """The event's handler name in a Reflex lock id (``<event name>:<uuid>``)."""
    name = lock_id.decode(errors="replace").rpartition(":")[0] or "an event"
    return name.rpartition(".")[2] or name


def release_cancelled_locks(app: rx.App) -> None:
    """Give ``app`` the Redis state manager that releases cancelled events' locks (with
    Redis; the in-memory manager is left as it is)."""
    manager = app._state_manager
    if type(manager) is not StateManagerRedis:
        return
    settings = {f.name: getattr(manager, f.name) for f in dataclasses.fields(manager) if f.init}
    app._state_manager = ReleasingStateManagerRedis(**settings)
