"""A tab's state lock in Redis is not left behind by an event cancelled while taking it,
and a long wait for it is logged with the event that holds it.

The cancellation is placed where it cost "Get My Score!" ten silent seconds: Redis has
granted the waiting event the lock, and the event is still on its way out of Reflex's
waiting code (here held there by the manager's own asyncio lock, which that code awaits)
when the page's navigation cancels it. Runs against the real Redis beside PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid

import pytest
import redis.asyncio
from reflex.istate.manager.redis import StateManagerRedis
from reflex.istate.manager.token import BaseStateToken
from reflex.state import State

import prettyscore.prettyscore as prettyscore_app
from prettyscore.web.state_locks import (
    SLOW_WAIT_SECONDS,
    ReleasingStateManagerRedis,
    release_cancelled_locks,
)
from tests.conftest import REDIS_SKIP_REASON, redis_url

ANALYSE = "reflex___state____state.prettyscore___scoring___state____score_state.analyse"
RECHECK = "reflex___state____state.prettyscore___dashboard___state____dashboard_state.recheck"


@pytest.fixture
def redis_client_url() -> str:
    url = redis_url()
    if url is None:
        pytest.skip(REDIS_SKIP_REASON)
    return url


async def _until(condition, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await condition():
        assert asyncio.get_running_loop().time() < deadline, "the condition never came"
        await asyncio.sleep(0.01)


async def _cancel_while_taking_the_lock(manager: StateManagerRedis) -> bytes:
    """One event holds the tab's lock, a second waits for it and is cancelled just after
    Redis granted it the lock. The tab's lock key."""
    token = BaseStateToken(ident=str(uuid.uuid4()), cls=State)
    lock_key = manager._lock_key(token)
    holding, let_go = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        async with manager._lock(token, event_name=RECHECK):
            holding.set()
            await let_go.wait()

    async def wait_for_the_state() -> None:
        async with manager._lock(token, event_name=ANALYSE):
            pass

    holder = asyncio.create_task(hold())
    await holding.wait()
    waiter = asyncio.create_task(wait_for_the_state())
    await _until(lambda: _async(manager._n_lock_waiters(lock_key) == 1))
    async with manager._state_manager_lock:  # the waiter stops on its way out
        let_go.set()
        await holder
        await _until(lambda: _held_by(manager, lock_key, ANALYSE))
        waiter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiter
    return lock_key


async def _async(value):
    return value


async def _held_by(manager: StateManagerRedis, lock_key: bytes, event_name: str) -> bool:
    holder = await manager.redis.get(lock_key)
    return bool(holder) and holder.decode().startswith(event_name + ":")


def _run_with(manager_class: type[StateManagerRedis], url: str, scenario):
    async def run():
        manager = manager_class(redis=redis.asyncio.Redis.from_url(url))
        try:
            return await scenario(manager)
        finally:
            await manager.close()

    return asyncio.run(run())


def test_reflexs_own_manager_leaves_a_cancelled_events_lock_held(redis_client_url):
    """Why the app replaces it: the lock stands until it expires (10 s)."""

    async def scenario(manager):
        lock_key = await _cancel_while_taking_the_lock(manager)
        await asyncio.sleep(0.5)
        return await _held_by(manager, lock_key, ANALYSE), await manager.redis.pttl(lock_key)

    still_held, left_ms = _run_with(StateManagerRedis, redis_client_url, scenario)
    assert still_held
    assert left_ms > 5000


def test_a_cancelled_event_leaves_no_lock_and_the_tabs_next_event_gets_its_state(
    redis_client_url, caplog
):
    async def scenario(manager):
        lock_key = await _cancel_while_taking_the_lock(manager)
        await _until(lambda: _async(not manager._releases))
        freed = await manager.redis.get(lock_key) is None
        token = BaseStateToken(ident=lock_key.decode().rsplit("_lock", 1)[0], cls=State)
        async with manager._lock(token, event_name=ANALYSE):  # the click after it
            taken = await _held_by(manager, lock_key, ANALYSE)
        return freed, taken

    with caplog.at_level(logging.WARNING, logger="prettyscore.web.state_locks"):
        freed, taken = _run_with(ReleasingStateManagerRedis, redis_client_url, scenario)
    assert freed
    assert taken
    assert "released the state lock of cancelled analyse" in caplog.text


def test_a_lock_held_by_another_event_is_left_to_it(redis_client_url):
    """The release deletes only the cancelled event's own lock, never the holder's."""

    async def scenario(manager):
        token = BaseStateToken(ident=str(uuid.uuid4()), cls=State)
        lock_key = manager._lock_key(token)
        async with manager._lock(token, event_name=RECHECK):
            waiter = asyncio.create_task(_take(manager, token))
            await _until(lambda: _async(manager._n_lock_waiters(lock_key) == 1))
            waiter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await waiter
            await _until(lambda: _async(not manager._releases))
            return await _held_by(manager, lock_key, RECHECK)

    assert _run_with(ReleasingStateManagerRedis, redis_client_url, scenario)


async def _take(manager, token) -> None:
    async with manager._lock(token, event_name=ANALYSE):
        pass


def test_a_long_wait_for_the_state_is_logged_with_the_event_holding_it(redis_client_url, caplog):
    async def scenario(manager):
        token = BaseStateToken(ident=str(uuid.uuid4()), cls=State)
        lock_key = manager._lock_key(token)
        async with manager._lock(token, event_name=RECHECK):
            waiter = asyncio.create_task(_take(manager, token))
            await _until(lambda: _async(manager._n_lock_waiters(lock_key) == 1))
            await asyncio.sleep(SLOW_WAIT_SECONDS + 0.5)
        await waiter

    with caplog.at_level(logging.WARNING, logger="prettyscore.web.state_locks"):
        _run_with(ReleasingStateManagerRedis, redis_client_url, scenario)
    waits = [record.getMessage() for record in caplog.records]
    assert any("analyse has waited 2 s for its state, held by recheck" in w for w in waits)
    assert any("analyse got its state after" in w for w in waits)


def test_the_app_takes_the_releasing_manager_with_redis_only(redis_client_url):
    app = prettyscore_app.app
    kept = app._state_manager
    try:
        app._state_manager = StateManagerRedis(redis=redis.asyncio.Redis.from_url(redis_client_url))
        release_cancelled_locks(app)
        assert type(app._state_manager) is ReleasingStateManagerRedis
        assert app._state_manager.lock_expiration == StateManagerRedis(redis=None).lock_expiration
    finally:
        app._state_manager = kept
