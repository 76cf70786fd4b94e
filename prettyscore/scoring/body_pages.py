"""Pages of the feet, hands and pet scores (document 001 §2 Feet, Hands, Pet):
/feet-upload and /hands-upload behind their feature gates, /pet-upload for members, and
/feet-results, /hands-results and /pet-results."""

from __future__ import annotations

import reflex as rx

from prettyscore.analysis.kinds import FEET, HANDS, PET
from prettyscore.core import messages, routes
from prettyscore.gates.components import feature_gate
from prettyscore.scoring.body_service import FEATURES, RESULTS_ROUTES, UPLOAD_ROUTES
from prettyscore.scoring.body_state import (
    BODY_SAVE_WAIT,
    BODY_SCORE_WAIT,
    CAMERA_UPLOAD_ID,
    GALLERY_UPLOAD_ID,
    BodyScoreState,
)
from prettyscore.ui import styles
from prettyscore.ui.celebration import confetti
from prettyscore.ui.comparison import photo_frame
from prettyscore.ui.components import (
    REJECTED_DROP_CODES,
    camera_picker,
    card,
    icon_button,
    image_drop_zone,
    link_button,
    page_header,
    photo_picker_prompt,
    progress_status,
)
from prettyscore.ui.layout import page_layout
from prettyscore.ui.score import breakdown_bars, score_circle
from prettyscore.ui.share import share_button
from prettyscore.ui.upload_watch import upload_on_drop

State = BodyScoreState

UPLOAD_TITLES = {
    FEET: messages.TITLE_FEET_UPLOAD,
    HANDS: messages.TITLE_HANDS_UPLOAD,
    PET: messages.TITLE_PET_UPLOAD,
}
UPLOAD_SUBTITLES = {
    FEET: messages.FEET_UPLOAD_SUBTITLE,
    HANDS: messages.HANDS_UPLOAD_SUBTITLE,
    PET: messages.PET_UPLOAD_SUBTITLE,
}
RESULTS_TITLES = {
    FEET: messages.FEET_RESULTS_TITLE,
    HANDS: messages.HANDS_RESULTS_TITLE,
    PET: messages.PET_RESULTS_TITLE,
}
ICONS = {FEET: "footprints", HANDS: "hand", PET: "paw-print"}
CHECKS = {FEET: messages.FEET_CHECKS, HANDS: messages.HANDS_CHECKS, PET: messages.PET_CHECKS}
SCORE_BUTTONS = {
    FEET: messages.GET_MY_SCORE,
    HANDS: messages.GET_MY_SCORE,
    PET: messages.GET_MY_PETS_SCORE,
}
# The other scores each results page links to (document 001 §2 Feet, Hands).
CROSS_LINKS = {
    FEET: (
        (messages.SCORE_YOUR_FACE, routes.UPLOAD),
        (messages.SCORE_YOUR_HANDS, routes.HANDS_UPLOAD),
    ),
    HANDS: (
        (messages.SCORE_YOUR_FACE, routes.UPLOAD),
        (messages.SCORE_YOUR_FEET, routes.FEET_UPLOAD),
    ),
}

_ON_DROP = {
    upload_id: upload_on_drop(State, State.choose_photo, upload_id)
    for upload_id in (GALLERY_UPLOAD_ID, CAMERA_UPLOAD_ID)
}
_ON_REJECT = State.reject_drop(REJECTED_DROP_CODES)


def _row(*children: rx.Component) -> rx.Component:
    return rx.hstack(*children, spacing="3", justify="center", width="100%", wrap="wrap")


# ---------------------------------------------------------------------------
# /{kind}-upload
# ---------------------------------------------------------------------------
def _score_button(kind: str, **props) -> rx.Component:
    """'Get My Score!' ('Analyzing...' while the analysis runs; without a photo the
    server answers 'Please upload a photo first'; while a photo is still arriving the
    button waits for it). Busy from the click; when no answer comes, a notice under it
    says so and offers to try again."""
    sent = BODY_SCORE_WAIT.pending.value
    return rx.vstack(
        icon_button(
            "sparkles",
            rx.cond(BODY_SCORE_WAIT.busy(State.analyzing), messages.ANALYZING, SCORE_BUTTONS[kind]),
            size="3",
            style=styles.GRADIENT_BUTTON,
            on_click=[BODY_SCORE_WAIT.start(), State.analyse],
            on_mount=BODY_SCORE_WAIT.reset(),
            loading=State.uploading | (sent & ~State.analyzing),
            disabled=props.pop("disabled", State.uploading) | sent,
            **props,
        ),
        BODY_SCORE_WAIT.no_answer_notice(State.analyzing, retry=State.analyse),
        align="center",
        spacing="2",
    )


def _choose(kind: str) -> rx.Component:
    """No photo yet: the gallery's drop zone, the camera, and the score button."""
    return rx.vstack(
        image_drop_zone(
            photo_picker_prompt(messages.FROM_GALLERY),
            upload_id=GALLERY_UPLOAD_ID,
            on_drop=_ON_DROP[GALLERY_UPLOAD_ID],
            on_drop_rejected=_ON_REJECT,
            padding="2.5rem 1.25rem",
            data_testid="upload-zone",
        ),
        _row(
            camera_picker(
                messages.TAKE_PHOTO,
                upload_id=CAMERA_UPLOAD_ID,
                on_drop=_ON_DROP[CAMERA_UPLOAD_ID],
                on_drop_rejected=_ON_REJECT,
                data_testid="camera-picker",
            ),
            _score_button(kind, disabled=~rx.State.is_hydrated | State.uploading),
        ),
        _upload_progress(),
        spacing="4",
        width="100%",
    )


def _upload_progress() -> rx.Component:
    """'Processing...' with the upload's progress while a chosen photo travels."""
    return rx.cond(
        State.uploading,
        progress_status(messages.PROCESSING, State.upload_percent, testid="upload-progress"),
    )


def _check_line(index: int, text: str) -> rx.Component:
    return rx.hstack(
        rx.center(
            rx.cond(
                State.checks_done > index,
                rx.icon("circle-check", size=20, color=styles.PINK),
                rx.spinner(size="2"),
            ),
            width="20px",
            flex_shrink="0",
        ),
        rx.text(text, size="3"),
        align="center",
        spacing="3",
    )


def _analyzing_card(kind: str) -> rx.Component:
    """The loading card: three check lines, ticked off while the photo is analysed."""
    return rx.cond(
        State.analyzing,
        card(
            rx.vstack(
                rx.heading(messages.BODY_ANALYZING_TITLE, size="4"),
                *[_check_line(i, text) for i, text in enumerate(CHECKS[kind])],
                spacing="3",
                width="100%",
            ),
            width="100%",
            data_testid="analyzing-card",
        ),
    )


def _preview(kind: str) -> rx.Component:
    return rx.vstack(
        rx.image(
            src=State.preview_url,
            alt=messages.CHOSEN_PHOTO_ALT,
            width="100%",
            max_height="480px",
            object_fit="contain",
            border_radius="20px",
            background="white",
        ),
        _analyzing_card(kind),
        _row(
            icon_button(
                "refresh-cw",
                messages.CHANGE_PHOTO,
                variant="outline",
                size="3",
                on_click=State.change_photo,
                disabled=State.analyzing,
            ),
            _score_button(kind, disabled=State.analyzing | ~rx.State.is_hydrated),
        ),
        spacing="4",
        width="100%",
    )


def _upload_body(kind: str) -> rx.Component:
    free = [rx.badge(messages.FREE_FOR_ALL_USERS, size="3", radius="full")] if kind == PET else []
    return rx.vstack(
        page_header(UPLOAD_TITLES[kind], UPLOAD_SUBTITLES[kind], ICONS[kind]),
        *free,
        rx.cond(
            (State.preview_url != "") & (State.kind == kind),
            _preview(kind),
            _choose(kind),
        ),
        align="center",
        spacing="5",
        width="100%",
        max_width="640px",
        margin_x="auto",
        data_testid=f"{kind}-upload",
    )


def upload_page(kind: str):
    """The page function of ``kind``'s upload page (behind its gate when it has one)."""

    def page() -> rx.Component:
        body = _upload_body(kind)
        return page_layout(feature_gate(FEATURES[kind], body) if kind in FEATURES else body)

    page.__name__ = f"{kind}_upload_page"
    return page


# ---------------------------------------------------------------------------
# /feet-results and /hands-results
# ---------------------------------------------------------------------------
def _share(**props) -> rx.Component:
    return share_button(
        State.share_message,
        State.image_url,
        label=messages.SHARE_HEADING,
        copied=messages.SHARE_TEXT_COPIED_SHORT,
        **props,
    )


def _actions(kind: str) -> rx.Component:
    """Save (until saved, then Share takes the lead), Share, Download, Try Another Photo;
    a Save that goes unanswered says so below them."""
    return rx.vstack(
        _row(
            rx.cond(
                State.saved,
                _share(style=styles.GRADIENT_BUTTON),
                rx.fragment(
                    icon_button(
                        "bookmark",
                        messages.SAVE_TO_DASHBOARD,
                        size="3",
                        style=styles.GRADIENT_BUTTON,
                        on_click=BODY_SAVE_WAIT.send(State.save),
                        loading=BODY_SAVE_WAIT.pending.value,
                    ),
                    _share(variant="outline", style={}),
                ),
            ),
            icon_button(
                "download",
                messages.DOWNLOAD_RESULT_CARD,
                size="3",
                variant="soft",
                on_click=State.download_card,
            ),
            link_button(
                messages.TRY_ANOTHER_PHOTO, UPLOAD_ROUTES[kind], "rotate-ccw", primary=False
            ),
        ),
        BODY_SAVE_WAIT.no_answer_notice(State.saved, retry=BODY_SAVE_WAIT.retry(State.save, 0)),
        align="center",
        spacing="3",
        width="100%",
    )


def _cross_links(kind: str) -> rx.Component:
    return _row(
        *[
            link_button(text, href, "arrow-right", primary=False, variant="ghost")
            for text, href in CROSS_LINKS[kind]
        ]
    )


def _waiting() -> rx.Component:
    return rx.center(rx.spinner(size="3"), padding="4em", width="100%")


def _scored_results(kind: str) -> rx.Component:
    return rx.vstack(
        page_header(RESULTS_TITLES[kind]),
        rx.grid(
            rx.vstack(
                score_circle(State.score, State.label, State.emoji, State.color),
                breakdown_bars(State.breakdown),
                align="center",
                spacing="5",
                width="100%",
            ),
            photo_frame(State.image_url),
            columns=rx.breakpoints(initial="1", md="2"),
            spacing="6",
            width="100%",
        ),
        _actions(kind),
        _cross_links(kind),
        spacing="6",
        width="100%",
        data_testid="body-results",
    )


def _pet_results() -> rx.Component:
    return rx.vstack(
        page_header(RESULTS_TITLES[PET]),
        card(
            rx.vstack(
                photo_frame(State.image_url, alt=messages.PET_PHOTO_ALT),
                rx.text(
                    State.score_text,
                    font_size="5rem",
                    weight="bold",
                    line_height="1",
                    style=styles.GRADIENT_TEXT,
                    data_testid="score-value",
                ),
                rx.text(messages.OUT_OF_10, size="4", color_scheme="gray"),
                rx.heading(State.emoji, " ", State.label, size="6", data_testid="score-label"),
                rx.text(State.pet_summary, size="4", align="center"),
                _row(
                    link_button(messages.TRY_ANOTHER_PHOTO, UPLOAD_ROUTES[PET], "rotate-ccw"),
                    icon_button(
                        "share-2",
                        messages.SHARE_RESULTS,
                        size="3",
                        variant="outline",
                        on_click=rx.toast.info(messages.SHARE_COMING_SOON),
                    ),
                    icon_button(
                        "download",
                        messages.DOWNLOAD,
                        size="3",
                        variant="soft",
                        on_click=rx.toast.info(messages.DOWNLOAD_COMING_SOON),
                    ),
                ),
                align="center",
                spacing="4",
                width="100%",
            ),
            width="100%",
            max_width="640px",
            margin_x="auto",
        ),
        spacing="6",
        width="100%",
        data_testid="body-results",
    )


def results_page(kind: str):
    """The page function of ``kind``'s results page."""

    def page() -> rx.Component:
        if kind == PET:
            return page_layout(rx.cond(State.result_kind == PET, _pet_results(), _waiting()))
        return page_layout(
            confetti(State.celebrate & (State.result_kind == kind)),
            rx.cond(State.result_kind == kind, _scored_results(kind), _waiting()),
        )

    page.__name__ = f"{kind}_results_page"
    return page


def register(app: rx.App) -> None:
    """Add the feet, hands and pet pages to the app."""
    for kind in (FEET, HANDS, PET):
        app.add_page(
            upload_page(kind),
            route=UPLOAD_ROUTES[kind],
            title=messages.page_title(UPLOAD_TITLES[kind]),
            on_load=State.open_upload(kind),
        )
        app.add_page(
            results_page(kind),
            route=RESULTS_ROUTES[kind],
            title=messages.page_title(RESULTS_TITLES[kind]),
            on_load=State.open_results(kind),
        )
