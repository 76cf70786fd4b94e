"""One event socket cannot flood the server (issue 54, item 3).

Several scripts open the event socket as a page does and each sends a flood of events
as fast as the connection takes them, while other tabs keep typing into the chat's draft
(one event and its answer at a time). Against the backend as production serves it
(``tests/helpers/backend_server.py``), with its default budget, on both servers:

* every flooder is disconnected by the server, and the log says why;
* the flood's events stop running once its socket is gone: the count of those that ran
  stops growing, far below what was sent (each flooded event is one the server refuses
  after taking the tab's state, with a warning line: the lines are the count);
* every other tab's round trip is answered during the flood, on a socket still open.

Before the budget, every event of every flood was queued and run, for seconds after the
flooders had gone, and no socket was closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from reflex_base.utils.format import format_event_handler

from prettyscore.chat.state import ChatState
from prettyscore.core.settings import load_settings
from prettyscore.web.browser_key import BROWSER_COOKIE
from tests.helpers.app_server import AppServer
from tests.helpers.backend_server import SERVERS, backing_services, running_backend
from tests.perf.load_driver import DriverError, WebSocket

# One test process starts the two servers for the whole file.
pytestmark = pytest.mark.xdist_group("security_socket_flood")

NAMESPACE = "/_event"
SET_DRAFT = format_event_handler(ChatState.event_handlers["set_draft"])
FLOODERS = 3
#: Events each flooder sends: far more than a socket's burst.
FLOOD_EVENTS = 3000
OTHER_TABS = 2
#: Each other tab's round trips: some before the flood, the rest while it lasts.
ROUND_TRIPS = 12
#: Logged once for each flooded event that ran (its number is refused as the draft).
RAN = "Refused an event with bad arguments: ChatState.set_draft"
OVER_BUDGET = "went past its budget"
#: Generous: the test waits for behaviour, it does not time it.
ANSWER_TIMEOUT = 30.0


@pytest.fixture(scope="module", params=SERVERS)
def server(request, tmp_path_factory) -> Iterator[AppServer]:
    run_dir = tmp_path_factory.mktemp(f"flood-{request.param}")
    with (
        backing_services(request, request.param) as (database_url, redis),
        running_backend(request.param, run_dir, database_url=database_url, redis_url=redis) as up,
    ):
        yield up


def log_size(path: Path) -> int:
    return path.stat().st_size


def written_since(path: Path, start: int) -> str:
    with path.open("rb") as log:
        log.seek(start)
        return log.read().decode(errors="replace")


def browser_cookie(server: AppServer) -> str:
    """A key the server gave, as a page load gets one."""
    answer = httpx.get(server.url("/ping"), timeout=30)
    return f"{BROWSER_COOKIE}={answer.cookies.get(BROWSER_COOKIE, '')}"


def event_frame(value: object, path: str = "/messages") -> str:
    event = {"name": SET_DRAFT, "payload": {"value": value}, "router_data": {"pathname": path}}
    return f"42{NAMESPACE}," + json.dumps(["event", event])


async def open_tab(server: AppServer, cookie: str) -> WebSocket:
    """A tab's event socket, connected to the event namespace."""
    target = f"{NAMESPACE}/?token={uuid.uuid4()}&EIO=4&transport=websocket"
    socket = await WebSocket.connect(
        "127.0.0.1",
        server.port,
        target,
        headers=[("Cookie", cookie), ("Origin", server.base_url)],
    )
    assert (await socket.receive()).startswith("0")  # Engine.IO open
    await socket.send(f"40{NAMESPACE},")
    while not (await socket.receive()).startswith(f"40{NAMESPACE},"):
        pass
    return socket


async def flood(server: AppServer, cookie: str) -> bool:
    """Send ``FLOOD_EVENTS`` events as fast as they go; whether the server closed the
    socket (within a few seconds of the last one sent)."""
    socket = await open_tab(server, cookie)
    closed = asyncio.Event()

    async def read() -> None:
        with contextlib.suppress(DriverError, OSError):
            while True:
                message = await socket.receive()
                if message == "2":  # Engine.IO ping
                    await socket.send("3")
        closed.set()

    reader = asyncio.create_task(read())
    try:
        for number in range(FLOOD_EVENTS):
            await socket.send(event_frame(number))  # a number is refused as a draft
    except (OSError, RuntimeError):  # closed while sending
        pass
    try:
        await asyncio.wait_for(closed.wait(), 10)
        return True
    except TimeoutError:
        return False
    finally:
        reader.cancel()
        await socket.close()


async def type_drafts(server: AppServer, cookie: str, tab: int, started: asyncio.Event) -> int:
    """A tab typing into the chat's draft: each change sent, its answer awaited; the
    round trips answered (the flood starts after the first few)."""
    socket = await open_tab(server, cookie)
    answered = 0
    try:
        for number in range(ROUND_TRIPS):
            if number == 3:
                started.set()
            draft = f"tab {tab} draft {number}"
            await socket.send(event_frame(draft))
            await asyncio.wait_for(_answer(socket, draft), ANSWER_TIMEOUT)
            answered += 1
            await asyncio.sleep(0.15)
    finally:
        await socket.close()
    return answered


async def _answer(socket: WebSocket, draft: str) -> None:
    while True:
        message = await socket.receive()
        if message == "2":
            await socket.send("3")
        elif message.startswith(f"42{NAMESPACE},") and json.dumps(draft) in message:
            return


def ran_count(server: AppServer, start: int) -> int:
    return written_since(server.log_path, start).count(RAN)


def settled_count(server: AppServer, start: int, quiet: float = 1.5, limit: float = 20) -> int:
    """The count of flooded events that ran, once it has not grown for ``quiet`` seconds
    (or after ``limit`` seconds, whatever it is then)."""
    deadline = time.monotonic() + limit
    count, since = ran_count(server, start), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = ran_count(server, start)
        if now != count:
            count, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            break
    return count


def test_flooding_sockets_are_closed_their_backlog_dropped_and_other_tabs_answered(server):
    start = log_size(server.log_path)
    cookie = browser_cookie(server)
    budget = load_settings().socket_event_burst

    async def scenario() -> tuple[list[bool], list[int]]:
        started = asyncio.Event()
        typing = [
            asyncio.create_task(type_drafts(server, cookie, tab, started))
            for tab in range(OTHER_TABS)
        ]
        await asyncio.wait_for(started.wait(), ANSWER_TIMEOUT)
        closed = await asyncio.gather(*(flood(server, cookie) for _ in range(FLOODERS)))
        return list(closed), list(await asyncio.gather(*typing))

    closed, answered = asyncio.run(scenario())
    ran_after_close = settled_count(server, start)
    time.sleep(2)  # a backlog still running would show now
    ran = ran_count(server, start)
    written = written_since(server.log_path, start)

    assert closed == [True] * FLOODERS, "a flooding socket was not disconnected"
    assert written.count(OVER_BUDGET) == FLOODERS
    assert ran == ran_after_close, "the flood's backlog ran on after its sockets had gone"
    # Each flooder's burst, and what its budget earned meanwhile: far below what was sent.
    assert ran <= FLOODERS * (budget + 60) < FLOODERS * FLOOD_EVENTS / 4
    assert answered == [ROUND_TRIPS] * OTHER_TABS
    assert "Traceback" not in written
