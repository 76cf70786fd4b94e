"""Each event socket's budget (``prettyscore/web/socket_budget.py``), in process.

Reflex's own event processor runs the app's events here, fed by a stand-in for its
socket namespace that takes an event as Reflex's ``on_event`` does (it queues it with
``event_processor.enqueue``). The chat's draft is the event: each one that runs sends
the tab its new draft, so the answers sent are the count of those that ran. The running
server is flooded in ``tests/security/test_socket_flood.py``.

The last test names every part of Reflex, python-socketio and python-engineio the budget
relies on that is not their documented interface: an upgrade that moves one fails here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import uuid
from types import SimpleNamespace

import engineio
import socketio
from reflex.app import App, EventNamespace
from reflex.event import Event
from reflex_base.event.processor import BaseStateEventProcessor, EventFuture, EventProcessor
from reflex_base.utils.format import format_event_handler

import prettyscore.prettyscore as prettyscore_app
from prettyscore.chat.state import ChatState
from prettyscore.web import socket_budget
from prettyscore.web.socket_budget import SocketBudget, TokenBucket
from tests.fixtures.event_socket import EventSockets, event_sockets

SET_DRAFT = format_event_handler(ChatState.event_handlers["set_draft"])
BURST = 120


class Namespace:
    """Reflex's event namespace as the budget sees it: events are queued for the tab."""

    namespace = "/_event"

    def __init__(self, app: EventSockets):
        self.app = SimpleNamespace(event_processor=app.processor)
        self.sid_to_token: dict[str, str] = {}
        self.server = SimpleNamespace(
            manager=SimpleNamespace(eio_sid_from_sid=lambda sid, namespace: None),
            get_environ=lambda sid, namespace: {"asgi.scope": {"client": ("127.0.0.9", 1)}},
        )
        self.disconnected: list[str] = []

    async def trigger_event(self, event: str, sid: str, *args):
        if event == "event":
            await self.app.event_processor.enqueue(self.sid_to_token[sid], args[0])
        elif event == "disconnect":
            self.disconnected.append(sid)


def draft_event(value: str) -> Event:
    return Event(name=SET_DRAFT, payload={"value": value}, router_data={"pathname": "/messages"})


def drafts_sent(app: EventSockets) -> list[str]:
    return [
        values["draft_rx_state_"]
        for update in app.frontend.sent
        for values in update.delta.values()
        if values.get("draft_rx_state_")  # a new tab's first answer has the empty one
    ]


async def settle(app: EventSockets) -> None:
    """Until the processor has nothing left to run."""
    for _ in range(200):
        await asyncio.sleep(0.02)
        if not any(not future.done() for future in app.processor._futures.values()):
            return


def open_socket(namespace: Namespace) -> str:
    sid = uuid.uuid4().hex
    namespace.sid_to_token[sid] = str(uuid.uuid4())
    return sid


def test_a_closed_sockets_waiting_events_are_dropped(state_manager_url):
    async def scenario() -> list[str]:
        async with event_sockets(state_manager_url) as app:
            namespace = Namespace(app)
            SocketBudget(namespace, burst=BURST, rate=20).install()
            sid = open_socket(namespace)
            for number in range(50):  # queued faster than they run, within the budget
                await namespace.trigger_event("event", sid, draft_event(f"draft {number}"))
            await namespace.trigger_event("disconnect", sid, "transport close")
            await settle(app)
            assert namespace.disconnected == [sid]
            return drafts_sent(app)

    # The one that may have started finishes; none of the rest ever runs.
    assert asyncio.run(scenario()) in ([], ["draft 0"])


def test_a_socket_that_keeps_its_budget_has_every_event_run(state_manager_url):
    async def scenario() -> list[str]:
        async with event_sockets(state_manager_url) as app:
            namespace = Namespace(app)
            SocketBudget(namespace, burst=BURST, rate=20).install()
            sid = open_socket(namespace)
            for number in range(30):
                await namespace.trigger_event("event", sid, draft_event(f"draft {number}"))
            await settle(app)
            return drafts_sent(app)

    assert asyncio.run(scenario()) == [f"draft {number}" for number in range(30)]


def test_a_socket_past_its_budget_is_refused_and_its_waiting_events_dropped(
    state_manager_url, caplog
):
    async def scenario() -> tuple[list[str], SocketBudget, str]:
        async with event_sockets(state_manager_url) as app:
            namespace = Namespace(app)
            budget = SocketBudget(namespace, burst=BURST, rate=20)
            budget.install()
            flooder, other = open_socket(namespace), open_socket(namespace)
            for number in range(3 * BURST):
                await namespace.trigger_event("event", flooder, draft_event(f"flood {number}"))
            await namespace.trigger_event("event", other, draft_event("other"))
            await settle(app)
            return drafts_sent(app), budget, flooder

    with caplog.at_level(logging.WARNING, logger=socket_budget.__name__):
        sent, budget, flooder = asyncio.run(scenario())

    assert "other" in sent  # another tab's event still runs
    assert [draft for draft in sent if draft.startswith("flood")] in ([], ["flood 0"])
    assert flooder in budget.refused  # whatever it sends until it is gone is ignored
    (line,) = [record.getMessage() for record in caplog.records]
    assert "went past its budget (120 events at once, 20 a second)" in line
    assert f"{BURST - 1} waiting events dropped" in line
    assert "address 127.0.0.9" in line


def test_the_bucket_gives_a_burst_then_its_rate():
    bucket = TokenBucket.full(burst=3, rate=2, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.5)  # one earned in half a second at 2 a second
    assert not bucket.take(0.5)
    assert [bucket.take(100.0) for _ in range(4)] == [True, True, True, False]  # never > burst


def test_the_parts_of_reflex_socketio_and_engineio_the_budget_uses():
    """Every part the budget relies on beyond the libraries' documented interface."""
    # python-socketio: a namespace's trigger_event dispatches every event of it
    # (documented), and the server finds a socket's Engine.IO session and its environ.
    assert inspect.iscoroutinefunction(socketio.AsyncNamespace.trigger_event)
    assert callable(socketio.AsyncServer.get_environ)
    assert callable(socketio.AsyncManager.eio_sid_from_sid)
    # python-engineio: the server's sessions by id, its disconnect, and a session's send
    # queue, whose None ends the writer that then closes the websocket.
    server = engineio.AsyncServer(async_mode="asgi")
    assert server.sockets == {}
    assert inspect.iscoroutinefunction(engineio.AsyncServer.disconnect)
    assert "packets == [None]" in inspect.getsource(engineio.async_socket.AsyncSocket.poll)
    assert "await ws.close()" in inspect.getsource(
        engineio.async_socket.AsyncSocket._websocket_handler
    )
    # Reflex: the namespace queues a page's event with its app's event processor, whose
    # enqueue hands back the event's future; the processor's instance takes a wrapper.
    assert ".event_processor.enqueue(token, event)" in inspect.getsource(EventNamespace.on_event)
    assert isinstance(App.event_processor, property)
    assert "EventFuture" in str(inspect.signature(EventProcessor.enqueue).return_annotation)
    assert issubclass(EventFuture, asyncio.Future)
    processor = BaseStateEventProcessor()
    processor.enqueue = processor.enqueue  # an instance attribute: not slotted
    assert "sid_to_token" in dir(EventNamespace)
    # A cancelled event is skipped when its turn comes, one call deep for each in a row:
    # the reason a socket may hold at most MAX_BURST waiting (web/socket_budget).
    skip = inspect.getsource(EventProcessor._dispatch_next_for_token)
    assert "future.cancelled()" in skip and "self._dispatch_next_for_token(token)" in skip
    assert socket_budget.MAX_BURST < 900
    # The app's namespace has the budget in front of every event.
    dispatch = prettyscore_app.app.event_namespace.trigger_event
    assert dispatch.__qualname__.startswith(SocketBudget.install.__qualname__)
    assert dataclasses.is_dataclass(TokenBucket)
