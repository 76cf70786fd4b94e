"""Which worker holds a tab's socket: a record left by a worker that crashed does not
make the tab a stranger when it reconnects.

Why: with Redis, Reflex records in Redis which worker holds each tab's socket
(``token_manager_socket_record_<token>``, kept for an hour), and a tab that connects
while a record of its token exists on another worker is taken for a duplicated browser
tab: it gets a new token, that is a new, empty state. A worker that crashes cannot
delete its records, so every tab it served reconnected to another worker as a new tab:
the chosen photo, the result on screen and the open chat were gone, and "Get My Score!"
answered "Please upload a photo first!" to a page still showing the photo.

How: each worker keeps one Redis connection open under a name that carries its socket
identity (``CLIENT SETNAME``). Redis drops a connection the moment its process dies, so
that name in ``CLIENT LIST`` says the worker is alive. Before Reflex checks a token for a
duplicate, a record naming another worker whose connection is gone is deleted (only if
unchanged), and the tab keeps its token and its state.

A living worker's record is not yet a duplicate: a tab whose connection dropped often
reconnects, to this worker or another, before the worker that held it has noticed the
drop and deleted its record (on a busy machine, a tab moved between two workers got a new,
empty state that way). Its link waits up to ``RECONNECT_GRACE_SECONDS`` for that record
to go; a record still there after it is a real duplicate (a browser tab duplicated with
its session storage), left to Reflex, which gives it a token of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pickle

import redis.asyncio
import reflex as rx
from reflex.utils.token_manager import RedisTokenManager

log = logging.getLogger(__name__)

PRESENCE_PREFIX = "prettyscore-worker-"
#: How often the presence connection is checked (and reopened after a Redis restart).
PRESENCE_CHECK_SECONDS = 5.0
#: How long a tab's link waits for a living worker to let go of the tab's old socket, and
#: how often it looks. A duplicated browser tab connects this much later.
RECONNECT_GRACE_SECONDS = 3.0
RECONNECT_LOOK_SECONDS = 0.05

#: Deletes KEYS[1] only while it holds ARGV[1].
_DELETE_IF_UNCHANGED = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
"""


class PresentTokenManager(RedisTokenManager):
    """Reflex's Redis token manager, which ignores socket records of crashed workers."""

    _presence: asyncio.Task | None = None

    def _reset_instance_id(self) -> None:
        """A new identity (a forked worker): its presence is shown under the new name."""
        super()._reset_instance_id()
        if self._presence is not None:
            self._presence.cancel()
            self._presence = None

    async def link_token_to_sid(self, token: str, sid: str) -> str | None:
        """Link as Reflex does, once a record of a crashed worker is out of the way."""
        await self._show_presence()
        record = self.token_to_socket.get(token)
        if record is None or record.sid != sid:
            await self._forget_record_of_gone_worker(token)
            await self._let_the_old_socket_go(token)
        return await super().link_token_to_sid(token, sid)

    async def _let_the_old_socket_go(self, token: str) -> None:
        """Wait (``RECONNECT_GRACE_SECONDS`` at most) while a record of ``token`` names a
        socket other than a new one: the worker holding the tab's old connection deletes
        it when it sees that connection close."""
        key = self._get_redis_key(token)
        # A deadline checked between commands, not asyncio.timeout: a Redis command
        # cancelled half-way leaves its pooled connection with an answer still unread.
        deadline = asyncio.get_running_loop().time() + RECONNECT_GRACE_SECONDS
        try:
            while await self.redis.exists(key):
                if asyncio.get_running_loop().time() >= deadline:
                    return
                await asyncio.sleep(RECONNECT_LOOK_SECONDS)
        except redis.RedisError as error:  # Reflex's own check then decides, as before
            log.warning("tab %s: could not check its old socket: %s", token[:36], error)

    async def _show_presence(self) -> None:
        """Open this worker's named connection before it records any socket."""
        if self._presence is not None and not self._presence.done():
            return
        kwargs = dict(self.redis.connection_pool.connection_kwargs)
        kwargs["client_name"] = PRESENCE_PREFIX + self.instance_id
        named = redis.asyncio.Redis(**kwargs)
        with contextlib.suppress(redis.RedisError):
            await named.ping()
        if self._presence is not None and not self._presence.done():
            await named.aclose()  # another link opened it meanwhile
            return
        self._presence = asyncio.ensure_future(_keep_open(named))

    async def _forget_record_of_gone_worker(self, token: str) -> None:
        key = self._get_redis_key(token)
        try:
            stored = await self.redis.get(key)
            if not stored:
                return
            owner = pickle.loads(stored).instance_id
            if owner == self.instance_id or await self._worker_alive(owner):
                return
            if await self.redis.eval(_DELETE_IF_UNCHANGED, 1, key, stored):
                log.warning("tab %s: its worker is gone; the tab keeps its state", token[:36])
        except redis.RedisError as error:  # Reflex's own check then decides, as before
            log.warning("tab %s: could not check its socket's worker: %s", token[:36], error)

    async def _worker_alive(self, instance_id: str) -> bool:
        clients = await self.redis.client_list()
        name = PRESENCE_PREFIX + instance_id
        return any(client.get("name") == name for client in clients)


async def _keep_open(named: redis.asyncio.Redis) -> None:
    """Keep the named connection open while the worker lives (reopened after a Redis
    restart)."""
    try:
        while True:
            await asyncio.sleep(PRESENCE_CHECK_SECONDS)
            try:
                await named.ping()
            except redis.RedisError:
                log.warning("worker presence in Redis lost; retrying")
    finally:
        await named.aclose()


def keep_tabs_across_worker_crashes(app: rx.App) -> None:
    """Give ``app``'s sockets the token manager that ignores crashed workers' records
    (with Redis; one worker's in-memory manager is left as it is)."""
    namespace = app.event_namespace
    manager = namespace._token_manager if namespace is not None else None
    if type(manager) is RedisTokenManager:
        namespace._token_manager = PresentTokenManager(manager.redis)
