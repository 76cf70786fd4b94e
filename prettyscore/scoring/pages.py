"""Pages of the face-scoring flow: /upload and /results."""

from __future__ import annotations

import reflex as rx

from prettyscore.core import messages, routes
from prettyscore.editing import components as edit_controls
from prettyscore.editing.presets import UPSCALE_PROMPT
from prettyscore.leaderboard.components import entry_fields
from prettyscore.scoring import best_photo_pages, body_pages, share_pages
from prettyscore.scoring.best_photo_pages import best_photo_offer
from prettyscore.scoring.state import (
    CUSTOM_EDIT_WAIT,
    EDIT_WAIT,
    JOIN_WAIT,
    RESCORE_WAIT,
    RESULTS_PHOTO,
    SAVE_WAIT,
    SCORE_WAIT,
    UPLOAD_PAGE_ID,
    ScoreState,
)
from prettyscore.ui import early_photo, styles
from prettyscore.ui.celebration import confetti
from prettyscore.ui.comparison import before_after_slider, photo_frame
from prettyscore.ui.components import (
    REJECTED_DROP_CODES,
    deferred,
    icon_button,
    image_drop_zone,
    link_button,
    page_header,
    photo_picker_prompt,
    show_when_ready,
)
from prettyscore.ui.explanation import explanation_panel
from prettyscore.ui.layout import page_layout
from prettyscore.ui.score import (
    footer_challenge_card,
    score_breakdown,
    score_circle,
    special_panel,
    tier_badge,
)
from prettyscore.ui.share import native_share_action, share_panel, share_text_var
from prettyscore.ui.upload_watch import upload_on_drop

_UPLOAD_ON_DROP = upload_on_drop(ScoreState, ScoreState.upload_on_page, UPLOAD_PAGE_ID)
#: A photo is on its way to the server or being checked there.
_PHOTO_ARRIVING = ScoreState.uploading | ScoreState.staging


def upload_progress_bar() -> rx.Component:
    """'Processing...' with the upload's progress while a chosen photo travels."""
    return rx.cond(
        _PHOTO_ARRIVING,
        rx.vstack(
            rx.text(messages.PROCESSING, size="2", weight="medium"),
            rx.progress(
                value=ScoreState.upload_percent,
                max=100,
                width="100%",
                aria_label=messages.PROCESSING,
            ),
            align="center",
            spacing="1",
            width="100%",
            max_width="320px",
            role="status",
            data_testid="upload-progress",
        ),
    )


# ---------------------------------------------------------------------------
# /upload
# ---------------------------------------------------------------------------
def _drop_zone() -> rx.Component:
    """Click or drag a photo here; 'From Gallery' opens the picker; 'Take Photo' is coming."""
    return image_drop_zone(
        photo_picker_prompt(messages.FROM_GALLERY),
        upload_id=UPLOAD_PAGE_ID,
        on_drop=_UPLOAD_ON_DROP,
        on_drop_rejected=ScoreState.reject_drop(REJECTED_DROP_CODES),
        padding="2.5rem 1.25rem",
        data_testid="upload-zone",
    )


def _get_score_button(**props) -> rx.Component:
    """'Get My Score!' (the server says 'Please upload a photo first!' without a photo).
    It may be tapped while the photo is still arriving: the tap is kept, and the score
    follows once the photo is in (the progress bar shows the wait). Busy from the click;
    when no answer comes, a notice under it says so and offers to try again."""
    sent = SCORE_WAIT.pending.value
    busy = SCORE_WAIT.busy(ScoreState.analyzing)
    disabled = props.pop("disabled", None)
    return rx.vstack(
        icon_button(
            "sparkles",
            rx.cond(busy, messages.ANALYZING, messages.GET_MY_SCORE),
            size="3",
            style=styles.GRADIENT_BUTTON,
            on_click=[SCORE_WAIT.start(), ScoreState.analyse],
            on_mount=SCORE_WAIT.reset(),
            loading=sent & ~ScoreState.analyzing,
            disabled=sent if disabled is None else disabled | sent,
            **props,
        ),
        # A photo still arriving is progress shown already (the bar), not silence.
        SCORE_WAIT.no_answer_notice(
            ScoreState.analyzing | _PHOTO_ARRIVING, retry=ScoreState.analyse
        ),
        align="center",
        spacing="2",
    )


def _button_row(*buttons: rx.Component) -> rx.Component:
    return rx.hstack(*buttons, spacing="3", justify="center", width="100%", wrap="wrap")


def _analyzing_overlay() -> rx.Component:
    return rx.cond(
        ScoreState.analyzing,
        rx.center(
            rx.vstack(
                rx.spinner(size="3"),
                rx.text(messages.ANALYZING, weight="bold", size="4", color="white"),
                rx.progress(
                    value=ScoreState.progress, max=100, width="70%", aria_label=messages.ANALYZING
                ),
                align="center",
                spacing="3",
                width="100%",
            ),
            position="absolute",
            inset="0",
            background="rgba(20, 10, 30, 0.55)",
            border_radius="20px",
            data_testid="analyzing-overlay",
        ),
    )


def _preview() -> rx.Component:
    return rx.vstack(
        rx.cond(
            ScoreState.enhanced_notice,
            rx.callout(messages.PHOTO_ENHANCED_ANALYZE, icon="sparkles", color_scheme="pink"),
        ),
        rx.box(
            rx.image(
                src=ScoreState.preview_url,
                alt="Your chosen photo",
                width="100%",
                max_height="480px",
                object_fit="contain",
                border_radius="20px",
                background="white",
            ),
            _analyzing_overlay(),
            position="relative",
            width="100%",
        ),
        _button_row(
            icon_button(
                "refresh-cw",
                messages.CHANGE_PHOTO,
                variant="outline",
                size="3",
                on_click=ScoreState.change_photo,
                disabled=ScoreState.analyzing,
            ),
            _get_score_button(disabled=ScoreState.analyzing | ~rx.State.is_hydrated),
        ),
        spacing="4",
        width="100%",
    )


def upload_page() -> rx.Component:
    """/upload: choose a photo, see it, get the score."""
    return page_layout(
        rx.vstack(
            page_header("Upload Your Photo", "Get your AI beauty score in seconds", "camera"),
            rx.cond(
                ScoreState.preview_url != "",
                _preview(),
                rx.vstack(
                    _drop_zone(),
                    upload_progress_bar(),
                    _button_row(
                        icon_button(
                            "camera",
                            messages.TAKE_PHOTO,
                            variant="outline",
                            size="3",
                            on_click=ScoreState.camera_coming_soon,
                        ),
                        _get_score_button(),
                    ),
                    best_photo_offer(),
                    spacing="4",
                    width="100%",
                ),
            ),
            spacing="5",
            width="100%",
            max_width="640px",
            margin_x="auto",
        )
    )


# ---------------------------------------------------------------------------
# /results
# ---------------------------------------------------------------------------
def _photo_panel() -> rx.Component:
    """Before/after when an edited image exists, otherwise the photo. Beside the score
    (two columns from md up) the frame keeps the photo's height: a grid cell would
    stretch it to the score column's, an empty grey block under the photo."""
    return rx.cond(
        ScoreState.edited_url != "",
        before_after_slider(ScoreState.image_url, ScoreState.edited_url, align_self="start"),
        photo_frame(ScoreState.image_url, fetch_priority="high", align_self="start"),
    )


def _no_edits_left():
    return edit_controls.no_edits_left(ScoreState.premium, ScoreState.free_edits_left)


def _quick_enhancements() -> rx.Component:
    """Quick AI Enhancements: the documents' presets by tab, and the 4K upscale."""
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading("Quick AI Enhancements", size="4"),
                rx.spacer(),
                edit_controls.free_edits_line(ScoreState.premium, ScoreState.free_edits_left),
                width="100%",
                align="center",
                wrap="wrap",
            ),
            edit_controls.preset_tabs(
                ScoreState.run_edit,
                "enhance",
                editing=ScoreState.editing,
                no_edits=_no_edits_left(),
                wait=EDIT_WAIT,
            ),
            icon_button(
                "maximize-2",
                messages.DOWNLOAD_HD,
                variant="outline",
                size="2",
                on_click=EDIT_WAIT.send(ScoreState.run_edit, UPSCALE_PROMPT, "upscale"),
                disabled=EDIT_WAIT.busy(ScoreState.editing) | _no_edits_left(),
            ),
            edit_controls.hd_format_note(),
            edit_controls.editing_indicator(EDIT_WAIT.busy(ScoreState.editing)),
            spacing="3",
            width="100%",
        ),
        width="100%",
    )


def _custom_edit() -> rx.Component:
    """Custom AI Edit: a free-text instruction; Enter submits."""
    return rx.card(
        rx.vstack(
            rx.heading("Custom AI Edit", size="4"),
            edit_controls.custom_prompt_form(
                value=ScoreState.edit_prompt,
                on_change=ScoreState.set_edit_prompt,
                on_submit=ScoreState.submit_custom_edit,
                busy=ScoreState.editing,
                no_edits=_no_edits_left(),
                wait=CUSTOM_EDIT_WAIT,
            ),
            edit_controls.upgrade_prompt(_no_edits_left()),
            rx.cond(ScoreState.edited_url != "", _rescore_button()),
            link_button(
                "Open in Editor",
                f"{routes.EDITOR}?from=results",
                "sliders-horizontal",
                primary=False,
                size="2",
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
    )


def _waiting_button(icon: str, label: str, wait, handler, **props) -> rx.Component:
    """A results button whose action waits on the server: busy from the click, and
    says so when no answer comes (``ui.server_wait``). In Radix's high-contrast colours:
    white on its plain pink reads at 4.1:1."""
    props.setdefault("high_contrast", True)
    return rx.vstack(
        icon_button(
            icon,
            label,
            on_click=wait.send(handler),
            on_mount=wait.reset(),
            loading=wait.pending.value,
            **props,
        ),
        wait.no_answer_notice(rx.Var.create(False), retry=wait.retry(handler, 0)),
        align="center",
        spacing="2",
    )


def _rescore_button() -> rx.Component:
    return _waiting_button(
        "scan-face",
        "Score the edited photo",
        RESCORE_WAIT,
        ScoreState.rescore_edited,
        variant="ghost",
        size="2",
    )


def _save_button() -> rx.Component:
    return _waiting_button(
        "bookmark",
        "Save to My Photos",
        SAVE_WAIT,
        ScoreState.save_photo,
        size="3",
        style=styles.GRADIENT_BUTTON,
    )


def _save_or_sign_in() -> rx.Component:
    return rx.cond(
        ScoreState.signed_in,
        rx.cond(
            ScoreState.saved,
            icon_button("check", "Saved", size="3", variant="soft", disabled=True),
            _save_button(),
        ),
        icon_button(
            "log-in",
            messages.SIGN_IN_TO_SAVE,
            size="3",
            variant="outline",
            on_click=ScoreState.save_photo(""),
        ),
    )


def _actions() -> rx.Component:
    return rx.hstack(
        _save_or_sign_in(),
        icon_button(
            "rotate-ccw", "Try Again", size="3", variant="soft", on_click=ScoreState.try_again
        ),
        icon_button(
            "download",
            "Download Result Card",
            size="3",
            variant="soft",
            on_click=ScoreState.download_card,
        ),
        spacing="3",
        wrap="wrap",
        justify="center",
        width="100%",
    )


def _leaderboard_dialog() -> rx.Component:
    """The opt-in dialog: opens by itself at 9.5 and up."""
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Join the Leaderboard"),
            rx.dialog.description(
                "Your score qualifies for the global leaderboard. Choose how you appear."
            ),
            rx.form(
                rx.vstack(
                    entry_fields(),
                    JOIN_WAIT.attempt_field(),
                    rx.hstack(
                        rx.dialog.close(rx.button("Not now", variant="soft", type="button")),
                        rx.button(
                            messages.ADD_ME_TO_LEADERBOARD,
                            type="submit",
                            loading=JOIN_WAIT.pending.value,
                            disabled=JOIN_WAIT.pending.value,
                            style=styles.GRADIENT_BUTTON,
                        ),
                        justify="end",
                        spacing="3",
                        width="100%",
                    ),
                    JOIN_WAIT.no_answer_notice(rx.Var.create(False)),
                    spacing="3",
                    padding_top="1em",
                ),
                on_submit=JOIN_WAIT.submit(ScoreState.join_leaderboard),
                reset_on_submit=False,
            ),
            max_width="460px",
        ),
        open=ScoreState.leaderboard_open,
        on_open_change=ScoreState.set_leaderboard_open,
    )


def results_page() -> rx.Component:
    """/results: the score, its breakdown, the photo, and what to do next."""
    text = share_text_var(ScoreState.score, ScoreState.label)
    return page_layout(
        confetti(ScoreState.celebrate),
        show_when_ready(
            ScoreState.has_result,
            rx.vstack(
                rx.grid(
                    rx.vstack(
                        # The label once: in the tier badge right under the circle.
                        score_circle(
                            ScoreState.score,
                            ScoreState.label,
                            ScoreState.emoji,
                            ScoreState.color,
                            with_label=False,
                        ),
                        tier_badge(ScoreState.label, ScoreState.emoji, ScoreState.color),
                        score_breakdown(
                            ScoreState.breakdown,
                            ScoreState.breakdown_apart,
                            ScoreState.breakdown_sum,
                        ),
                        align="center",
                        spacing="4",
                        width="100%",
                    ),
                    _photo_panel(),
                    columns=rx.breakpoints(initial="1", md="2"),
                    spacing="5",
                    width="100%",
                ),
                # The result's own actions (save, try again, download, share) come right
                # after it: on a phone they are not three screens down, past the
                # explanation and the edits.
                _actions(),
                share_panel(text, ScoreState.image_url, ScoreState.share_url),
                best_photo_offer(margin_x="auto"),
                # Below: built a moment later, in slices.
                deferred(
                    explanation_panel(ScoreState.explanation_url, ScoreState.explanation_notes),
                    rx.grid(
                        _quick_enhancements(),
                        _custom_edit(),
                        columns=rx.breakpoints(initial="1", md="2"),
                        spacing="4",
                        width="100%",
                    ),
                    special_panel(
                        ScoreState.special_panel,
                        ScoreState.claim_world_record,
                        ScoreState.claim_elite,
                    ),
                    footer_challenge_card(native_share_action(text, ScoreState.image_url)),
                ),
                _leaderboard_dialog(),
                spacing="6",
                width="100%",
                data_testid="results",
            ),
            _loading_view(),
        ),
    )


def _loading_view() -> rx.Component:
    """Until the tab's result arrives: the photo this tab last scored (early_photo) and a
    spinner, tall enough that the footer does not jump when the result replaces it."""
    return rx.vstack(
        early_photo.frame(
            RESULTS_PHOTO,
            alt="Your photo",
            from_tab=True,
            width="100%",
            max_width="420px",
            aspect_ratio="1",
            border_radius="20px",
        ),
        rx.text("Loading your score...", color_scheme="gray"),
        align="center",
        spacing="5",
        padding_y="2em",
        min_height="100vh",
        width="100%",
    )


def register(app: rx.App) -> None:
    """Add the scoring pages to the app: the face's, then the feet, hands and pet ones,
    and "which photo shows you best"."""
    body_pages.register(app)
    best_photo_pages.register(app)
    share_pages.register(app)
    app.add_page(
        upload_page,
        route=routes.UPLOAD,
        title=messages.page_title(messages.TITLE_UPLOAD),
        on_load=ScoreState.load_session,
    )
    app.add_page(
        results_page,
        route=routes.RESULTS,
        title=messages.page_title(messages.TITLE_RESULTS),
        on_load=ScoreState.open_results,
    )
