"""/best-photo: "Which photo shows you best". Choose 2 to 6 photos of yourself, compare
them, and see them ranked by how well each shows your face, with what differs from the
best and one line of advice each. Visitors and members alike; nothing is saved."""

from __future__ import annotations

import reflex as rx

from prettyscore.core import constants, messages, routes
from prettyscore.scoring.best_photo_state import COMPARE_WAIT, UPLOAD_ID, BestPhotoCard
from prettyscore.scoring.best_photo_state import BestPhotoState as State
from prettyscore.ui import styles
from prettyscore.ui.components import (
    REJECTED_DROP_CODES,
    card,
    icon_button,
    image_drop_zone,
    link_button,
    page_header,
    photo_picker_prompt,
    progress_status,
)
from prettyscore.ui.layout import page_layout
from prettyscore.ui.score import gradient_bar
from prettyscore.ui.upload_watch import upload_on_drop

_ON_DROP = upload_on_drop(State, State.choose_photos, UPLOAD_ID)
#: Long words (a refusal's, an aspect list) wrap inside a card rather than widen it.
_WRAP = {"overflow_wrap": "anywhere", "min_width": "0"}


def best_photo_offer(**props) -> rx.Component:
    """'Have several photos? See which one shows you best': the way to the page from
    the upload and results pages."""
    props.setdefault("variant", "ghost")
    props.setdefault("size", "2")
    return link_button(
        messages.BEST_PHOTO_OFFER,
        routes.BEST_PHOTO,
        "images",
        primary=False,
        style={"white_space": "normal", "height": "auto", "text_align": "center"},
        **props,
    )


def _row(*children: rx.Component) -> rx.Component:
    return rx.hstack(*children, spacing="3", justify="center", width="100%", wrap="wrap")


# ---------------------------------------------------------------------------
# Choosing
# ---------------------------------------------------------------------------
def _upload_progress() -> rx.Component:
    """'Processing...' with the upload's progress while the chosen photos travel."""
    return rx.cond(
        State.uploading | State.staging,
        progress_status(messages.PROCESSING, State.upload_percent, testid="upload-progress"),
    )


def _choose() -> rx.Component:
    return rx.vstack(
        image_drop_zone(
            photo_picker_prompt(messages.BEST_PHOTO_CHOOSE, hint=messages.BEST_PHOTO_DROP_HINT),
            upload_id=UPLOAD_ID,
            on_drop=_ON_DROP,
            on_drop_rejected=State.reject_drop(REJECTED_DROP_CODES),
            input_label=messages.BEST_PHOTO_DROP_HINT,
            max_files=constants.BEST_PHOTO_MAX_PHOTOS,
            padding="2.5rem 1.25rem",
            data_testid="best-photo-zone",
        ),
        _upload_progress(),
        spacing="4",
        width="100%",
    )


def _compare_button() -> rx.Component:
    """'Compare My Photos' ('Analyzing...' while it runs). Busy from the click; when no
    answer comes, a notice under it says so and offers to try again."""
    sent = COMPARE_WAIT.pending.value
    return rx.vstack(
        icon_button(
            "sparkles",
            rx.cond(
                COMPARE_WAIT.busy(State.comparing), messages.ANALYZING, messages.BEST_PHOTO_COMPARE
            ),
            size="3",
            style=styles.GRADIENT_BUTTON,
            on_click=[COMPARE_WAIT.start(), State.compare],
            on_mount=COMPARE_WAIT.reset(),
            loading=sent & ~State.comparing,
            disabled=sent | State.comparing | ~rx.State.is_hydrated,
        ),
        COMPARE_WAIT.no_answer_notice(State.comparing, retry=State.compare),
        align="center",
        spacing="2",
    )


def _comparing() -> rx.Component:
    """'Comparing photo 2 of 4...' with its progress, while the photos are read."""
    return rx.cond(
        State.comparing,
        progress_status(
            State.comparing_text,
            State.compared_percent,
            testid="best-photo-progress",
            text_size="3",
            spacing="2",
            max_width="360px",
        ),
    )


def _thumbnail(url: rx.Var) -> rx.Component:
    return rx.image(
        src=url,
        alt=messages.BEST_PHOTO_CHOSEN_ALT,
        width="100%",
        aspect_ratio="1",
        object_fit="cover",
        border_radius="12px",
        background="white",
    )


def _chosen() -> rx.Component:
    """The chosen photos, Change and Compare."""
    return rx.vstack(
        rx.text(State.chosen_text, size="3", color_scheme="gray"),
        rx.grid(
            rx.foreach(State.chosen_urls, _thumbnail),
            columns="3",
            spacing="2",
            width="100%",
            data_testid="best-photo-chosen",
        ),
        _comparing(),
        _row(
            icon_button(
                "refresh-cw",
                messages.BEST_PHOTO_CHANGE,
                variant="outline",
                size="3",
                on_click=State.change_photos,
                disabled=State.comparing,
            ),
            _compare_button(),
        ),
        align="center",
        spacing="4",
        width="100%",
    )


# ---------------------------------------------------------------------------
# The ranking
# ---------------------------------------------------------------------------
def _aspect(item: rx.Var) -> rx.Component:
    """One aspect: its name, a thin bar and its value out of 10."""
    value = item["value"].to(float)
    return rx.grid(
        rx.text(item["name"].to(str), size="2"),
        gradient_bar(value, "6px"),
        rx.text(item["text"].to(str), size="2", weight="bold", text_align="right"),
        columns="5.5rem 1fr 2.25rem",
        align="center",
        spacing="2",
        width="100%",
        data_testid="best-photo-aspect",
    )


def _rank_line(photo: BestPhotoCard) -> rx.Component:
    return rx.hstack(
        rx.badge(
            photo.rank, size="3", radius="full", color_scheme=rx.cond(photo.best, "pink", "gray")
        ),
        rx.cond(
            photo.best,
            rx.text(
                messages.BEST_PHOTO_SHOWS_YOU_BEST, size="3", weight="bold", color="var(--pink-11)"
            ),
        ),
        align="center",
        width="100%",
    )


def _photo_card(photo: BestPhotoCard) -> rx.Component:
    return card(
        rx.vstack(
            _rank_line(photo),
            rx.image(
                src=photo.image_url,
                alt=photo.alt,
                width="100%",
                max_height="320px",
                object_fit="contain",
                border_radius="12px",
                background="var(--gray-a2)",
            ),
            rx.cond(photo.quality != "", rx.text(photo.quality, size="4", weight="bold")),
            rx.cond(
                photo.score != "",
                rx.hstack(
                    rx.text(photo.score, size="3", weight="medium"),
                    rx.text(photo.person_score, size="2", color_scheme="gray"),
                    align="baseline",
                    spacing="3",
                    wrap="wrap",
                ),
            ),
            rx.foreach(photo.aspects.to(list[dict]), _aspect),
            rx.cond(
                photo.differs != "",
                rx.text(
                    photo.differs,
                    size="2",
                    weight="medium",
                    style=_WRAP,
                    data_testid="best-photo-differs",
                ),
            ),
            rx.text(
                photo.advice,
                size="2",
                color_scheme="gray",
                style=_WRAP,
                data_testid="best-photo-advice",
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
        min_width="0",
        padding="1rem",
        data_testid="best-photo-card",
    )


def _ranking() -> rx.Component:
    return rx.vstack(
        rx.cond(
            State.ranked_by_score,
            rx.callout(messages.BEST_PHOTO_RANKED_BY_SCORE, icon="info", width="100%"),
        ),
        rx.grid(
            rx.foreach(State.cards, _photo_card),
            columns=rx.breakpoints(initial="1", sm="2"),
            spacing="4",
            width="100%",
            data_testid="best-photo-ranking",
        ),
        _row(
            icon_button(
                "refresh-cw",
                messages.BEST_PHOTO_CHANGE,
                variant="outline",
                size="3",
                on_click=State.change_photos,
            ),
            link_button(messages.GET_MY_SCORE, routes.UPLOAD, "scan-face", primary=False),
        ),
        spacing="5",
        width="100%",
    )


def best_photo_page() -> rx.Component:
    """/best-photo: choose, compare, see the ranking."""
    return page_layout(
        rx.vstack(
            page_header(messages.TITLE_BEST_PHOTO, messages.BEST_PHOTO_SUBTITLE, "images"),
            rx.cond(
                State.cards.length() > 0,
                _ranking(),
                rx.cond(State.chosen_urls.length() > 0, _chosen(), _choose()),
            ),
            align="center",
            spacing="5",
            width="100%",
            max_width="760px",
            margin_x="auto",
            data_testid="best-photo",
        )
    )


def register(app: rx.App) -> None:
    app.add_page(
        best_photo_page,
        route=routes.BEST_PHOTO,
        title=messages.page_title(messages.TITLE_BEST_PHOTO),
        on_load=State.load_session,
    )
