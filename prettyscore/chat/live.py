"""Live delivery: 'something new in conversation X' reaches every page that has X open.

A notification carries no message, only the conversation's channel; a woken page loads
what is new from the database. So a lost notification costs at most a delay (pages also
look again on their own every little while), never a message, and nothing private
travels through Redis.

With REDIS_URL set, notifications go through Redis pub/sub, so two people served by
different backend workers (or machines) reach each other. Each worker holds ONE Redis
connection listening to every chat channel (a pattern subscription) and wakes its own
waiting pages; the number of open chats does not multiply connections. Without Redis a
single worker broadcasts in-process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
import weakref
from collections.abc import AsyncIterator

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from prettyscore.core.settings import get_settings

log = logging.getLogger(__name__)

CHANNEL_PREFIX = "prettyscore:chat:"
RECONNECT_DELAY_SECONDS = 0.5
READY_WAIT_SECONDS = 2.0


def channel(request_id: uuid.UUID | str) -> str:
    """The pub/sub channel of one conversation."""
    return f"{CHANNEL_PREFIX}{request_id}"


class Subscription:
    """One waiting page's view of its channel: notifications coalesce into one wake-up.

    ``origin`` names the page (any opaque token): what that page publishes itself does
    not wake it, since it already shows its own message.
    """

    def __init__(self, name: str, origin: str = ""):
        self.channel = name
        self.origin = origin
        self._pending = asyncio.Event()

    def notify(self) -> None:
        self._pending.set()

    async def wait(self, timeout: float) -> bool:
        """True when notified (since the last wait), False when ``timeout`` passed first."""
        try:
            await asyncio.wait_for(self._pending.wait(), timeout)
        except TimeoutError:
            return False
        self._pending.clear()
        return True


class Broadcast:
    """The channels of one event loop (a backend worker), over Redis or in-process."""

    def __init__(self, redis_url: str | None = None):
        self.redis_url = redis_url
        self._subscribers: dict[str, set[Subscription]] = {}
        self._client: aioredis.Redis | None = None
        self._listener: asyncio.Task | None = None
        self._listening = asyncio.Event()

    # -- waking local pages -----------------------------------------------------
    def _wake(self, name: str, origin: str = "") -> None:
        for subscription in list(self._subscribers.get(name, ())):
            if not origin or subscription.origin != origin:
                subscription.notify()

    def _wake_all(self) -> None:
        for subscriptions in list(self._subscribers.values()):
            for subscription in list(subscriptions):
                subscription.notify()

    # -- publishing ---------------------------------------------------------------
    async def publish(self, request_id: uuid.UUID | str, origin: str = "") -> None:
        """Tell every page showing this conversation (on any worker) to look again, but
        the page ``origin`` (the one that published: it already shows the news)."""
        name = channel(request_id)
        if self.redis_url is None:
            _wake_everywhere(name, origin)
            return
        try:
            await self._redis().publish(name, origin)
        except (RedisError, OSError):
            log.exception("Publishing to %s failed; waking this worker's pages only", name)
            self._wake(name, origin)

    # -- subscribing --------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def subscribe(
        self, request_id: uuid.UUID | str, origin: str = ""
    ) -> AsyncIterator[Subscription]:
        """Listen to one conversation (as page ``origin``); ready when the block starts."""
        subscription = Subscription(channel(request_id), origin)
        self._subscribers.setdefault(subscription.channel, set()).add(subscription)
        try:
            if self.redis_url is not None:
                await self._ensure_listening()
            yield subscription
        finally:
            subscribers = self._subscribers.get(subscription.channel)
            if subscribers is not None:
                subscribers.discard(subscription)
                if not subscribers:
                    del self._subscribers[subscription.channel]

    def _redis(self) -> aioredis.Redis:
        if self._client is None:
            self._client = aioredis.Redis.from_url(
                self.redis_url, socket_connect_timeout=2, health_check_interval=30
            )
        return self._client

    async def _ensure_listening(self) -> None:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.create_task(self._listen(), name="chat-live-listener")
        with contextlib.suppress(TimeoutError):
            # Redis down: the page still works, looking again on its own timer.
            await asyncio.wait_for(self._listening.wait(), READY_WAIT_SECONDS)

    async def _listen(self) -> None:
        """Forward every chat notification from Redis to this worker's waiting pages."""
        while True:
            pubsub = self._redis().pubsub()
            try:
                await pubsub.psubscribe(CHANNEL_PREFIX + "*")
                self._listening.set()
                # Anything published while we were reconnecting: let every page look again.
                self._wake_all()
                async for item in pubsub.listen():
                    if item.get("type") == "pmessage":
                        self._wake(_text(item["channel"]), _text(item["data"]))
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError):
                log.warning("Chat notifications lost their Redis connection; reconnecting")
            finally:
                self._listening.clear()
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            await asyncio.sleep(RECONNECT_DELAY_SECONDS)

    async def close(self) -> None:
        """Stop listening and close the Redis connection (tests, benchmarks, shutdown)."""
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
            self._listener = None
        if self._client is not None:
            await self._client.aclose()
            self._client = None


# In-process broadcasts reach the pages of every event loop of this process.
_LOCAL: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Broadcast] = (
    weakref.WeakKeyDictionary()
)
_IN_PROCESS: weakref.WeakSet[Broadcast] = weakref.WeakSet()
_LOOPS: weakref.WeakKeyDictionary[Broadcast, asyncio.AbstractEventLoop] = (
    weakref.WeakKeyDictionary()
)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _wake_everywhere(name: str, origin: str) -> None:
    current = _running_loop()
    for broadcast in list(_IN_PROCESS):
        loop = _LOOPS.get(broadcast)
        if loop is None or loop.is_closed():
            continue
        if loop is current:
            broadcast._wake(name, origin)
        else:
            loop.call_soon_threadsafe(broadcast._wake, name, origin)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def register(broadcast: Broadcast) -> Broadcast:
    """Bind ``broadcast`` to the running loop (in-process ones then reach each other)."""
    _LOOPS[broadcast] = asyncio.get_running_loop()
    if broadcast.redis_url is None:
        _IN_PROCESS.add(broadcast)
    return broadcast


def broadcast() -> Broadcast:
    """This worker's broadcast, as configured (REDIS_URL), made on first use."""
    loop = asyncio.get_running_loop()
    found = _LOCAL.get(loop)
    if found is None:
        found = _LOCAL[loop] = register(Broadcast(get_settings().redis_url))
    return found
