"""A waiting chat page is woken when its conversation gets a message, in-process and
through Redis (two separate broadcasts standing for two backend workers)."""

from __future__ import annotations

import asyncio
import threading
import uuid

import pytest

from prettyscore.chat import live
from tests.conftest import REDIS_SKIP_REASON, redis_url

WAIT_SECONDS = 3.0


async def _delivered(publisher: live.Broadcast, subscriber: live.Broadcast) -> tuple[bool, bool]:
    """(woken for its own conversation, woken by another conversation's message)."""
    mine, other = uuid.uuid4(), uuid.uuid4()
    async with subscriber.subscribe(mine) as subscription:
        # A fresh Redis listener wakes its pages once on connecting (to catch up); drain it.
        await subscription.wait(0.05)
        await publisher.publish(other)
        woken_by_other = await subscription.wait(0.3)
        await publisher.publish(mine)
        woken = await subscription.wait(WAIT_SECONDS)
    return woken, woken_by_other


def test_a_subscriber_is_woken_in_process():
    async def scenario():
        publisher = live.register(live.Broadcast())
        subscriber = live.register(live.Broadcast())
        return await _delivered(publisher, subscriber)

    assert asyncio.run(scenario()) == (True, False)


def test_an_in_process_message_reaches_a_page_on_another_event_loop():
    """Background threads with their own loop (as a test server or tool may run) hear it."""
    ready, done = threading.Event(), threading.Event()
    request_id = uuid.uuid4()
    outcome = {}

    async def listen():
        async with live.register(live.Broadcast()).subscribe(request_id) as subscription:
            ready.set()
            outcome["woken"] = await subscription.wait(WAIT_SECONDS)
        done.set()

    thread = threading.Thread(target=lambda: asyncio.run(listen()))
    thread.start()
    ready.wait(WAIT_SECONDS)

    async def send():
        await live.register(live.Broadcast()).publish(request_id)

    asyncio.run(send())
    thread.join(WAIT_SECONDS + 1)
    assert outcome == {"woken": True}


def test_a_subscriber_is_woken_through_redis_by_another_worker():
    url = redis_url()
    if url is None:
        pytest.skip(REDIS_SKIP_REASON)

    async def scenario():
        worker_a = live.register(live.Broadcast(url))
        worker_b = live.register(live.Broadcast(url))
        try:
            return await _delivered(worker_a, worker_b)
        finally:
            await worker_a.close()
            await worker_b.close()

    assert asyncio.run(scenario()) == (True, False)


async def _woken_by_own_and_by_other(broadcast: live.Broadcast) -> tuple[bool, bool]:
    """Two pages on one conversation, "ann" and "bob": (ann woken by her own message,
    ann woken by bob's)."""
    request_id = uuid.uuid4()
    async with broadcast.subscribe(request_id, origin="ann") as ann:
        await ann.wait(0.05)  # a fresh Redis listener's catch-up wake
        await broadcast.publish(request_id, origin="ann")
        by_own = await ann.wait(0.3)
        await broadcast.publish(request_id, origin="bob")
        by_other = await ann.wait(WAIT_SECONDS)
    return by_own, by_other


def test_a_page_is_not_woken_by_its_own_message_in_process():
    async def scenario():
        return await _woken_by_own_and_by_other(live.register(live.Broadcast()))

    assert asyncio.run(scenario()) == (False, True)


def test_a_page_is_not_woken_by_its_own_message_through_redis():
    url = redis_url()
    if url is None:
        pytest.skip(REDIS_SKIP_REASON)

    async def scenario():
        broadcast = live.register(live.Broadcast(url))
        try:
            return await _woken_by_own_and_by_other(broadcast)
        finally:
            await broadcast.close()

    assert asyncio.run(scenario()) == (False, True)
