"""Reflex state of the members' dashboard (/dashboard and /user-dashboard).

The tab shown follows the address (``?tab=``; /dashboard opens on My Photos, the core
document's screen, /user-dashboard on Overview), then the member's clicks. While the
page is open the subscription is checked again every 30 s (the setting
``SUBSCRIPTION_RECHECK_SECONDS``), so a payment completed in another tab, or a
cancellation, shows without a reload.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import secrets

import reflex as rx

from prettyscore.analysis.tiers import score_text
from prettyscore.billing.state import PremiumState, reload_plan
from prettyscore.core import routes
from prettyscore.core.db import run_in_session
from prettyscore.core.settings import get_settings
from prettyscore.dashboard import service
from prettyscore.personality.service import PARAGRAPH_BREAK, report_path
from prettyscore.photos.state import PhotosState
from prettyscore.ui.guarded import guarded

TABS = ("overview", "photos", "personality", "premium")
# A closed tab cannot tell the server, so the rechecks also stop after two hours.
RECHECKS_FOR_SECONDS = 2 * 60 * 60


@dataclasses.dataclass
class ResultRow:
    """One saved personality result as the Personality tab lists it."""

    personality_type: str = ""
    score: int = 0
    kind: str = ""
    analysis: str = ""
    created: str = ""
    report_href: str = ""  # where a detailed analysis is read in full


def _result_row(result: service.SavedResult) -> ResultRow:
    """A basic result with its analysis; a detailed one with its summary and a link to
    the full report."""
    created = result.created_at
    return ResultRow(
        personality_type=result.personality_type,
        score=result.score,
        kind="Detailed analysis" if result.detailed else "Basic result",
        analysis=result.analysis.split(PARAGRAPH_BREAK, 1)[0],
        created=f"{created:%b} {created.day}, {created.year}",
        report_href=report_path(result.id) if result.detailed else "",
    )


class DashboardState(PhotosState):
    """The tabs of the dashboard and what Overview, Personality and Premium show."""

    tab: str = "photos"
    premium: bool = False
    best_score: str = "–"
    listed_count: int = 0
    video_count: int = 0
    free_edits_left: int = 0
    # "Your score across N photos: ..." from two saved face photos, else "".
    score_across_photos: str = ""
    results: list[ResultRow] = []

    _watch: str = ""  # the one recheck loop allowed to run for this tab

    @rx.var
    def personality_type(self) -> str:
        """The type of the member's latest personality result (the list is newest first)."""
        return self.results[0].personality_type if self.results else ""

    @rx.event
    async def open_page(self):
        """on_load: members only; the tab named by the address; the recheck loop."""
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        default = "overview" if self.router.url.path.startswith(routes.USER_DASHBOARD) else "photos"
        wanted = self.router.url.query_parameters.get("tab", default)
        self.tab = wanted if wanted in TABS else default
        await self._refresh(user.id)
        self._watch = secrets.token_hex(8)
        # The grid loads in this same event: one round trip for the whole page.
        problem = await self._show_grid(user)
        return [DashboardState.recheck_subscription, *([problem] if problem else [])]

    @rx.event
    def set_tab(self, value: str):
        if value in TABS:
            self.tab = value

    async def _refresh(self, user_id) -> None:
        figures, results = await run_in_session(service.dashboard_figures, user_id)
        self.premium = figures.premium
        self.best_score = "–" if figures.best_score is None else score_text(figures.best_score)
        self.listed_count, self.video_count = figures.listed_count, figures.video_count
        self.free_edits_left = figures.free_edits_left
        self.score_across_photos = figures.score_range.text if figures.score_range else ""
        self.results = [_result_row(result) for result in results]

    @rx.event(background=True)
    async def recheck_subscription(self):
        """Every 30 s (the setting) while this dashboard is open: the subscription
        state again."""
        async with self:
            watch = self._watch
        interval = get_settings().subscription_recheck_seconds
        for _ in range(math.ceil(RECHECKS_FOR_SECONDS / interval)):
            await asyncio.sleep(interval)
            async with self:
                on_dashboard = self.router.url.path.startswith(
                    (routes.DASHBOARD, routes.USER_DASHBOARD)
                )
                if self._watch != watch or not on_dashboard or not self.signed_in:
                    return
                # A background refresh: a failure is logged, and the next round tries again.
                with guarded("Rechecking the subscription", fallback=None, refusals=False):
                    user = await self._current_user()
                    if user is None:
                        return
                    await self._refresh(user.id)
                    await reload_plan(await self.get_state(PremiumState))
