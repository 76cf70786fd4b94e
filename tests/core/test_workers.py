"""Blocking work off the event loop: photos queue among themselves, and a page's database
look never waits behind them."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from prettyscore.core import workers
from prettyscore.core.settings import get_settings

HOLD_SECONDS = 10.0


@pytest.fixture
def one_photo_thread(monkeypatch):
    """PHOTO_WORK_THREADS=1, as on a 2-core machine."""
    monkeypatch.setenv("PHOTO_WORK_THREADS", "1")
    get_settings.cache_clear()
    workers._photo_pool.cache_clear()
    yield
    workers._photo_pool().shutdown(wait=False)
    workers._photo_pool.cache_clear()
    monkeypatch.delenv("PHOTO_WORK_THREADS")
    get_settings.cache_clear()


def test_photo_work_threads_default_to_half_the_cores(monkeypatch):
    monkeypatch.delenv("PHOTO_WORK_THREADS", raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    get_settings.cache_clear()
    try:
        assert get_settings().photo_work_threads == 4
        monkeypatch.setattr("os.cpu_count", lambda: 1)
        get_settings.cache_clear()
        assert get_settings().photo_work_threads == 1
    finally:
        get_settings.cache_clear()


def test_database_work_is_answered_while_photos_queue(one_photo_thread):
    """One photo holds the only photo thread: a second photo waits for it, while
    database work (as a page's on_load does) is answered at once."""
    release = threading.Event()
    started: list[str] = []

    def photo(name: str) -> str:
        started.append(name)
        if name == "first":
            assert release.wait(HOLD_SECONDS), "the test never released the first photo"
        return name

    async def scenario():
        first = asyncio.create_task(workers.photo_work(photo, "first"))
        second = asyncio.create_task(workers.photo_work(photo, "second"))
        while not started:
            await asyncio.sleep(0.01)
        answer = await workers.database_work(lambda: "looked up")
        queued = list(started)
        release.set()
        return answer, queued, await first, await second

    answer, queued, first, second = asyncio.run(scenario())
    assert answer == "looked up"
    assert queued == ["first"], "the second photo started beside the first"
    assert (first, second) == ("first", "second")
    assert started == ["first", "second"]


def test_work_keeps_the_callers_context():
    """Like asyncio.to_thread: context variables set by the handler are seen."""
    who = contextvars.ContextVar("who", default="nobody")

    async def scenario():
        who.set("ann")
        return await workers.database_work(who.get), await workers.photo_work(who.get)

    assert asyncio.run(scenario()) == ("ann", "ann")
