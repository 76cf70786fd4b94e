"""The members' dashboard: /dashboard (opens on My Photos) and /user-dashboard (Overview).

Tabs Overview, My Photos, Personality and Premium, as document 001 describes; My Photos
is the core document's screen (``photos.pages.my_photos_tab``).
"""

from __future__ import annotations

import reflex as rx

from prettyscore.billing.pages import member_status
from prettyscore.billing.state import PremiumState, premium_price
from prettyscore.core import messages, routes
from prettyscore.dashboard.state import DashboardState, ResultRow
from prettyscore.personality.components import detailed_analysis_offer
from prettyscore.photos.early import MY_PHOTOS_PHOTO
from prettyscore.photos.pages import PHOTO_GRID_COLUMNS, account_zone, my_photos_tab
from prettyscore.ui import early_photo, styles
from prettyscore.ui.components import icon_button, show_when_ready
from prettyscore.ui.layout import page_layout
from prettyscore.video.state import VideoState

State = DashboardState


def _figure(label: str, value, test_id: str, link: rx.Component | None = None) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.text(label, size="2", color_scheme="gray"),
            rx.heading(value, size="7", data_testid=test_id),
            *([link] if link is not None else []),
            spacing="1",
        ),
        width="100%",
    )


def _videos_made() -> rx.Component:
    """The count of the member's videos, and the way to the list of them (on the video
    page, below the generator)."""
    return _figure(
        "Videos made",
        State.video_count,
        "overview-videos",
        rx.link(
            messages.SEE_YOUR_VIDEOS,
            href=routes.VIDEO_GENERATION,
            size="2",
            data_testid="overview-videos-link",
        ),
    )


def _score_across_photos() -> rx.Component:
    """The member's score across their saved face photos (from two of them), and the
    way to see which of several photos shows them best."""
    return rx.card(
        rx.vstack(
            rx.cond(
                State.score_across_photos != "",
                rx.text(
                    State.score_across_photos,
                    size="3",
                    weight="medium",
                    data_testid="overview-score-range",
                ),
            ),
            rx.link(
                messages.BEST_PHOTO_OFFER,
                href=routes.BEST_PHOTO,
                size="2",
                data_testid="best-photo-link",
            ),
            spacing="2",
            width="100%",
        ),
        width="100%",
    )


def _plan_badge() -> rx.Component:
    return rx.cond(
        State.premium,
        rx.badge(rx.icon("crown", size=14), "Premium", color_scheme="amber", size="2"),
        rx.badge("Free plan", color_scheme="gray", size="2"),
    )


def _overview_tab() -> rx.Component:
    return rx.vstack(
        rx.grid(
            _figure("Photos saved", State.total, "overview-photos"),
            _figure("Best score", State.best_score, "overview-best"),
            _figure("On the leaderboard", State.listed_count, "overview-listed"),
            _videos_made(),
            columns=rx.breakpoints(initial="2", md="4"),
            spacing="3",
            width="100%",
        ),
        _score_across_photos(),
        rx.card(
            rx.hstack(
                rx.vstack(
                    rx.text("Your plan", size="2", color_scheme="gray"),
                    _plan_badge(),
                    spacing="1",
                ),
                rx.spacer(),
                rx.cond(
                    State.premium,
                    rx.text(messages.UNLIMITED_EDITS, size="2"),
                    rx.text(
                        "Free edits remaining: ",
                        rx.text.strong(State.free_edits_left),
                        size="2",
                    ),
                ),
                align="center",
                width="100%",
                wrap="wrap",
            ),
            width="100%",
            data_testid="overview-plan",
        ),
        rx.cond(
            State.personality_type != "",
            rx.card(
                rx.text("Your personality type", size="2", color_scheme="gray"),
                rx.heading(State.personality_type, size="5"),
                width="100%",
            ),
        ),
        rx.hstack(
            rx.link(
                # White on Radix's pink reads at 4.1:1; on the darkest pink, 10:1.
                icon_button("upload", messages.NAV_UPLOAD_PHOTO, high_contrast=True),
                href=routes.UPLOAD,
            ),
            rx.link(
                icon_button("clapperboard", messages.NAV_VIDEO_GENERATION, variant="soft"),
                href=routes.VIDEO_GENERATION,
            ),
            rx.link(
                icon_button("badge-check", messages.TITLE_REQUEST_VERIFICATION, variant="soft"),
                href=routes.REQUEST_VERIFICATION,
            ),
            spacing="3",
            wrap="wrap",
        ),
        spacing="4",
        width="100%",
    )


def _result_card(result: ResultRow) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading(result.personality_type, size="4"),
                rx.spacer(),
                rx.text(f"{result.score}/100", size="2", weight="bold"),
                rx.badge(result.kind),
                width="100%",
                align="center",
            ),
            rx.text(result.analysis, size="2"),
            rx.hstack(
                rx.text(result.created, size="1", color_scheme="gray"),
                rx.spacer(),
                rx.cond(
                    result.report_href != "",
                    rx.link(messages.PERSONALITY_READ_REPORT, href=result.report_href, size="2"),
                ),
                width="100%",
                align="center",
            ),
            spacing="2",
            width="100%",
        ),
        width="100%",
        data_testid="personality-result",
    )


def _personality_tab() -> rx.Component:
    return rx.cond(
        State.results.length() > 0,
        rx.vstack(
            detailed_analysis_offer(),
            rx.foreach(State.results, _result_card),
            spacing="3",
            width="100%",
        ),
        rx.card(
            rx.vstack(
                rx.icon("brain", size=36, color=styles.PINK),
                rx.text("You haven't taken the personality test yet."),
                rx.link(
                    rx.button(messages.TITLE_PERSONALITY_TEST, high_contrast=True),
                    href=routes.PERSONALITY_TEST,
                ),
                align="center",
                spacing="3",
                padding="2em",
            ),
            width="100%",
        ),
    )


def _premium_tab() -> rx.Component:
    """Plan, status and renewal, with the upgrade or cancel action (as on /premium)."""
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading(messages.PREMIUM_PLAN_NAME, size="5"), _plan_badge(), align="center"
            ),
            rx.text(f"{premium_price()} per month, cancel anytime.", color_scheme="gray"),
            rx.cond(
                PremiumState.is_premium,
                member_status(),
                rx.link(
                    icon_button("crown", "Upgrade to Premium", high_contrast=True),
                    href=routes.PREMIUM,
                ),
            ),
            spacing="3",
        ),
        width="100%",
        on_mount=PremiumState.load_status,
        data_testid="premium-tab",
    )


def _email(address: rx.Var[str]) -> rx.Component:
    """The member's email, breaking before its "@" on a narrow screen rather than inside
    a word (each part breaks only when it alone is wider than the line)."""
    parts = address.split("@")
    part_style = {"display": "inline-block", "max_width": "100%", "overflow_wrap": "anywhere"}
    return rx.text(
        rx.el.span(parts[0], style=part_style),
        rx.cond(parts.length() > 1, rx.el.span("@", parts[1], style=part_style)),
        color_scheme="gray",
        data_testid="dashboard-email",
    )


def _header() -> rx.Component:
    return rx.hstack(
        rx.vstack(
            rx.heading("My Dashboard", size="7"),
            _email(State.user_email),
            spacing="1",
            min_width="0",
        ),
        rx.spacer(),
        rx.button(messages.SIGN_OUT, variant="outline", on_click=State.sign_out),
        width="100%",
        align="center",
        wrap="wrap",
    )


def _tabs() -> rx.Component:
    tabs = (
        ("overview", "Overview", _overview_tab()),
        ("photos", messages.NAV_MY_PHOTOS, my_photos_tab()),
        ("personality", "Personality", _personality_tab()),
        ("premium", "Premium", _premium_tab()),
    )
    return rx.tabs.root(
        # On a phone the four tabs share the width in smaller type, and wrap rather than
        # hide the last one off screen.
        rx.tabs.list(
            *[
                rx.tabs.trigger(label, value=value, flex_grow="1", flex_shrink="0")
                for value, label, _ in tabs
            ],
            size=rx.breakpoints(initial="1", sm="2"),
            flex_wrap="wrap",
        ),
        *[rx.tabs.content(body, value=value, padding_top="1.25em") for value, _, body in tabs],
        value=State.tab,
        on_change=State.set_tab,
        width="100%",
    )


def dashboard_page() -> rx.Component:
    """Only for signed-in members (others go to /auth and come back)."""
    return page_layout(
        show_when_ready(
            State.signed_in,
            rx.vstack(_header(), _tabs(), account_zone(), spacing="5", width="100%"),
            _loading_view(),
        )
    )


def _loading_view() -> rx.Component:
    """Until the member is known: the heading, the member's newest photo where the first
    card will be, as the server saw it (early_photo, filled by photos.early), the notice."""
    return rx.vstack(
        rx.heading("My Dashboard", size="7"),
        rx.grid(
            early_photo.frame(
                MY_PHOTOS_PHOTO,
                alt="Your newest photo",
                height="240px",
                border_radius="12px",
                margin="var(--space-3)",
            ),
            columns=PHOTO_GRID_COLUMNS,
            spacing="4",
            width="100%",
            # Below the header, the tabs and the grid's own heading, as on the page.
            padding_top="180px",
        ),
        rx.center(rx.text(messages.LOADING_YOUR_PHOTOS), padding="3em", width="100%"),
        spacing="1",
        width="100%",
        # The footer stays below the fold, so it does not jump when the page arrives.
        min_height="100vh",
    )


def register(app: rx.App) -> None:
    """/dashboard and /user-dashboard: one dashboard, opening on different tabs."""
    for route in (routes.DASHBOARD, routes.USER_DASHBOARD):
        app.add_page(
            dashboard_page,
            route=route,
            title=messages.page_title(messages.TITLE_MY_DASHBOARD),
            on_load=[DashboardState.open_page, VideoState.resume],
        )
