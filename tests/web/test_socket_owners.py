"""A tab that reconnects to another worker keeps its token when the worker that held its
socket is gone, or lets go of it within a moment (it saw the old connection close after
the tab had reconnected), and gets a new one (a duplicated browser tab) while that worker
holds on to it.

Two token managers stand for two workers on the real Redis beside PostgreSQL; a worker
"dies" as a killed process does: its connections to Redis close, its records stay.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid

import pytest
import redis.asyncio

from prettyscore.web.socket_owners import PresentTokenManager
from tests.conftest import REDIS_SKIP_REASON, redis_url


@pytest.fixture
def redis_client_url() -> str:
    url = redis_url()
    if url is None:
        pytest.skip(REDIS_SKIP_REASON)
    return url


@contextlib.asynccontextmanager
async def _two_workers(url: str):
    """(Redis client, first worker, second worker, a tab's token); their presence and the
    token's record are gone afterwards."""
    client = redis.asyncio.Redis.from_url(url)
    first, second = PresentTokenManager(client), PresentTokenManager(client)
    token = str(uuid.uuid4())
    try:
        yield client, first, second, token
    finally:
        for manager in (first, second):
            if manager._presence is not None:
                manager._presence.cancel()
        await client.delete(first._get_redis_key(token))
        await client.aclose()


def _reconnect(url: str, *, first_worker_dies: bool) -> tuple[str, str | None, bool]:
    """Tab token, what the second worker's link returned, whether a record remains."""

    async def run():
        async with _two_workers(url) as (client, first, second, token):
            assert await first.link_token_to_sid(token, "socket-on-the-first") is None
            if first_worker_dies:
                first._presence.cancel()
                await asyncio.sleep(0.2)
            answer = await second.link_token_to_sid(token, "socket-on-the-second")
            kept = await client.exists(second._get_redis_key(answer or token))
            return token, answer, bool(kept)

    return asyncio.run(run())


def test_a_tab_whose_worker_crashed_keeps_its_token_on_another_worker(redis_client_url, caplog):
    with caplog.at_level(logging.WARNING, logger="prettyscore.web.socket_owners"):
        token, new_token, recorded = _reconnect(redis_client_url, first_worker_dies=True)
    assert new_token is None  # the same token: the same state
    assert recorded
    assert f"tab {token}: its worker is gone; the tab keeps its state" in caplog.text


def test_a_duplicated_tab_on_a_living_worker_still_gets_a_token_of_its_own(redis_client_url):
    token, new_token, recorded = _reconnect(redis_client_url, first_worker_dies=False)
    assert new_token is not None
    assert new_token != token
    assert recorded


def test_a_tab_that_reconnects_before_its_old_worker_lets_go_keeps_its_token(redis_client_url):
    """The new connection arrives first; the old worker deletes its record a moment later."""

    async def run():
        async with _two_workers(redis_client_url) as (_, first, second, token):
            await first.link_token_to_sid(token, "socket-on-the-first")
            linking = asyncio.ensure_future(second.link_token_to_sid(token, "socket-on-the-second"))
            await asyncio.sleep(0.5)
            assert not linking.done()  # waiting for the first worker
            await first.disconnect_token(token, "socket-on-the-first")
            answer = await asyncio.wait_for(linking, timeout=5)
            return token, answer, second.sid_to_token.get("socket-on-the-second")

    token, new_token, linked = asyncio.run(run())
    assert new_token is None  # the same token: the same state
    assert linked == token  # the second worker now holds the tab
