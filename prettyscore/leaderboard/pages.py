"""/leaderboard (public), /global-ranking (members enter the contest), /admin/leaderboard.

Names and bios are the contestants' own words: they are shown as text, never as markup.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.contact.components import contact_dialog, sent_notice
from prettyscore.core import messages, routes
from prettyscore.leaderboard.components import entry_fields
from prettyscore.leaderboard.state import (
    CONTEST_WAIT,
    MEDAL_TEXT_COLOURS,
    REMOVE_WAIT,
    VERIFY_WAIT,
    ContestState,
    EntryRow,
    LeaderboardAdminState,
    LeaderboardState,
)
from prettyscore.ui import styles
from prettyscore.ui.components import card, icon_button, link_button, page_header
from prettyscore.ui.forms import waiting_submit
from prettyscore.ui.layout import page_layout


# ---------------------------------------------------------------------------
# /leaderboard
# ---------------------------------------------------------------------------
def _rank_badge(entry: rx.Var[EntryRow]) -> rx.Component:
    """A coloured trophy for ranks 1 to 3, the number for everyone else."""
    return rx.cond(
        entry.medal != "",
        rx.center(
            rx.icon("trophy", size=26, color=entry.medal_colour),
            rx.text(
                "#",
                entry.rank,
                size="1",
                weight="bold",
                color=rx.match(entry.medal, *MEDAL_TEXT_COLOURS.items(), "inherit"),
            ),
            direction="column",
            data_testid="rank-icon",
            data_medal=entry.medal,
            aria_label="Rank " + entry.rank.to_string(),
            min_width="3rem",
        ),
        rx.center(
            rx.text("#", entry.rank, size="4", weight="bold", color_scheme="gray"),
            aria_label="Rank " + entry.rank.to_string(),
            min_width="3rem",
        ),
    )


def _verified_badge() -> rx.Component:
    return rx.badge(
        rx.icon("badge-check", size=14),
        messages.LEADERBOARD_VERIFIED,
        color_scheme="blue",
        variant="soft",
        high_contrast=True,  # Radix's blue on its soft background reads at 4.2:1
        data_testid="verified-badge",
    )


def _contact_button(entry: rx.Var[EntryRow]) -> rx.Component:
    return rx.cond(
        entry.own,
        rx.fragment(),
        icon_button(
            "mail",
            messages.LEADERBOARD_CONTACT,
            on_click=LeaderboardState.contact(entry.photo_id),
            disabled=~rx.State.is_hydrated,
            variant="soft",
            radius="full",
        ),
    )


def _entry_card(entry: rx.Var[EntryRow]) -> rx.Component:
    """Rank, photo and words in a row; on a phone the Contact button goes below them,
    and a long name or bio wraps inside the card."""
    return card(
        rx.flex(
            rx.hstack(
                _rank_badge(entry),
                rx.image(
                    src=entry.image_url,
                    alt=entry.display_name,
                    width=rx.breakpoints(initial="56px", sm="72px"),
                    height=rx.breakpoints(initial="56px", sm="72px"),
                    object_fit="cover",
                    border_radius="12px",
                    flex_shrink="0",
                ),
                rx.vstack(
                    rx.flex(
                        rx.text(
                            entry.display_name,
                            weight="bold",
                            size="4",
                            overflow_wrap="anywhere",
                            min_width="0",
                        ),
                        rx.cond(entry.verified, _verified_badge()),
                        align="center",
                        gap="2",
                        wrap="wrap",
                        min_width="0",
                    ),
                    rx.text(
                        entry.bio,
                        size="2",
                        color_scheme="gray",
                        overflow_wrap="anywhere",
                        data_testid="entry-bio",
                    ),
                    rx.flex(
                        rx.text(entry.score, weight="bold", size="5", color=styles.PINK),
                        rx.text("/10", size="2", color_scheme="gray"),
                        rx.badge(entry.label, variant="soft", white_space="normal"),
                        align="baseline",
                        gap="2",
                        wrap="wrap",
                        min_width="0",
                    ),
                    spacing="1",
                    flex="1",
                    min_width="0",
                ),
                align="center",
                spacing=rx.breakpoints(initial="3", sm="4"),
                flex="1",
                min_width="0",
            ),
            _contact_button(entry),
            direction=rx.breakpoints(initial="column", sm="row"),
            align=rx.breakpoints(initial="end", sm="center"),
            gap="3",
            width="100%",
        ),
        data_testid="leaderboard-entry",
        data_photo_id=entry.photo_id,
        width="100%",
    )


def leaderboard_page() -> rx.Component:
    return page_layout(
        sent_notice(),
        page_header(messages.TITLE_LEADERBOARD, messages.LEADERBOARD_SUBTITLE, icon="trophy"),
        rx.vstack(
            rx.center(
                link_button(messages.LEADERBOARD_JOIN_CONTEST, routes.GLOBAL_RANKING, "trophy"),
                width="100%",
            ),
            rx.cond(
                LeaderboardState.total > 0,
                rx.text(
                    messages.LEADERBOARD_TIE_RULE, size="2", color_scheme="gray", align="center"
                ),
            ),
            rx.foreach(LeaderboardState.entries, _entry_card),
            rx.cond(
                LeaderboardState.loaded & (LeaderboardState.total == 0),
                rx.text(messages.LEADERBOARD_EMPTY, color_scheme="gray", align="center"),
            ),
            rx.cond(
                LeaderboardState.has_more,
                rx.center(
                    rx.button(
                        messages.LEADERBOARD_SHOW_MORE,
                        on_click=LeaderboardState.show_more,
                        loading=LeaderboardState.loading,
                        disabled=~rx.State.is_hydrated,
                        variant="outline",
                        radius="full",
                    ),
                    width="100%",
                ),
            ),
            spacing="3",
            width="100%",
            max_width="760px",
            margin_x="auto",
        ),
        contact_dialog(),
    )


# ---------------------------------------------------------------------------
# /global-ranking
# ---------------------------------------------------------------------------
def _prizes() -> rx.Component:
    return card(
        rx.vstack(
            rx.heading(messages.CONTEST_GRAND_PRIZE, size="6", style=styles.GRADIENT_TEXT),
            rx.heading(messages.CONTEST_RULES_HEADING, size="4", padding_top="0.5rem"),
            rx.unordered_list(*[rx.list_item(rule) for rule in messages.CONTEST_RULES]),
            spacing="2",
        ),
        width="100%",
    )


def _choice(choice) -> rx.Component:
    chosen = ContestState.selected == choice.photo_id
    return rx.box(
        rx.image(
            src=choice.image_url,
            alt=choice.label,
            width="100%",
            height="140px",
            object_fit="cover",
            border_radius="10px",
        ),
        rx.hstack(
            rx.text(choice.score, weight="bold", color=styles.PINK_TEXT),
            rx.text(choice.label, size="1", color_scheme="gray", trim="both"),
            spacing="2",
            align="center",
            padding_top="0.4rem",
        ),
        rx.cond(
            choice.listed,
            rx.badge(messages.CONTEST_ALREADY_LISTED, color_scheme="green", high_contrast=True),
        ),
        on_click=ContestState.select(choice.photo_id),
        role="radio",
        aria_checked=rx.cond(chosen, "true", "false"),
        aria_label=choice.score + " " + choice.label,
        data_testid="contest-choice",
        cursor="pointer",
        padding="0.5rem",
        border_radius="14px",
        border=rx.cond(chosen, f"3px solid {styles.PINK}", "3px solid transparent"),
        background="white",
    )


def _picker() -> rx.Component:
    return rx.vstack(
        rx.heading(messages.CONTEST_PICK_PHOTO, size="5"),
        rx.cond(
            ContestState.choices_loaded & (ContestState.choices.length() == 0),
            rx.vstack(
                rx.text(messages.CONTEST_NO_PHOTOS, color_scheme="gray"),
                link_button(messages.CONTEST_UPLOAD_PHOTO, routes.UPLOAD, "upload"),
                spacing="3",
            ),
        ),
        rx.grid(
            rx.foreach(ContestState.choices, _choice),
            columns=rx.breakpoints(initial="2", sm="3", md="5"),
            spacing="3",
            width="100%",
            role="radiogroup",
        ),
        _entry_form(),
        spacing="4",
        width="100%",
    )


def _entry_form() -> rx.Component:
    """How the entry appears (the leaderboard entry form of document 000), and Submit."""
    return rx.form(
        rx.vstack(
            rx.heading(messages.CONTEST_HOW_YOU_APPEAR, size="4"),
            entry_fields(),
            waiting_submit(
                messages.CONTEST_SUBMIT,
                CONTEST_WAIT,
                ContestState.submitting,
                size="3",
                radius="full",
                style=styles.GRADIENT_BUTTON,
            ),
            spacing="3",
            width="100%",
            max_width="460px",
        ),
        on_submit=CONTEST_WAIT.submit(ContestState.submit),
        reset_on_submit=False,
        width="100%",
        data_testid="contest-entry-form",
    )


def global_ranking_page() -> rx.Component:
    return page_layout(
        page_header(messages.WIN_50K, messages.CONTEST_SUBTITLE, icon="badge-dollar-sign"),
        rx.vstack(_prizes(), _picker(), spacing="5", width="100%"),
    )


# ---------------------------------------------------------------------------
# /admin/leaderboard
# ---------------------------------------------------------------------------
#: Verify and Remove: the server marks no work as under way (each is one quick change).
_NOTHING_UNDER_WAY = rx.Var.create(False)


def _moderating() -> rx.Var:
    """A Verify or a Remove pressed and not yet answered: the others wait for it."""
    return ~rx.State.is_hydrated | VERIFY_WAIT.pending.value | REMOVE_WAIT.pending.value


def _no_answer_notices() -> rx.Component:
    """Said when a Verify or a Remove has gone unanswered; "Try again" sends it again."""
    state = LeaderboardAdminState
    return rx.fragment(
        VERIFY_WAIT.no_answer_notice(_NOTHING_UNDER_WAY, retry=VERIFY_WAIT.retry(state.verify, 1)),
        REMOVE_WAIT.no_answer_notice(_NOTHING_UNDER_WAY, retry=REMOVE_WAIT.retry(state.remove, 1)),
    )


def _pending_row(entry: rx.Var[EntryRow]) -> rx.Component:
    return card(
        rx.hstack(
            rx.image(
                src=entry.image_url,
                alt=entry.display_name,
                width="64px",
                height="64px",
                object_fit="cover",
                border_radius="10px",
            ),
            rx.vstack(
                rx.text(entry.display_name, weight="bold", overflow_wrap="anywhere"),
                rx.text(entry.bio, size="2", color_scheme="gray", overflow_wrap="anywhere"),
                rx.text(entry.score, " · ", entry.label, size="2"),
                spacing="1",
                flex="1",
                min_width="min(12rem, 100%)",
            ),
            icon_button(
                "badge-check",
                messages.ADMIN_VERIFY,
                on_click=VERIFY_WAIT.send(LeaderboardAdminState.verify, entry.photo_id),
                loading=VERIFY_WAIT.busy_for(entry.photo_id, _NOTHING_UNDER_WAY),
                disabled=_moderating(),
                color_scheme="green",
                high_contrast=True,  # white on Radix's green reads at 3.2:1
            ),
            icon_button(
                "trash-2",
                messages.ADMIN_REMOVE,
                on_click=REMOVE_WAIT.send(LeaderboardAdminState.remove, entry.photo_id),
                loading=REMOVE_WAIT.busy_for(entry.photo_id, _NOTHING_UNDER_WAY),
                disabled=_moderating(),
                color_scheme="red",
                variant="soft",
            ),
            align="center",
            spacing="3",
            width="100%",
            wrap="wrap",
        ),
        data_testid="pending-entry",
        data_photo_id=entry.photo_id,
        width="100%",
    )


def admin_leaderboard_page() -> rx.Component:
    return page_layout(
        rx.cond(
            AuthState.is_admin,
            rx.vstack(
                rx.heading(messages.ADMIN_LEADERBOARD_TITLE, size="7"),
                _no_answer_notices(),
                rx.cond(
                    LeaderboardAdminState.pending.length() == 0,
                    rx.text(messages.ADMIN_LEADERBOARD_EMPTY, color_scheme="gray"),
                ),
                rx.foreach(LeaderboardAdminState.pending, _pending_row),
                spacing="3",
                width="100%",
            ),
            rx.center(rx.spinner(size="3"), padding="4em", width="100%"),
        )
    )


def register(app: rx.App) -> None:
    """Add the leaderboard, the contest page and its moderation page to the app."""
    app.add_page(
        leaderboard_page,
        route=routes.LEADERBOARD,
        title=messages.page_title(messages.TITLE_LEADERBOARD),
        on_load=LeaderboardState.open_page,
    )
    app.add_page(
        global_ranking_page,
        route=routes.GLOBAL_RANKING,
        title=messages.page_title(messages.TITLE_GLOBAL_RANKING),
        on_load=ContestState.open_page,
    )
    app.add_page(
        admin_leaderboard_page,
        route=routes.ADMIN_LEADERBOARD,
        title=messages.page_title(messages.ADMIN_LEADERBOARD_TITLE),
        on_load=[AuthState.require_admin, LeaderboardAdminState.open_page],
    )
