"""A load driver that speaks Reflex 0.10.1's own protocol, as the compiled frontend does.

Each simulated user is what one browser tab is to the backend:

* a Socket.IO (v5) session over an Engine.IO (v4) websocket to ``/_event/``, opened with
  the tab's token in the query string (``?token=...&EIO=4&transport=websocket``), the
  Reflex version as websocket subprotocol, and the tab's first event (the hydrate) in the
  CONNECT packet's auth (``{"event": ..., "state_schema": ...}``), as ``state.js`` does;
* events sent as ``42["event", {name, payload, router_data}]`` with ``name`` the full
  state path and handler (``reflex___state____state.<substate>....<handler>``);
* updates received as ``42["event", {delta, events}]``: ``delta`` maps substate paths to
  the vars that changed, ``events`` are what the frontend must do next (a redirect, a
  toast, another backend event);
* uploads as the browser's XHR: a multipart POST to ``/_upload`` with the headers
  ``Reflex-Client-Token`` and ``Reflex-Event-Handler``; the handler's updates stream back
  in the response body, one JSON object per line.

The websocket runs on ``wsproto`` (installed with Reflex) over asyncio streams, so
hundreds of users fit in one event loop with no threads. Frame names and shapes were
learnt from a real Chromium session recorded with Playwright
(``record_protocol`` in ``tests/perf/test_load.py`` relearns them at each run).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import statistics
import time
import urllib.parse
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import wsproto
import wsproto.events as ws_events

from prettyscore.web.browser_key import BROWSER_COOKIE, RENEW_PATH
from tests.helpers.browser_keys import ticket_in

#: Reflex's root state, the socket.io namespace, and the internal events a page sends.
ROOT_STATE = "reflex___state____state"
NAMESPACE = "/_event"
HYDRATE = f"{ROOT_STATE}.hydrate_and_load"
ON_LOAD_INTERNAL = f"{ROOT_STATE}.reflex___state____on_load_internal_state.on_load_internal"
UPDATE_VARS_INTERNAL = (
    f"{ROOT_STATE}.reflex___state____update_vars_internal_state.update_vars_internal"
)

Predicate = Callable[[dict], bool]
_MISSING = object()


class DriverError(RuntimeError):
    """The server refused or dropped a simulated user, or answered too late."""


# --- a websocket client on wsproto ---------------------------------------------------


class WebSocket:
    """A minimal asyncio websocket client: text frames in and out, nothing else."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn):
        self._reader, self._writer, self._conn = reader, writer, conn
        self._pending: list[str] = []
        self._partial: list[str] = []
        self.closed = False

    @classmethod
    async def connect(
        cls, host: str, port: int, target: str, *, subprotocols=(), headers=()
    ) -> WebSocket:
        reader, writer = await asyncio.open_connection(host, port)
        conn = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
        writer.write(
            conn.send(
                ws_events.Request(
                    host=f"{host}:{port}",
                    target=target,
                    subprotocols=list(subprotocols),
                    extra_headers=list(headers),
                )
            )
        )
        await writer.drain()
        socket = cls(reader, writer, conn)
        while True:
            events = await socket._events()
            for index, event in enumerate(events):
                if isinstance(event, ws_events.AcceptConnection):
                    # The server's first message may arrive in the same read.
                    socket._handle(events[index + 1 :])
                    return socket
                if isinstance(event, ws_events.RejectConnection):
                    writer.close()
                    raise DriverError(f"websocket refused with HTTP {event.status_code}")

    async def _events(self) -> list:
        data = await self._reader.read(65536)
        if not data:
            self.closed = True
            raise DriverError("websocket closed by the server")
        self._conn.receive_data(data)
        return list(self._conn.events())

    def _handle(self, events: list) -> None:
        """Queue whole text messages; answer pings; raise on a close."""
        for event in events:
            if isinstance(event, ws_events.TextMessage):
                self._partial.append(event.data)
                if event.message_finished:
                    self._pending.append("".join(self._partial))
                    self._partial.clear()
            elif isinstance(event, ws_events.Ping):
                self._writer.write(self._conn.send(event.response()))
            elif isinstance(event, ws_events.CloseConnection):
                self.closed = True
                with contextlib.suppress(Exception):
                    self._writer.write(self._conn.send(event.response()))
                raise DriverError(f"websocket closed: {event.code} {event.reason}")

    async def send(self, text: str) -> None:
        self._writer.write(self._conn.send(ws_events.Message(data=text)))
        await self._writer.drain()

    async def receive(self) -> str:
        """The next whole text message (pings are answered, binary frames ignored)."""
        while not self._pending:
            self._handle(await self._events())
        return self._pending.pop(0)

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(Exception):
                self._writer.write(self._conn.send(ws_events.CloseConnection(code=1000)))
                await self._writer.drain()
        self._writer.close()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()


# --- one simulated browser tab ---------------------------------------------------------


@dataclass
class Metrics:
    """Latencies (seconds) and failures, shared by every user of one run."""

    errors: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0
    # Each latency with its kind and when it ended (monotonic seconds, in order): the
    # tail of a level sits where users arrive, and only the timeline shows it.
    ended: list[tuple[float, str, float]] = field(default_factory=list)

    def record(self, kind: str, seconds: float) -> None:
        self.ended.append((time.monotonic(), kind, seconds))

    @property
    def requests(self) -> int:
        return len(self.ended)

    @property
    def latencies(self) -> dict[str, list[float]]:
        """The latencies of each kind, in the order they ended."""
        by_kind: dict[str, list[float]] = {}
        for _, kind, value in self.ended:
            by_kind.setdefault(kind, []).append(value)
        return by_kind

    def windows(self, seconds: float, leave_out=()) -> list[tuple[float, list[float]]]:
        """The latencies (but the kinds in ``leave_out``) by when they ended: one list per
        ``seconds`` from the first, each with its start (seconds into the run)."""
        if not self.ended:
            return []
        first = self.ended[0][0]
        buckets: dict[int, list[float]] = {}
        for stamp, kind, value in self.ended:
            if kind not in leave_out:
                buckets.setdefault(int((stamp - first) // seconds), []).append(value)
        return [(index * seconds, values) for index, values in sorted(buckets.items())]

    def all_latencies(self, leave_out=()) -> list[float]:
        """Every latency, but those of the kinds in ``leave_out``."""
        return [value for _, kind, value in self.ended if kind not in leave_out]

    @staticmethod
    def percentile(values: list[float], fraction: float) -> float:
        if not values:
            return float("nan")
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]

    def summary(self) -> dict[str, dict[str, float]]:
        rows = {}
        for kind, values in sorted(self.latencies.items()):
            rows[kind] = {
                "n": len(values),
                "median_ms": 1000 * statistics.median(values),
                "p95_ms": 1000 * self.percentile(values, 0.95),
                "max_ms": 1000 * max(values),
            }
        return rows


@dataclass
class Protocol:
    """What one build of the app expects from its frontend, learnt from a real session.

    ``state_schema`` and ``hashes`` are compiled into the frontend (the CONNECT auth and
    the first hydrate carry them); ``handlers`` maps a handler's short name (``analyse``)
    to its full state path; ``client_storage`` lists the fully qualified vars the browser
    keeps in cookies or storage and sends back on every navigation and reconnect.
    """

    state_schema: str
    hashes: list[str]
    handlers: dict[str, str]
    client_storage: list[str]
    reflex_version: str = ""
    event_path: str = "/_event"
    upload_path: str = "/_upload"

    def handler(self, short_name: str) -> str:
        try:
            return self.handlers[short_name]
        except KeyError:
            raise DriverError(f"the recorded session never sent {short_name!r}") from None


def socketio_packet(text: str) -> tuple[str, Any]:
    """Split ``42/_event,[...]`` into its type (``42``) and decoded data (or None)."""
    kind = text[:2]
    rest = text[2:]
    if rest.startswith(NAMESPACE):
        rest = rest[len(NAMESPACE) :].lstrip(",")
    return kind, (json.loads(rest) if rest else None)


def learn_protocol(
    sent_frames: list[str], reflex_version: str, upload_handlers: list[str] = ()
) -> Protocol:
    """The Protocol of the build whose websocket frames (sent by a real browser) these are;
    ``upload_handlers``: the ``Reflex-Event-Handler`` headers of its uploads."""
    schema, hashes, storage = "", [], set()
    handlers = {name.rsplit(".", 1)[1]: name for name in upload_handlers}
    for text in sent_frames:
        kind, data = socketio_packet(text) if text[:1] == "4" else ("", None)
        if kind == "40" and isinstance(data, dict):
            schema = data.get("state_schema") or schema
            payload = (data.get("event") or {}).get("payload") or {}
            hashes = payload.get("hashes") or hashes
            storage.update((payload.get("vars") or {}).keys())
        elif kind == "42" and isinstance(data, list) and data[0] == "event":
            name = data[1]["name"]
            handlers[name.rsplit(".", 1)[1]] = name
            if name == UPDATE_VARS_INTERNAL:
                storage.update(((data[1].get("payload") or {}).get("vars") or {}).keys())
    if not schema or not hashes:
        raise DriverError("the recording holds no hydrate (no CONNECT packet with an event)")
    return Protocol(schema, hashes, handlers, sorted(storage), reflex_version)


def http_client(timeout: float = 30.0) -> httpx.AsyncClient:
    """A client for one of a tab's plain-HTTP requests (the page, a new key, an upload).

    The app is served over http:// here, so the client builds no certificate store: with
    it, each client cost about 26 ms of CPU, and at 10 arriving users a second that
    alone took a quarter of this 2-core machine from the app being measured."""
    return httpx.AsyncClient(timeout=timeout, verify=False, trust_env=False)


class ReflexUser:
    """One browser tab: its token, its socket, the state the server has sent it so far.

    ``state`` holds the merged deltas by substate path (var names as sent, with Reflex's
    ``_rx_state_`` suffix); ``storage`` the client-storage values (cookies) the server set.
    """

    def __init__(self, base_url: str, protocol: Protocol, metrics: Metrics):
        parsed = urllib.parse.urlsplit(base_url)
        self.base_url = base_url.rstrip("/")
        self.host, self.port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self.protocol = protocol
        self.metrics = metrics
        self.token = str(uuid.uuid4())
        # The key a browser holds in its HttpOnly cookie (prettyscore.web.browser_key):
        # given by the server's first answer, replaced at sign-in, sent with the socket's
        # handshake and uploads, kept across reconnects.
        self.browser_key = ""
        self.storage: dict[str, Any] = {}
        self.state: dict[str, dict] = {}
        self.pathname = "/"
        self.search = ""  # the URL's query string, "?next=..." or empty
        self.query: dict[str, str] = {}
        self._socket: WebSocket | None = None
        self._reader: asyncio.Task | None = None
        self._updates: list[dict] = []
        self._changed = asyncio.Event()
        self._connected = asyncio.Event()
        self.closed_reason = ""

    # -- connection ------------------------------------------------------------
    async def connect(self, path: str = "/", *, query=None, timeout: float = 30.0) -> float:
        """Open the socket as a page load does; returns the seconds until hydrated."""
        await self._load_page()
        self._go_to(path, query)
        params = urllib.parse.urlencode({"token": self.token, "EIO": "4", "transport": "websocket"})
        started = time.monotonic()
        self._socket = await WebSocket.connect(
            self.host,
            self.port,
            f"{self.protocol.event_path}/?{params}",
            subprotocols=[self.protocol.reflex_version] if self.protocol.reflex_version else [],
            headers=[
                ("Origin", self.base_url),
                ("User-Agent", "prettyscore-load-driver"),
                ("Cookie", self._cookie()),
            ],
        )
        opening = await asyncio.wait_for(self._socket.receive(), timeout)
        if not opening.startswith("0"):
            raise DriverError(f"no Engine.IO handshake: {opening[:80]}")
        payload: dict[str, Any] = {"hashes": self.protocol.hashes}
        if self.storage:
            payload["vars"] = dict(self.storage)
        hydrate = {"name": HYDRATE, "payload": payload, "router_data": self._router_data()}
        auth = {"event": hydrate, "state_schema": self.protocol.state_schema}
        self._reader = asyncio.create_task(self._read())
        await self._socket.send(f"40{NAMESPACE}," + json.dumps(auth))
        await self.wait_for(hydrated, after=0, timeout=timeout)
        elapsed = time.monotonic() - started
        self.metrics.record("connect+hydrate", elapsed)
        return elapsed

    def _cookie(self) -> str:
        return f"{BROWSER_COOKIE}={self.browser_key}"

    async def _load_page(self) -> None:
        """The page itself, fetched before its socket opens: a browser without a key is
        given one by that answer."""
        if self.browser_key:
            return
        async with http_client() as client:
            response = await client.get(f"{self.base_url}/")
        self.browser_key = response.cookies.get(BROWSER_COOKIE, "")

    async def take_new_key(self, update: dict) -> None:
        """What the page does when signing in or out replaced the browser's key: post the
        ticket it was sent and keep the key the answer sets."""
        for event in update.get("events", []):
            ticket = ticket_in(event.get("name", ""), event.get("payload") or {})
            if not ticket:
                continue
            async with http_client() as client:
                response = await client.post(
                    f"{self.base_url}{RENEW_PATH}",
                    content=ticket,
                    headers={"Origin": self.base_url, "Cookie": self._cookie()},
                )
            if response.status_code != 204:
                raise DriverError(f"the new key was refused: HTTP {response.status_code}")
            self.browser_key = response.cookies[BROWSER_COOKIE]

    def _go_to(self, path: str, query) -> None:
        """Where the tab is: ``path`` may carry a query string (``/auth?next=/x``), as a
        redirect's does; ``query`` adds the route's arguments (``chat_request_id``)."""
        self.pathname, _, search = path.partition("?")
        self.search = f"?{search}" if search else ""
        self.query = {**dict(urllib.parse.parse_qsl(search)), **dict(query or {})}

    def _router_data(self) -> dict:
        data: dict[str, Any] = {"pathname": self.pathname, "asPath": self.pathname + self.search}
        if self.query:
            data["query"] = dict(self.query)
        return data

    async def close(self) -> None:
        if self._socket is not None:
            with contextlib.suppress(Exception):
                await self._socket.send(f"41{NAMESPACE},")
            await self._socket.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader

    async def _read(self) -> None:
        try:
            while True:
                text = await self._socket.receive()
                if text == "2":  # Engine.IO ping: answer as the client must
                    await self._socket.send("3")
                    continue
                kind, data = socketio_packet(text) if text[:1] == "4" else (text[:1], None)
                if kind == "40":
                    self._connected.set()
                elif kind == "44":
                    raise DriverError(f"namespace refused: {text[:200]}")
                elif kind == "42" and isinstance(data, list):
                    self._on_message(data)
                elif kind in ("41", "1"):
                    raise DriverError("the server closed the session")
        except (DriverError, ConnectionError, OSError, ValueError) as error:
            self.closed_reason = str(error) or type(error).__name__
            self._changed.set()

    def _on_message(self, message: list) -> None:
        name, body = message[0], message[1] if len(message) > 1 else None
        if name == "new_token" and isinstance(body, str):
            self.token = body
        elif name == "event" and isinstance(body, dict):
            self._apply(body)

    def _apply(self, update: dict) -> None:
        delta = update.get("delta") or {}
        # As the frontend does: a delta that says "not hydrated" (a state snapshot, with
        # the server's defaults) writes no cookies; the next hydrate sends them.
        keep_storage = delta.get(ROOT_STATE, {}).get("is_hydrated_rx_state_") is False
        for substate, values in delta.items():
            self.state.setdefault(substate, {}).update(values)
            for var, value in values.items():
                if f"{substate}.{var}" in self.protocol.client_storage and not keep_storage:
                    self.storage[f"{substate}.{var}"] = value
        self._updates.append(update)
        self._changed.set()

    # -- waiting for updates --------------------------------------------------------
    @property
    def update_count(self) -> int:
        return len(self._updates)

    def updates_since(self, index: int) -> list[dict]:
        """The updates received from index ``index`` on (see ``update_count``)."""
        return self._updates[index:]

    async def wait_for(self, predicate: Predicate, *, after: int, timeout: float = 30.0) -> dict:
        """The first update at index >= ``after`` that satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        index = after
        while True:
            while index < len(self._updates):
                update = self._updates[index]
                index += 1
                if predicate(update):
                    return update
            if self.closed_reason:
                raise DriverError(self.closed_reason)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DriverError(f"no awaited update within {timeout:.0f} s")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)

    # -- what a page does -------------------------------------------------------------
    async def emit(self, handler: str, payload: dict | None = None) -> int:
        """Send one event as the frontend does; returns the update index to wait after."""
        if self._socket is None or self.closed_reason:
            raise DriverError(self.closed_reason or "not connected")
        seen = len(self._updates)
        event = {"name": handler, "payload": payload or {}, "router_data": self._router_data()}
        await self._socket.send(f"42{NAMESPACE}," + json.dumps(["event", event]))
        return seen

    async def call(
        self,
        kind: str,
        short_name: str,
        payload: dict | None = None,
        *,
        until: Predicate = lambda update: True,
        timeout: float = 30.0,
    ) -> dict:
        """Send an event and wait for the update ``until`` accepts; records the latency."""
        started = time.monotonic()
        seen = await self.emit(self.protocol.handler(short_name), payload)
        update = await self.wait_for(until, after=seen, timeout=timeout)
        self.metrics.record(kind, time.monotonic() - started)
        return update

    async def navigate(self, path: str, *, query=None, kind=None, timeout=30.0) -> dict:
        """A client-side navigation, as the router does it: the browser's storage vars,
        then the new route's on_load events; done when the page is hydrated again."""
        self._go_to(path, query)
        started = time.monotonic()
        if self.storage:
            await self.emit(UPDATE_VARS_INTERNAL, {"vars": dict(self.storage)})
        seen = await self.emit(ON_LOAD_INTERNAL)
        update = await self.wait_for(hydrated, after=seen, timeout=timeout)
        self.metrics.record(kind or f"open {path}", time.monotonic() - started)
        return update

    async def upload(
        self,
        kind: str,
        short_name: str,
        files: list[tuple[str, bytes, str]],
        *,
        until: Predicate = lambda update: True,
        timeout=60.0,
    ) -> dict:
        """POST files to /_upload as the browser's XHR does, then wait for the update
        ``until`` accepts (streamed in the response or sent on the socket)."""
        started = time.monotonic()
        seen = len(self._updates)
        headers = {
            "Reflex-Client-Token": self.token,
            "Reflex-Event-Handler": self.protocol.handler(short_name),
            "Cookie": self._cookie(),
        }
        multipart = [("files", (name, data, mime)) for name, data, mime in files]
        async with http_client(timeout) as client:
            response = await client.post(
                f"http://{self.host}:{self.port}{self.protocol.upload_path}",
                headers=headers,
                files=multipart,
            )
        if response.status_code >= 300:
            raise DriverError(f"upload answered HTTP {response.status_code}")
        for line in response.text.splitlines():
            if line.strip():
                self._apply(json.loads(line))
        update = await self.wait_for(until, after=seen, timeout=timeout)
        self.metrics.record(kind, time.monotonic() - started)
        return update

    # -- reading what came back ------------------------------------------------------
    def var(self, substate_suffix: str, name: str, default=None):
        """A var (short name) of the substate whose path ends with ``substate_suffix``."""
        for path, values in self.state.items():
            if path.endswith(substate_suffix) and f"{name}_rx_state_" in values:
                return values[f"{name}_rx_state_"]
        return default


def hydrated(update: dict) -> bool:
    """The update that ends a hydrate or a navigation's on_load_internal."""
    return (update.get("delta") or {}).get(ROOT_STATE, {}).get("is_hydrated_rx_state_") is True


def has_event(name: str, **payload) -> Predicate:
    """An update that asks the frontend to run ``name`` (e.g. ``_redirect``) with that
    payload (a subset)."""

    def matches(update: dict) -> bool:
        for event in update.get("events") or []:
            if event.get("name") == name and all(
                (event.get("payload") or {}).get(key) == value for key, value in payload.items()
            ):
                return True
        return False

    return matches


def sets_var(substate_suffix: str, name: str, check: Callable[[Any], bool]) -> Predicate:
    """An update whose delta sets ``name`` of that substate to a value ``check`` accepts."""

    def matches(update: dict) -> bool:
        for path, values in (update.get("delta") or {}).items():
            value = values.get(f"{name}_rx_state_", _MISSING)
            if path.endswith(substate_suffix) and value is not _MISSING and check(value):
                return True
        return False

    return matches


# --- what the simulated people do ------------------------------------------------------

SCORE_STATE = "prettyscore___scoring___state____score_state"
CHAT_STATE = "prettyscore___chat___state____chat_state"
AUTH_STATE = "prettyscore___accounts___state____auth_state"


def portrait_jpeg(side: int = 2000, quality: int = 95) -> bytes:
    """A ~2 MB camera-like JPEG of a real face: scikit-image's astronaut, enlarged, with
    sensor-like grain so it compresses as a phone photo does."""
    import io

    import numpy as np
    from PIL import Image
    from skimage import data

    rng = np.random.default_rng(1)
    pixels = Image.fromarray(data.astronaut()).resize((side, side), Image.LANCZOS)
    grainy = np.asarray(pixels).astype(np.int16) + rng.normal(0, 10, (side, side, 3))
    buffer = io.BytesIO()
    Image.fromarray(np.clip(grainy, 0, 255).astype(np.uint8)).save(
        buffer, format="JPEG", quality=quality
    )
    return buffer.getvalue()


class Pacing:
    """How long a simulated person pauses between two actions (reading, choosing, typing):
    uniform between ``low`` and ``high`` seconds, from a seeded generator so a run can be
    repeated; ``Pacing(0, 0)`` sends each action the moment the previous one is answered."""

    def __init__(self, low: float, high: float, seed: int = 0):
        self.low, self.high = low, high
        self._random = random.Random(seed)

    async def pause(self) -> None:
        if self.high > 0:
            await asyncio.sleep(self._random.uniform(self.low, self.high))


NO_PAUSE = Pacing(0, 0)


async def visitor_flow(user: ReflexUser, photo: bytes, pacing: Pacing = NO_PAUSE) -> None:
    """Open home, drop a photo on the hero, 'Get My Score!', and open the results."""
    await user.connect("/")
    await pacing.pause()
    await user.upload(
        "upload photo (home)",
        "upload_from_home",
        [("portrait.jpg", photo, "image/jpeg")],
        until=has_event("_redirect", path="/upload"),
    )
    await user.navigate("/upload")
    await pacing.pause()
    to_results = has_event("_redirect", path="/results")
    await user.call("analyse (to redirect)", "analyse", until=to_results)
    await user.navigate("/results")
    if user.var(SCORE_STATE, "has_result") is not True:
        raise DriverError("the results page shows no result")


async def sign_in(user: ReflexUser, email: str, password: str) -> None:
    """The /auth page's Sign In form, as the browser sends it (one submit)."""
    await user.connect("/auth/")
    form = {"form": {"__reflex_form_data__": [["email", email], ["password", password]]}}
    to_dashboard = has_event("_redirect", path="/dashboard")
    signed_in = await user.call("sign in", "submit_sign_in", form, until=to_dashboard)
    await user.take_new_key(signed_in)


async def member_round(
    user: ReflexUser, request_id: str, messages: int, pacing: Pacing = NO_PAUSE
) -> None:
    """A signed-in member lists My Photos (/dashboard), opens a chat and sends
    ``messages`` messages, pausing as a person does between each."""
    await user.navigate("/dashboard/", kind="open /dashboard")
    await pacing.pause()
    await user.navigate(
        f"/messages/{request_id}", query={"chat_request_id": request_id}, kind="open chat"
    )
    for number in range(messages):
        await pacing.pause()
        text = f"load message {number} {uuid.uuid4().hex[:6]}"
        await user.call("type message", "set_draft", {"value": text})
        form = {"form_data": {"__reflex_form_data__": [["content", text]]}}
        await user.call(
            "send message",
            "send",
            form,
            until=sets_var(CHAT_STATE, "lines", lambda lines, text=text: text in json.dumps(lines)),
        )
