"""The page of a shared score, ``/s/{token}``: the score, its label and its tier, a line
saying it is for fun, and the way to a score of one's own. Never the photo."""

from __future__ import annotations

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.scoring import share_links
from prettyscore.ui.components import link_button, page_header
from prettyscore.ui.guarded import guarded
from prettyscore.ui.layout import page_layout
from prettyscore.ui.score import score_circle, tier_badge

ROUTE_ARG = "share_token"


class SharedScoreState(AuthState):
    """What the shared page shows (read from the database on every load)."""

    found: bool = False
    loaded: bool = False
    score: float = 0.0
    label: str = ""
    emoji: str = ""
    color: str = ""

    @rx.event
    async def open_shared(self):
        """on_load: the shared score behind the page's token, or "not found"."""
        await self._current_user()
        token = str(self.router.page.params.get(ROUTE_ARG, ""))
        with guarded("Opening a shared score", fallback=None, refusals=False):
            shared = await run_in_session(share_links.find, token)
            self.found = shared is not None
            if shared is not None:
                self.score, self.label = shared.score, shared.label
                self.emoji, self.color = shared.emoji, shared.color
        self.loaded = True


def _shown() -> rx.Component:
    state = SharedScoreState
    return rx.vstack(
        rx.heading(messages.SHARED_SCORE_HEADING, as_="h1", size="6", align="center"),
        score_circle(state.score, state.label, state.emoji, state.color, with_label=False),
        tier_badge(state.label, state.emoji, state.color),
        rx.text(messages.SHARED_SCORE_NO_PHOTO, size="2", color_scheme="gray", align="center"),
        link_button(messages.SHARED_SCORE_GET_YOURS, routes.UPLOAD, "sparkles"),
        align="center",
        spacing="4",
        width="100%",
        data_testid="shared-score",
    )


def shared_score_page() -> rx.Component:
    state = SharedScoreState
    return page_layout(
        rx.cond(
            state.loaded,
            rx.cond(
                state.found,
                _shown(),
                rx.vstack(
                    page_header(messages.SHARED_SCORE_GONE),
                    link_button(messages.SHARED_SCORE_GET_YOURS, routes.UPLOAD, "sparkles"),
                    align="center",
                    width="100%",
                    data_testid="shared-score-gone",
                ),
            ),
            rx.center(rx.spinner(size="3"), padding="3em", width="100%"),
        ),
    )


def register(app: rx.App) -> None:
    app.add_page(
        shared_score_page,
        route=routes.shared_score(f"[{ROUTE_ARG}]"),
        title=messages.page_title(messages.SHARED_SCORE_TITLE),
        on_load=SharedScoreState.open_shared,
    )
