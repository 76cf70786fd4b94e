"""What the soak benchmark's people do in Chromium, step by step, each step timed.

The same steps as the browser tests (``tests/e2e/flows.py``: the same pages, buttons,
test ids and texts), written for Playwright's async API so that one Chromium holds
several people at once, each in a fresh browser context, as a handful of tabs of
strangers would be. A step is what a person does and then waits to see: it is LOST when
what it should show (a page, a score, a message) is not on screen within
``STEP_SECONDS``; the journey stops there and records what the page showed instead.

Three kinds of journey:

* ``visitor``: open /upload, choose a photo, "Get My Score!", the score on /results;
* ``member``: sign in, score a photo the same way, "Save to My Photos", open My Photos
  (the dashboard) from the menu and find the photo there;
* ``chat``: two members sign in, open their chat; one sends a message, both see it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import re
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from playwright.async_api import BrowserContext, Page, expect
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from prettyscore.core import messages
from prettyscore.core.constants import LEADERBOARD_DIALOG_MIN_SCORE
from tests.e2e.flows import member_name

#: A step with nothing to show for it after this long is a lost journey.
STEP_SECONDS = 30.0
#: Steps slower than this are counted apart: a click that "does nothing" for seconds.
SLOW_SECONDS = 8.0
TOASTS = "[data-sonner-toast]"
SCORE_TEXT = re.compile(r"^\d+(\.\d)?/10$")
PASSWORD = "secret12"

VISITOR, MEMBER, CHAT = "visitor", "member", "chat"
KINDS = (VISITOR, MEMBER, CHAT)


# --- what a journey records ---------------------------------------------------------------


@dataclasses.dataclass
class Lost:
    """Where a journey was lost (or a step still waited after SLOW_SECONDS), and what
    the page showed at that moment."""

    step: str
    after_seconds: float
    reason: str  # "timeout" (nothing shown), "slow", or the error (a navigation refused)
    url: str = ""
    toasts: list[str] = dataclasses.field(default_factory=list)
    token: str = ""  # the tab's Reflex token: its state's key, in the server's log
    locks: list[str] = dataclasses.field(default_factory=list)  # its state locks in Redis
    screenshot: str = ""


@dataclasses.dataclass
class Journey:
    index: int
    kind: str
    started: float = 0.0  # seconds since the run began
    ended: float = 0.0
    steps: list[tuple[str, float]] = dataclasses.field(default_factory=list)
    lost: Lost | None = None
    slow: list[Lost] = dataclasses.field(default_factory=list)  # looks at slow steps


class JourneyLost(Exception):
    def __init__(self, lost: Lost):
        super().__init__(f"{lost.step}: {lost.reason}")
        self.lost = lost


class Budget:
    """What is left of a step's STEP_SECONDS, for Playwright's timeouts (ms)."""

    def __init__(self, started: float):
        self.deadline = started + STEP_SECONDS

    def ms(self) -> float:
        return max(1.0, 1000 * (self.deadline - time.monotonic()))


#: Given a tab's token, its state locks in Redis as text ("<key> expires in <ms> ms").
LockProbe = Callable[[str], Awaitable[list[str]]]


class Recorder:
    """Times a journey's steps; turns a step's failure into a JourneyLost. A step still
    waiting after SLOW_SECONDS gets a look too (its page, toasts and the tab's locks)."""

    def __init__(self, journey: Journey, shots: Path | None, locks: LockProbe | None):
        self.journey = journey
        self.shots = shots
        self.locks = locks

    @contextlib.asynccontextmanager
    async def step(self, name: str, page: Page) -> AsyncIterator[Budget]:
        started = time.monotonic()
        watch = asyncio.create_task(self._look_when_slow(name, page, started))
        try:
            yield Budget(started)
        except Exception as error:
            seconds = time.monotonic() - started
            reason = "timeout" if _is_timeout(error) else short_error(error)
            lost = Lost(name, seconds, reason)
            await self._describe(lost, page, screenshot=True)
            raise JourneyLost(lost) from error
        finally:
            watch.cancel()
        self.journey.steps.append((name, time.monotonic() - started))

    async def _look_when_slow(self, name: str, page: Page, started: float) -> None:
        await asyncio.sleep(SLOW_SECONDS)
        look = Lost(name, time.monotonic() - started, "slow")
        self.journey.slow.append(look)
        await self._describe(look, page, screenshot=False)

    async def _describe(self, look: Lost, page: Page, *, screenshot: bool) -> None:
        """What the page shows (each look bounded: the page may be gone with its
        server)."""
        look.url = page.url
        with contextlib.suppress(Exception):
            look.toasts = [
                " ".join(text.split())[:120]
                for text in await asyncio.wait_for(page.locator(TOASTS).all_inner_texts(), 3)
            ]
        with contextlib.suppress(Exception):
            script = "window.sessionStorage.getItem('token')"
            look.token = await asyncio.wait_for(page.evaluate(script), 3) or ""
        if self.locks is not None and look.token:
            with contextlib.suppress(Exception):
                look.locks = await asyncio.wait_for(self.locks(look.token), 3)
        if screenshot and self.shots is not None:
            path = self.shots / f"journey-{self.journey.index:04d}-{self.journey.kind}.png"
            with contextlib.suppress(Exception):
                await asyncio.wait_for(page.screenshot(path=str(path), timeout=5_000), 6)
                look.screenshot = str(path)


def _is_timeout(error: BaseException) -> bool:
    """A wait that ran out (Playwright's, or an ``expect`` that never came true)."""
    return isinstance(error, PlaywrightTimeoutError | TimeoutError) or (
        isinstance(error, AssertionError) and "timeout" in str(error).lower()
    )


def short_error(error: BaseException) -> str:
    first = (str(error).strip().splitlines() or [""])[0]
    return f"{type(error).__name__}: {first[:160]}"


# --- the steps -------------------------------------------------------------------------


async def _open(page: Page, url: str, budget: Budget) -> None:
    """Go to ``url`` and wait until the page is live (flows.open_page)."""
    await page.goto(url, timeout=budget.ms())
    await page.get_by_test_id("page-ready").wait_for(state="attached", timeout=budget.ms())


async def _wait_for_path(page: Page, path: str, budget: Budget) -> None:
    base = re.escape(path.rstrip("/"))
    await page.wait_for_url(re.compile(rf"^https?://[^/]+{base}/?$"), timeout=budget.ms())


async def sign_in(rec: Recorder, page: Page, base: str, email: str) -> None:
    """Open /auth, fill the Sign In form, land on the dashboard as oneself."""
    async with rec.step("open /auth", page) as budget:
        await _open(page, f"{base}/auth", budget)
    async with rec.step("sign in", page) as budget:
        form = page.locator("form").filter(
            has=page.get_by_placeholder(messages.PASSWORD_PLACEHOLDER, exact=True)
        )
        await form.get_by_placeholder(messages.EMAIL_PLACEHOLDER).fill(email, timeout=budget.ms())
        password = form.get_by_placeholder(messages.PASSWORD_PLACEHOLDER, exact=True)
        await password.fill(PASSWORD, timeout=budget.ms())
        await form.get_by_role("button", name=messages.SIGN_IN).click(timeout=budget.ms())
        await _wait_for_path(page, "/dashboard", budget)
        await expect(page.get_by_test_id("dashboard-email")).to_have_text(
            email, timeout=budget.ms()
        )


async def score_photo(rec: Recorder, page: Page, base: str, photo: Path) -> None:
    """Open /upload, choose the photo, "Get My Score!", the score shown on /results."""
    async with rec.step("open /upload", page) as budget:
        await _open(page, f"{base}/upload", budget)
    async with rec.step("choose photo", page) as budget:
        zone = page.get_by_test_id("upload-zone").locator("input[type=file]")
        await zone.set_input_files(str(photo), timeout=budget.ms())
        chosen = page.get_by_role("img", name="Your chosen photo")
        await expect(chosen).to_be_visible(timeout=budget.ms())
    async with rec.step("get my score", page) as budget:
        await page.get_by_role("button", name=messages.GET_MY_SCORE).click(timeout=budget.ms())
        await _wait_for_path(page, "/results", budget)
        score = page.get_by_test_id("results").get_by_text(SCORE_TEXT).first
        await expect(score).to_be_visible(timeout=budget.ms())
        shown = float((await score.inner_text(timeout=budget.ms())).removesuffix("/10"))
    if shown >= LEADERBOARD_DIALOG_MIN_SCORE:  # the page invites Elite Beauty by itself
        async with rec.step("answer the invitation", page) as budget:
            invitation = page.get_by_role("dialog", name="Join the Leaderboard")
            await expect(invitation).to_be_visible(timeout=budget.ms())
            await invitation.get_by_role("button", name="Not now").click(timeout=budget.ms())
            await expect(invitation).to_be_hidden(timeout=budget.ms())


async def visitor(rec: Recorder, new_page: Callable[[], Awaitable[Page]], base, photo) -> None:
    page = await new_page()
    await score_photo(rec, page, base, photo)


async def member(rec: Recorder, new_page, base: str, photo: Path, email: str) -> None:
    page = await new_page()
    await sign_in(rec, page, base, email)
    await score_photo(rec, page, base, photo)
    async with rec.step("save", page) as budget:
        await page.get_by_role("button", name="Save to My Photos").click(timeout=budget.ms())
        await expect(page.get_by_text(messages.PHOTO_SAVED)).to_be_visible(timeout=budget.ms())
    async with rec.step("open My Photos", page) as budget:
        menu = page.get_by_role("link", name=messages.NAV_DASHBOARD, exact=True).first
        await menu.click(timeout=budget.ms())
        await _wait_for_path(page, "/dashboard", budget)
        count = page.get_by_test_id("photo-count")
        await expect(count).to_have_text(f"{messages.NAV_MY_PHOTOS} (1)", timeout=budget.ms())
        await expect(page.get_by_test_id("photo-card")).to_have_count(1, timeout=budget.ms())
        await expect(page.get_by_test_id("photo-card").locator("img")).to_be_visible(
            timeout=budget.ms()
        )


async def chat(rec: Recorder, new_page, base: str, pair: tuple[str, str, str]) -> None:
    """Two members of an approved chat: each signs in and opens it; the first sends a
    message; it shows on their own page, then on the other's, live."""
    sender_email, reader_email, request_id = pair
    sender, reader = await new_page(), await new_page()
    for page, email in ((sender, sender_email), (reader, reader_email)):
        await sign_in(rec, page, base, email)
    for page, other in ((sender, reader_email), (reader, sender_email)):
        async with rec.step("open chat", page) as budget:
            await _open(page, f"{base}/messages/{request_id}", budget)
            await expect(page.get_by_test_id("chat-with")).to_contain_text(
                member_name(other), timeout=budget.ms()
            )
    text = f"soak message {uuid.uuid4().hex[:10]}"
    async with rec.step("send", sender) as budget:
        field = sender.get_by_test_id("chat-input")
        await field.fill(text, timeout=budget.ms())
        send = sender.get_by_role("button", name=messages.CHAT_SEND)
        await expect(send).to_be_enabled(timeout=budget.ms())
        await field.press("Enter", timeout=budget.ms())
        mine = sender.get_by_test_id("message-mine").get_by_text(text)
        await expect(mine).to_be_visible(timeout=budget.ms())
    async with rec.step("seen by the other", reader) as budget:
        theirs = reader.get_by_test_id("message-theirs").get_by_text(text)
        await expect(theirs).to_be_visible(timeout=budget.ms())


async def run_journey(
    journey: Journey,
    new_context: Callable[[], Awaitable[BrowserContext]],
    base: str,
    photo: Path,
    people: dict,
    shots: Path | None,
    locks: LockProbe | None = None,
) -> Journey:
    """Run one journey in fresh browser contexts (closed after it): the journey, with
    its steps' durations, and ``lost`` set if a step showed nothing in time."""
    rec = Recorder(journey, shots, locks)
    contexts: list[BrowserContext] = []

    async def new_page() -> Page:
        context = await new_context()
        contexts.append(context)
        return await context.new_page()

    try:
        if journey.kind == VISITOR:
            await visitor(rec, new_page, base, photo)
        elif journey.kind == MEMBER:
            await member(rec, new_page, base, photo, people[MEMBER].pop())
        else:
            await chat(rec, new_page, base, people[CHAT].pop())
    except JourneyLost as lost:
        journey.lost = lost.lost
    finally:
        for context in contexts:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(context.close(), 10)
    return journey
