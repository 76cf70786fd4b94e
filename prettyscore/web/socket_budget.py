"""One event socket cannot flood: each has a budget of events, and one that goes past it
is disconnected with its waiting events dropped.

Why: a page's events come over its event socket, and Reflex queues every one of them
for the tab and runs them in turn, each taking the tab's state (and its lock, in Redis).
Nothing limited how many one socket may send: 17,540 events in 10 s from one socket
were all queued and run, and after the socket had gone its backlog kept one worker at
about 90% of a core for three minutes (Redis 1,400 commands a second, PostgreSQL 300
transactions), while every other tab on that worker waited its turn.

How: a token bucket per socket. A socket starts with ``SOCKET_EVENT_BURST`` events to
spend and earns ``SOCKET_EVENTS_PER_SECOND`` more each second, up to the burst again;
every Socket.IO event it sends (a page's event, a ping, an error report) spends one. A
tab sends a handful at each page load and one per key typed into a field (the chat's
draft, a prompt), so the defaults (120 at once, 20 a second) leave a fast typist, a
held-down key and a burst of clicks far inside the budget. A socket that spends more
than it has, or has more than the burst waiting to run (its events arrive faster than
they are handled), is over budget:

* one warning line says so (the socket, its tab and its address);
* its events that have not started are dropped at once, and whatever it sends next is
  ignored;
* its connection is closed: the Engine.IO session ends (Reflex's own disconnect runs)
  and then the websocket itself, so a script that ignores the close costs nothing more.
  A real page that somehow got there reconnects by itself, with a new budget.

Whenever a socket disconnects, for any reason, its events that have not started are
dropped too: nobody is there to see their answer, and a closed flood's backlog must not
run on. The one event that may already be running finishes (a handler is never cut
halfway); so do background events, which Reflex starts at once and which are work of
their own (a render, a job's progress), and the events a running one chains.

The budget is counted in front of Reflex: the namespace's ``trigger_event`` (python-
socketio's documented hook that dispatches every event of the namespace) is wrapped.
Which events a socket has waiting is learnt from the futures Reflex's event processor
hands back for the events it queues (``EventProcessor.enqueue``, wrapped while a
socket's event is being taken); a future cancelled before its event starts is skipped
by Reflex. Closing the websocket uses two parts of python-engineio that are not
documented (``AsyncServer.sockets``, a session's send ``queue``); those and every other
part named here are checked by ``tests/web/test_socket_budget.py``.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reflex_base.registry import RegistrationContext

from prettyscore.core.log_text import loggable
from prettyscore.core.settings import get_settings

log = logging.getLogger(__name__)

#: The Socket.IO events that open and close a session: never counted.
SESSION_EVENTS = frozenset({"connect", "disconnect"})
#: Reflex's Socket.IO event that carries a page's events.
PAGE_EVENT = "event"
#: How long closing a socket over budget may take (its client may not be reading).
CLOSE_TIMEOUT_SECONDS = 10.0
#: The most a socket may hold waiting: Reflex skips cancelled events one call deep each
#: (``_dispatch_next_for_token``), so far more than this dropped in a row would exceed
#: Python's recursion limit.
MAX_BURST = 500


@dataclass
class TokenBucket:
    """``burst`` events at once, ``rate`` more each second, never more than ``burst``."""

    burst: float
    rate: float
    tokens: float
    stamp: float

    @classmethod
    def full(cls, burst: float, rate: float, now: float) -> TokenBucket:
        return cls(burst=burst, rate=rate, tokens=burst, stamp=now)

    def take(self, now: float) -> bool:
        """Spend one event; False when none is left."""
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class SocketBudget:
    """The budgets of one event namespace's sockets, and their waiting events."""

    def __init__(
        self,
        namespace: Any,
        *,
        burst: int,
        rate: float,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.namespace = namespace
        self.burst = max(1, min(MAX_BURST, int(burst)))
        self.rate = max(0.0, float(rate))
        self.clock = clock
        self.buckets: dict[str, TokenBucket] = {}
        #: sid -> the futures of its events, oldest first, from the oldest not done.
        self.waiting: dict[str, collections.deque] = {}
        #: Sockets over budget, being disconnected: whatever they send is ignored.
        self.refused: set[str] = set()
        self._taking: contextvars.ContextVar[tuple[str, asyncio.Task | None] | None] = (
            contextvars.ContextVar("prettyscore_socket_taking", default=None)
        )
        self._watched: Any = None
        self._closing: set[asyncio.Task] = set()

    # -- the namespace's dispatch ------------------------------------------------------
    def install(self) -> None:
        """Put the budget in front of every event of the namespace."""
        dispatch = self.namespace.trigger_event

        async def trigger_event(event: str, *args: Any) -> Any:
            sid = args[0] if args else None
            if event in SESSION_EVENTS or not isinstance(sid, str):
                if event == "disconnect" and isinstance(sid, str):
                    self.forget(sid)
                return await dispatch(event, *args)
            if sid in self.refused:
                return None
            if not self.spend(sid):
                self.refuse(sid)
                return None
            if event != PAGE_EVENT:
                return await dispatch(event, *args)
            self._watch_processor()
            taking = self._taking.set((sid, asyncio.current_task()))
            try:
                return await dispatch(event, *args)
            finally:
                self._taking.reset(taking)

        self.namespace.trigger_event = trigger_event

    def spend(self, sid: str) -> bool:
        """Whether ``sid`` may send one more event (and spend it)."""
        now = self.clock()
        bucket = self.buckets.get(sid)
        if bucket is None:
            bucket = self.buckets[sid] = TokenBucket.full(self.burst, self.rate, now)
        return bucket.take(now) and len(self._pruned(sid)) < self.burst

    # -- the events a socket has waiting -------------------------------------------------
    def _watch_processor(self) -> None:
        """Learn the future of each event the sockets' events queue (from the processor
        Reflex made when the server started)."""
        try:
            processor = self.namespace.app.event_processor
        except RuntimeError:  # not started: nothing is queued either
            return
        if self._watched is processor:
            return
        enqueue = processor.enqueue

        async def watched_enqueue(*args: Any, **kwargs: Any) -> Any:
            future = await enqueue(*args, **kwargs)
            taking = self._taking.get()
            # Only the event a socket sent: not one its handler chains, nor any event of
            # a task that merely inherited this context.
            if taking is not None and taking[1] is asyncio.current_task():
                self._note(taking[0], future, args[1] if len(args) > 1 else kwargs.get("event"))
            return future

        processor.enqueue = watched_enqueue
        self._watched = processor

    def _note(self, sid: str, future: Any, event: Any) -> None:
        if future.done() or _is_background(getattr(event, "name", None)):
            return
        self._pruned(sid).append(future)

    def _pruned(self, sid: str) -> collections.deque:
        """The socket's waiting futures, the finished ones at the front let go."""
        futures = self.waiting.get(sid)
        if futures is None:
            futures = self.waiting[sid] = collections.deque()
        while futures and futures[0].done():
            futures.popleft()
        return futures

    def drop_waiting(self, sid: str) -> int:
        """Cancel the socket's events that have not started; how many were dropped.

        The oldest unfinished one may be running: it finishes."""
        futures = [future for future in self.waiting.pop(sid, ()) if not future.done()]
        return sum(1 for future in futures[1:] if future.cancel())

    # -- over budget, and gone ----------------------------------------------------------
    def refuse(self, sid: str) -> None:
        """``sid`` went past its budget: drop what it has waiting, close it."""
        self.refused.add(sid)
        dropped = self.drop_waiting(sid)
        log.warning(
            "An event socket went past its budget (%d events at once, %g a second): "
            "disconnected, %d waiting events dropped (socket %s, tab %s..., address %s)",
            self.burst,
            self.rate,
            dropped,
            sid,
            loggable(str(self.namespace.sid_to_token.get(sid))[:8]),
            self._address(sid),
        )
        closing = asyncio.ensure_future(self._close(sid))
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)

    def forget(self, sid: str) -> None:
        """``sid`` disconnected: its events that have not started never will."""
        dropped = self.drop_waiting(sid)
        if dropped and sid not in self.refused:
            log.info("A closed event socket's %d waiting events were dropped", dropped)
        self.buckets.pop(sid, None)
        self.refused.discard(sid)

    async def _close(self, sid: str) -> None:
        """End the socket's Engine.IO session, then its websocket."""
        server = self.namespace.server
        eio_sid = server.manager.eio_sid_from_sid(sid, self.namespace.namespace)
        if eio_sid is None:
            return
        session = server.eio.sockets.get(eio_sid)
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT_SECONDS):
                await server.eio.disconnect(eio_sid)
                if session is not None:
                    # An empty send queue ends the session's writer, which closes the
                    # websocket: the client's further frames are not even read.
                    await session.queue.put(None)
        except TimeoutError:
            log.warning("An event socket over budget did not close in time (socket %s)", sid)

    def _address(self, sid: str) -> str:
        environ = self.namespace.server.get_environ(sid, self.namespace.namespace) or {}
        client = (environ.get("asgi.scope") or {}).get("client") or ("?",)
        return str(client[0])


def _is_background(name: Any) -> bool:
    try:
        registered = RegistrationContext.get().event_handlers.get(name)
    except LookupError:
        return False
    return registered is not None and registered.handler.is_background


def budget_socket_events(namespace: Any) -> SocketBudget:
    """Give every socket of Reflex's event ``namespace`` its budget (module docstring)."""
    settings = get_settings()
    budget = SocketBudget(
        namespace, burst=settings.socket_event_burst, rate=settings.socket_events_per_second
    )
    budget.install()
    return budget
