"""Benchmark: chat delivery latency with 50 conversations active at once.

Drives the service and the live layer directly, NOT the browser: for each of 50 pairs a
receiver waits on its conversation's channel exactly as an open chat page's loop does
(subscribe, wait, then load what is new from the database on a worker thread), while
its partner sends ``MESSAGES_PER_PAIR`` messages with ``send_message`` (own session and
commit on a worker thread) followed by a publish. Latency is from just before
``send_message`` until the receiver's database load returns that message. In-process
uses one broadcast; Redis uses two broadcasts (two "workers", two Redis connections),
the sender publishing on one and the receivers listening on the other.

Prints median and p95 per database and delivery; asserts only that every message
arrived (time depends on the machine's load). Run it alone with
``.venv/bin/python -m pytest tests/perf/test_bench_chat.py -s``.

``test_chat_delivery_in_the_browser`` adds the whole path for one conversation through
the real app (both servers: SQLite with one worker, PostgreSQL + Redis with two): from
the moment Alice presses Enter until the message is in Bob's page (a MutationObserver
on his chat box notes the time; both pages share the machine's clock).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import random
import statistics
import time
import uuid

import pytest
from sqlmodel import Session

from prettyscore.chat import live, service
from tests.conftest import redis_url
from tests.e2e.flows import new_member, open_page, paid_contact_request
from tests.fixtures.factories import add_member, add_request

PAIRS = 50
MESSAGES_PER_PAIR = 8
#: Senders pause a random time between messages: people chatting (one message per pair
#: every 0.5–1.5 s, ~50 messages a second in all) and a burst (every 20–120 ms, ~700/s).
PACES = {"chatting": (0.5, 1.5), "burst": (0.02, 0.12)}
RECEIVE_TIMEOUT_SECONDS = 10.0


def _conversations(db_engine) -> list[tuple[uuid.UUID, uuid.UUID, uuid.UUID]]:
    """(request id, sender id, receiver id) for each pair."""
    with Session(db_engine, expire_on_commit=False) as db:
        found = []
        for _ in range(PAIRS):
            sender, receiver = add_member(db, "sender"), add_member(db, "receiver")
            found.append((add_request(db, sender, receiver).id, sender.id, receiver.id))
        return found


def _send(db_engine, sender_id, request_id, text) -> uuid.UUID:
    with Session(db_engine, expire_on_commit=False) as db:
        stored = service.send_message(db, sender_id, request_id, text)
        db.commit()
        return stored.id


def _since(db_engine, receiver_id, request_id, after):
    with Session(db_engine, expire_on_commit=False) as db:
        return service.messages_since(db, receiver_id, request_id, after)


def _key(message: service.ChatMessage) -> uuid.UUID:
    """The key the message's send time is filed under (its text starts with it)."""
    return uuid.UUID(message.content.split(" ", 1)[0])


async def _run(
    db_engine, publisher: live.Broadcast, listener: live.Broadcast, pause: tuple[float, float]
) -> list[float]:
    sent_at: dict[uuid.UUID, float] = {}
    latencies: list[float] = []
    conversations = _conversations(db_engine)

    async def receive(request_id, receiver_id, subscribed: asyncio.Event):
        async with listener.subscribe(request_id) as subscription:
            subscribed.set()
            after, seen = None, 0
            while seen < MESSAGES_PER_PAIR:
                if not await subscription.wait(RECEIVE_TIMEOUT_SECONDS):
                    return
                found = await asyncio.to_thread(_since, db_engine, receiver_id, request_id, after)
                now = time.perf_counter()
                for message in found:
                    latencies.append((now - sent_at[_key(message)]) * 1000)
                if found:
                    after, seen = found[-1].created_at, seen + len(found)

    async def send(request_id, sender_id):
        for number in range(MESSAGES_PER_PAIR):
            await asyncio.sleep(random.uniform(*pause))
            key = uuid.uuid4()
            sent_at[key] = time.perf_counter()
            await asyncio.to_thread(_send, db_engine, sender_id, request_id, f"{key} #{number}")
            await publisher.publish(request_id)

    ready = [asyncio.Event() for _ in conversations]
    receivers = [
        asyncio.create_task(receive(request_id, receiver_id, event))
        for (request_id, _, receiver_id), event in zip(conversations, ready, strict=True)
    ]
    await asyncio.gather(*(event.wait() for event in ready))
    await asyncio.sleep(0.2)  # let the listeners' connection wake-ups pass
    await asyncio.gather(*(send(request_id, sender) for request_id, sender, _ in conversations))
    await asyncio.gather(*receivers)
    return latencies


@pytest.mark.parametrize("pace", list(PACES))
@pytest.mark.parametrize("delivery", ["in-process", "redis"])
def test_chat_delivery_latency(db_engine, migrated_database_url, delivery, pace):
    url = redis_url()
    if delivery == "redis" and url is None:
        pytest.skip("Redis does not answer")

    async def scenario():
        if delivery == "redis":
            publisher = live.register(live.Broadcast(url))
            listener = live.register(live.Broadcast(url))
        else:
            publisher = listener = live.register(live.Broadcast())
        try:
            return await _run(db_engine, publisher, listener, PACES[pace])
        finally:
            await publisher.close()
            await listener.close()

    # On a thread of its own: the browser tests' Playwright keeps an event loop running
    # on the main thread for the whole session.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        latencies = pool.submit(asyncio.run, scenario()).result()
    database = "postgres" if migrated_database_url.startswith("postgres") else "sqlite"
    p95 = statistics.quantiles(latencies, n=20)[-1] if len(latencies) > 1 else latencies[0]
    print(
        f"\n[chat delivery, service + live layer, no browser] {database} / {delivery} / {pace}: "
        f"{PAIRS} conversations × {MESSAGES_PER_PAIR} messages, "
        f"median {statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms, "
        f"max {max(latencies):.1f} ms"
    )
    assert len(latencies) == PAIRS * MESSAGES_PER_PAIR


BROWSER_MESSAGES = 25
# Notes when each message text first appears in the chat box.
WATCH_ARRIVALS = """() => {
  window.arrivals = {};
  const box = document.querySelector('[data-testid=chat-box]');
  new MutationObserver(() => {
    for (const el of box.querySelectorAll('[data-testid=message-text]')) {
      if (!(el.textContent in window.arrivals)) window.arrivals[el.textContent] = Date.now();
    }
  }).observe(box, {subtree: true, childList: true, characterData: true});
}"""


def test_chat_delivery_in_the_browser(new_context, app_server):
    base = app_server.base_url
    alice, bob = new_context().new_page(), new_context().new_page()
    request_id = paid_contact_request(
        app_server, new_member(alice, base, "requester"), new_member(bob, base, "contestant")
    )
    open_page(alice, f"{base}/messages/{request_id}")
    open_page(bob, f"{base}/messages/{request_id}")
    bob.evaluate(WATCH_ARRIVALS)
    field = alice.get_by_test_id("chat-input")
    latencies = []
    for number in range(BROWSER_MESSAGES):
        text = f"message {number}"
        field.fill(text)
        alice.wait_for_timeout(400)  # the typed text has reached the server
        pressed_at = alice.evaluate("Date.now()")
        field.press("Enter")
        bob.wait_for_function(f"() => window.arrivals['{text}'] !== undefined")
        latencies.append(bob.evaluate(f"window.arrivals['{text}']") - pressed_at)
    p95 = statistics.quantiles(latencies, n=20)[-1]
    print(
        f"\n[chat delivery, browser to browser, one conversation] {app_server.base_url}: "
        f"{BROWSER_MESSAGES} messages, median {statistics.median(latencies):.0f} ms, "
        f"p95 {p95:.0f} ms, max {max(latencies):.0f} ms"
    )
