"""Redis and PostgreSQL restarted under load: members stay signed in, see a message for
what failed, and the app comes back by itself.

The app runs as in production on PostgreSQL and Redis (Reflex's state manager, the chat's
live channel, the rate limits) with two workers, on PRIVATE servers started for this file
(``tests/helpers/private_services.py``): the machine's shared ones are never touched.

Simulated members (``tests/perf/load_driver.py``: Reflex's own websocket protocol, learnt
from a real Chromium session) keep chatting while one service is killed (Redis: SIGKILL,
every key lost; PostgreSQL: an immediate stop, i.e. a crash), kept down a few seconds and
started again on the same port. A member in a real browser is signed in throughout. What
a person would notice is checked:

- every event sent during the outage either went through or was answered with something
  the member sees (an error toast; after Redis lost the state, being sent back to the
  page); none hangs without a word. The browser shows the outage message; a page opened
  during the outage is not blank;
- nobody is signed out: the browser keeps its session cookies and still opens its
  dashboard as itself; every simulated member sends as themselves again;
- the app, never restarted, serves again: messages, a new sign-in and page loads work.

Figures (outage seconds, events failed during the outage and how, time to recovery) are
printed, never asserted: the machine is shared. Runs in the browser phase (``e2e``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import json
import re
import threading
import time
import urllib.request
import uuid

import pytest
import reflex.constants
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from prettyscore.core import messages
from tests.e2e import flows
from tests.fixtures.browser import DEFAULT_TIMEOUT_MS, DEFAULT_VIEWPORT
from tests.helpers import private_services
from tests.helpers.app_server import AppServer, AppServerError, running_app
from tests.perf import load_driver as driver

# One test process starts the app on private Redis and PostgreSQL for the whole file.
pytestmark = [pytest.mark.e2e, pytest.mark.alone, pytest.mark.xdist_group("service_restarts")]

PASSWORD = "secret12"
SIMULATED_MEMBERS = 6  # three pairs, each with an approved paid chat between them
SEND_PAUSE_SECONDS = 0.3
#: An event with no answer by then counts as a silent hang. Above Reflex's 10 s lock
#: expiry: a state lock left behind by a cancelled event (Reflex cancels a page's pending
#: on_load chain when the page navigates again) holds others back until it expires.
SILENT_SECONDS = 15.0
OUTAGE_SECONDS = 3.0
#: The app must come back by itself within this bound: a correctness limit far above
#: what it takes (the figure printed is the measured time), not a timing assertion.
RECOVERY_BOUND_SECONDS = 45.0
RECONNECT_PAUSE_SECONDS = 0.5
REDIRECT_HOPS = 4
BROWSER_SEND_TRIES = 4
CHAT_ROUTE_ARG = "chat_request_id"
CHAT_STATE = driver.CHAT_STATE


# --- the stack: private services and the app on them -------------------------------------


@pytest.fixture(scope="module")
def services():
    """A private Redis and a private PostgreSQL, for this file only."""
    reason = private_services.missing_redis() or private_services.missing_postgres()
    if reason:
        pytest.skip(reason)
    with private_services.private_redis() as redis, private_services.private_postgres() as pg:
        yield redis, pg


@pytest.fixture(scope="module")
def stack(services, tmp_path_factory):
    """The app on the private services, with two workers (Redis makes that possible)."""
    redis, postgres = services
    database_url = postgres.create_database("prettyscore")
    run_dir = tmp_path_factory.mktemp("service-restarts")
    try:
        with running_app(
            "service-restarts",
            run_dir,
            database_url=database_url,
            redis_url=redis.url,
        ) as server:
            print(f"\n[restarts] app serving at {server.base_url} after "
                  f"{server.startup_seconds:.0f} s (log: {server.log_path})")  # fmt: skip
            yield server
    except AppServerError as error:
        pytest.fail(str(error), pytrace=False)


def _members(server: AppServer, count: int) -> list[tuple[str, str]]:
    """``count`` members chatting in pairs: (email, chat id) each."""
    found = flows.chatting_members(server, count, PASSWORD, "restart")
    return [(email, str(request_id)) for email, request_id in found]


@dataclasses.dataclass
class BrowserMember:
    """The member in Chromium: signed in, their chat open."""

    page: Page
    email: str
    chat_id: str
    partner: str  # the other member of the chat, who watches it without typing
    protocol: driver.Protocol


@pytest.fixture(scope="module")
def browser_member(stack, browser):
    """A member signs in in Chromium and sends a chat message; the frames their browser
    sends teach the simulated members this build's protocol."""
    (email, chat_id), (partner, _) = _members(stack, 2)
    context = browser.new_context(base_url=stack.base_url, viewport=DEFAULT_VIEWPORT)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    page = context.new_page()
    sent: list = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(frame)))
    try:
        flows.open_page(page, stack.url("/auth"))
        flows.sign_in(page, email, PASSWORD)
        flows.wait_for_path(page, "/dashboard")
        flows.open_page(page, stack.url(f"/messages/{chat_id}"))
        assert _send_in_browser(page, "hello before the restarts", tries=1) == 1
        frames = [frame for frame in sent if isinstance(frame, str)]
        protocol = driver.learn_protocol(frames, reflex.constants.Reflex.VERSION)
        yield BrowserMember(page, email, chat_id, partner, protocol)
    finally:
        context.close()


# --- what the browser member does ------------------------------------------------------------


def _type_and_send(page: Page, text: str) -> None:
    field = page.get_by_test_id("chat-input")
    field.fill(text)
    field.press("Enter")


def _send_in_browser(page: Page, text: str, tries: int = BROWSER_SEND_TRIES) -> int | None:
    """Send ``text`` in the open chat as a person would: type, Enter, look for it; if the
    page was reloaded under them meanwhile, wait for it and type again. The try that
    worked, or None."""
    for attempt in range(1, tries + 1):
        flows.wait_until_ready(page)
        _type_and_send(page, text)
        bubble = page.get_by_test_id("chat-box").get_by_text(text)
        try:
            bubble.wait_for(timeout=5_000)
            return attempt
        except PlaywrightTimeoutError:  # not there (yet)
            continue
    return None


def _session_cookies(page: Page) -> dict[str, str]:
    return {
        cookie["name"]: cookie["value"]
        for cookie in page.context.cookies()
        if cookie["name"] in ("ps_access_token", "ps_browser") and cookie["value"]
    }


def _page_during_outage(browser, server: AppServer) -> str:
    """A visitor opens the home page during the outage: what their page shows (text)."""
    context = browser.new_context(base_url=server.base_url, viewport=DEFAULT_VIEWPORT)
    try:
        page = context.new_page()
        page.goto(server.url("/"), timeout=DEFAULT_TIMEOUT_MS)
        page.wait_for_timeout(1_500)  # what a person sees after a moment
        return page.locator("body").inner_text(timeout=DEFAULT_TIMEOUT_MS)
    finally:
        context.close()


# --- simulated members under load ---------------------------------------------------------


@dataclasses.dataclass
class Outcome:
    """One chat message a simulated member sent, and what came back."""

    user: int
    sent_at: float
    seconds: float
    result: str  # ok, message, bounced (sent back to the page), signed out, silent, disconnected
    detail: str = ""


_TOAST_TEXT = re.compile(r'\["(?:error|warning|info|success)"\]\(("(?:[^"\\]|\\.)*")')


def _toasts(update: dict) -> list[str]:
    """The texts of the toasts an update asks the page to show."""
    found = []
    for event in update.get("events") or []:
        function = str((event.get("payload") or {}).get("function", ""))
        if event.get("name") == "_call_function" and "__toast" in function:
            match = _TOAST_TEXT.search(function)
            found.append(json.loads(match.group(1)) if match else function[:80])
    return found


def _asks_reload(update: dict) -> bool:
    """Whether an update asks the page to reload itself (a script calling reload())."""
    return any(
        event.get("name") == "_call_script"
        and "location.reload()" in str((event.get("payload") or {}).get("javascript_code"))
        for event in update.get("events") or []
    )


def _redirect(update: dict) -> str | None:
    """Where an update sends the page (``rx.redirect``), if anywhere."""
    for event in update.get("events") or []:
        if event.get("name") == "_redirect":
            return str((event.get("payload") or {}).get("path", ""))
    return None


async def _follow_redirects(user: driver.ReflexUser, after: int) -> str:
    """Follow the redirects received since update ``after`` as the browser's router does
    (each navigation sends the browser's cookies, then the page's on_load); the path the
    page ends on."""
    for _ in range(REDIRECT_HOPS):
        if user.pathname.startswith("/auth"):  # a member with a session is sent on
            with contextlib.suppress(driver.DriverError):
                await user.wait_for(_redirect, after=after, timeout=SILENT_SECONDS)
        targets = [t for update in user.updates_since(after) if (t := _redirect(update))]
        if not targets:
            break
        target, route_args = targets[-1], {}
        if target.startswith("/messages/"):
            route_args[CHAT_ROUTE_ARG] = target.partition("?")[0].rstrip("/").rsplit("/", 1)[1]
        after = user.update_count
        await user.navigate(target, query=route_args, kind="follow redirect", timeout=30)
    return user.pathname


class Load:
    """Simulated members chatting non-stop, on their own thread's event loop."""

    def __init__(self, server: AppServer, protocol: driver.Protocol, members, watcher):
        self.server, self.protocol, self.members = server, protocol, members
        self.watcher = watcher  # (email, chat id): a member who keeps a chat open, silent
        self.watcher_reloads = 0
        self._watcher_lines = ""
        self.metrics = driver.Metrics()
        self.outcomes: list[Outcome] = []
        self.refused_reconnects = 0
        self._stop = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._run: concurrent.futures.Future | None = None

    # -- from the test's thread ---------------------------------------------------------
    def start(self) -> None:
        self._thread.start()
        self._run = asyncio.run_coroutine_threadsafe(self._everyone(), self._loop)

    def stop(self) -> None:
        self._stop.set()
        try:
            self._run.result(timeout=SILENT_SECONDS * 3)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)

    def call(self, coroutine, timeout: float = 60):
        """Run ``coroutine`` on the load's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def between(self, start: float, end: float = float("inf")) -> list[Outcome]:
        return [o for o in list(self.outcomes) if start <= o.sent_at <= end]

    def all_sending_after(self, moment: float, bound: float) -> float | None:
        """Seconds from ``moment`` until every member had a message go through that was
        sent after it; None if ``bound`` passed first."""
        deadline = time.monotonic() + bound
        while time.monotonic() < deadline:
            done: dict[int, float] = {}
            for outcome in self.between(moment):
                if outcome.result == "ok":
                    end = outcome.sent_at + outcome.seconds
                    done[outcome.user] = min(done.get(outcome.user, end), end)
            if len(done) == len(self.members):
                return max(done.values()) - moment
            time.sleep(0.2)
        return None

    def watcher_sees(self, text: str, bound: float) -> float | None:
        """Seconds until the silent watcher's chat shows ``text``; None if ``bound``
        passed first."""
        started = time.monotonic()
        while time.monotonic() - started < bound:
            if text in self._watcher_lines:
                return time.monotonic() - started
            time.sleep(0.1)
        return None

    # -- on the load's loop ----------------------------------------------------------------
    async def _everyone(self) -> None:
        members = (self._member(index) for index in range(len(self.members)))
        await asyncio.gather(self._watch(*self.watcher), *members)

    async def _watch(self, email: str, chat_id: str) -> None:
        """A member with the chat open who types nothing: what their page shows, kept
        up to date as the browser does (reloading when the page asks, reconnecting)."""
        user = driver.ReflexUser(self.server.base_url, self.protocol, self.metrics)
        try:
            await driver.sign_in(user, email, PASSWORD)
            await user.navigate(f"/messages/{chat_id}", query={CHAT_ROUTE_ARG: chat_id})
            seen = user.update_count
            while not self._stop.is_set():
                reload = any(_asks_reload(update) for update in user.updates_since(seen))
                seen = user.update_count
                if reload or user.closed_reason:
                    self.watcher_reloads += reload
                    user = await self._reconnect(user, chat_id)
                    seen = 0
                self._watcher_lines = json.dumps(user.var(CHAT_STATE, "lines", []))
                await asyncio.sleep(0.1)
        finally:
            await user.close()

    async def _member(self, index: int) -> None:
        email, chat_id = self.members[index]
        user = driver.ReflexUser(self.server.base_url, self.protocol, self.metrics)
        try:
            await driver.sign_in(user, email, PASSWORD)
            await user.navigate(f"/messages/{chat_id}", query={CHAT_ROUTE_ARG: chat_id})
            number = 0
            while not self._stop.is_set():
                if user.closed_reason:
                    user = await self._reconnect(user, chat_id)
                    continue
                number += 1
                outcome = await self._send(index, user, f"load {index}-{number} {uuid.uuid4()}")
                self.outcomes.append(outcome)
                if outcome.result == "signed out":
                    return  # a person would have to sign in again: the test fails on it
                await asyncio.sleep(SEND_PAUSE_SECONDS)
        finally:
            await user.close()

    async def _reconnect(self, old: driver.ReflexUser, chat_id: str) -> driver.ReflexUser:
        """What the browser does when its socket drops: connect again, with its cookies."""
        await old.close()
        while not self._stop.is_set():
            user = driver.ReflexUser(self.server.base_url, self.protocol, self.metrics)
            user.token, user.storage = old.token, dict(old.storage)
            user.browser_key = old.browser_key  # the same browser, so the same key
            try:
                await user.connect(f"/messages/{chat_id}", query={CHAT_ROUTE_ARG: chat_id})
                return user
            except (driver.DriverError, OSError, TimeoutError):
                self.refused_reconnects += 1
                await user.close()
                await asyncio.sleep(RECONNECT_PAUSE_SECONDS)
        return old

    async def _send(self, index: int, user: driver.ReflexUser, text: str) -> Outcome:
        """Send one message (the form's submit) and sort out what the member saw."""

        def shown(update: dict) -> bool:
            return text in json.dumps(update.get("delta") or {})

        def answered(update: dict) -> bool:
            return shown(update) or bool(_toasts(update)) or _redirect(update) is not None

        started = time.monotonic()
        form = {"form_data": {"__reflex_form_data__": [["content", text]]}}
        outcome = Outcome(index, started, 0.0, "ok")
        try:
            seen = await user.emit(self.protocol.handler("send"), form)
            update = await user.wait_for(answered, after=seen, timeout=SILENT_SECONDS)
            if not shown(update) and (toasts := _toasts(update)):
                outcome.result, outcome.detail = "message", toasts[0]
            elif not shown(update):
                path = await _follow_redirects(user, seen)
                outcome.result = "signed out" if path.startswith("/auth") else "bounced"
                outcome.detail = f"{_redirect(update)} -> {path}"
        except driver.DriverError as error:
            timed_out = "no awaited update" in str(error)
            outcome.result = "silent" if timed_out else "disconnected"
            outcome.detail = str(error)[:120]
        outcome.seconds = time.monotonic() - started
        return outcome


@pytest.fixture
def load(stack, browser_member):
    """Simulated members chatting from before the test's fault until its end."""
    watcher = (browser_member.partner, browser_member.chat_id)
    running = Load(stack, browser_member.protocol, _members(stack, SIMULATED_MEMBERS), watcher)
    started = time.monotonic()
    running.start()
    try:
        warm = running.all_sending_after(started, RECOVERY_BOUND_SECONDS)
        assert warm is not None, "the simulated members never got going"
        print(f"\n[load] {SIMULATED_MEMBERS} simulated members signed in and chatting "
              f"after {warm:.1f} s")  # fmt: skip
        yield running
    finally:
        running.stop()


# --- checks after the service is back --------------------------------------------------------


async def _fresh_sign_in(server: AppServer, protocol: driver.Protocol, email: str) -> float:
    """A member who was not connected opens /auth, signs in, and opens /dashboard."""
    user = driver.ReflexUser(server.base_url, protocol, driver.Metrics())
    started = time.monotonic()
    try:
        await driver.sign_in(user, email, PASSWORD)
        await user.navigate("/dashboard/", kind="open /dashboard")
        return time.monotonic() - started
    finally:
        await user.close()


def _home_answers(server: AppServer) -> bool:
    try:
        with urllib.request.urlopen(server.url("/"), timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def _count(outcomes: list[Outcome]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.result] = counts.get(outcome.result, 0) + 1
    return counts


def _median_ms(outcomes: list[Outcome]) -> float:
    values = sorted(o.seconds for o in outcomes if o.result == "ok")
    return 1000 * values[len(values) // 2] if values else float("nan")


@dataclasses.dataclass
class Figures:
    """What one fault did, as printed."""

    name: str
    outage: float = 0.0
    browser_message_after: float | None = None
    outage_page_text: str = ""
    recovery: float | None = None
    browser_tries: int | None = None
    browser_sent_after: float = 0.0
    watcher_saw: float | None = None
    fresh_sign_in: float = 0.0

    def report(self, load: Load, down_at: float, up_at: float) -> None:
        during, after = load.between(down_at, up_at), load.between(up_at)
        slowest = max((o.seconds for o in during + after), default=0.0)
        page = f"{len(self.outage_page_text)} characters" + (
            ", the outage message among them" if _outage_shown(self.outage_page_text) else ""
        )
        lines = [
            f"outage {self.outage:.1f} s; {len(during)} messages sent during it: "
            f"{_listed(_count(during))}; {load.refused_reconnects} refused reconnects",
            f"the browser showed the outage message {_seconds(self.browser_message_after)} "
            f"into the outage; a page opened during it showed {page}",
            f"after the service returned: every simulated member sending again "
            f"{_seconds(self.recovery)}; the browser's message shown after "
            f"{self.browser_sent_after:.1f} s (try {self.browser_tries}); its silent partner "
            f"saw it {_seconds(self.watcher_saw)} later ({load.watcher_reloads} reloads); "
            f"a fresh sign-in took {self.fresh_sign_in:.1f} s",
            f"messages after it: {_listed(_count(after))}; median send "
            f"{_median_ms(load.between(0, down_at)):.0f} ms before, {_median_ms(after):.0f} ms "
            f"after; slowest answer from the outage on: {slowest:.1f} s",
        ]
        print("\n" + "\n".join(f"[{self.name}] {line}" for line in lines))
        failed_after = [o for o in after if o.result != "ok"]
        for outcome in [o for o in during if o.result != "ok"][:6] + failed_after[:6]:
            print(f"      member {outcome.user} +{outcome.sent_at - down_at:5.1f} s: "
                  f"{outcome.result} ({outcome.seconds:.1f} s) {outcome.detail[:100]}")  # fmt: skip


def _seconds(value: float | None) -> str:
    return "NEVER" if value is None else f"{value:.1f} s"


def _listed(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items())) or "none"


def _outage_shown(text: str) -> bool:
    return messages.SERVICE_BRIEFLY_UNAVAILABLE in text


def _outage_and_recovery(name, browser, server, load: Load, member: BrowserMember, service):
    """Kill ``service`` under load, start it again, and check what members notice."""
    assert _session_cookies(member.page), "the browser member is not signed in"
    figures = Figures(name)
    down_at = time.monotonic()
    _outage(figures, browser, server, member.page, service)
    up_at = down_at + figures.outage
    _after_restart(figures, server, load, member, up_at)
    figures.report(load, down_at, up_at)
    _check(figures, load, member, server, down_at)


def _outage(figures: Figures, browser, server: AppServer, page: Page, service) -> None:
    """Kill the service; while it is down the browser member sends a message and a
    visitor opens the home page; start it again (``figures.outage`` from kill to back)."""
    down_at = time.monotonic()
    service.kill()
    _type_and_send(page, f"sent during the {figures.name} outage")
    with contextlib.suppress(PlaywrightTimeoutError):  # a figure; _check says what it means
        toast = page.get_by_text(messages.SERVICE_BRIEFLY_UNAVAILABLE).first
        toast.wait_for(timeout=SILENT_SECONDS * 1000)
        figures.browser_message_after = time.monotonic() - down_at
    figures.outage_page_text = _page_during_outage(browser, server)
    time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - down_at)))
    service.start()
    figures.outage = time.monotonic() - down_at


def _after_restart(figures: Figures, server, load: Load, member: BrowserMember, up_at) -> None:
    """At once, as a person would: the same tab sends again (its silent partner should
    see it), while the simulated members go on; then someone signs in afresh."""
    sent_text = f"sent after the {figures.name} restart"
    figures.browser_tries = _send_in_browser(member.page, sent_text)
    figures.browser_sent_after = time.monotonic() - up_at
    figures.watcher_saw = load.watcher_sees(sent_text, RECOVERY_BOUND_SECONDS)
    figures.recovery = load.all_sending_after(up_at, RECOVERY_BOUND_SECONDS)
    (fresh_email, _), *_ = _members(server, 2)
    figures.fresh_sign_in = load.call(_fresh_sign_in(server, member.protocol, fresh_email))


def _check(figures: Figures, load: Load, member: BrowserMember, server, down_at: float):
    """What every member must have noticed (and not noticed)."""
    outcomes = load.between(down_at)
    assert not [o for o in outcomes if o.result == "silent"], "an event hung without a word"
    assert not [o for o in outcomes if o.result == "signed out"], "a member was signed out"
    assert figures.browser_message_after is not None, "the browser showed no outage message"
    assert figures.outage_page_text.strip(), "a page opened during the outage was blank"
    assert figures.recovery is not None, "the simulated members could not send again"
    assert figures.browser_tries is not None, "the browser member could not send again"
    assert figures.watcher_saw is not None, "a chat left open did not show new messages"

    page = member.page
    assert _session_cookies(page), "the browser lost its session cookies"
    flows.open_page(page, server.url("/dashboard"))
    expect(page.get_by_test_id("dashboard-email")).to_have_text(member.email)
    assert _home_answers(server), "the home page does not load"
    flows.open_page(page, server.url(f"/messages/{member.chat_id}"))  # for the next test


def test_redis_restart_under_load(browser, stack, services, browser_member, load):
    """Redis killed (every key lost: Reflex's states, token links, rate-limit counts)."""
    redis, _ = services
    _outage_and_recovery("redis", browser, stack, load, browser_member, redis)


def test_postgres_restart_under_load(browser, stack, services, browser_member, load):
    """PostgreSQL crashed (an immediate stop; it replays its log at start)."""
    _, postgres = services
    _outage_and_recovery("postgres", browser, stack, load, browser_member, postgres)
