"""/editor: the Premium AI photo editor."""

from __future__ import annotations

import reflex as rx

from prettyscore.core import messages, routes
from prettyscore.editing.adjustments import BLUR_MAX, BLUR_STEP, PERCENT_MAX
from prettyscore.editing.components import (
    custom_prompt_form,
    free_edits_line,
    no_edits_left,
    preset_tabs,
    upgrade_prompt,
)
from prettyscore.editor.state import (
    CUSTOM_EDIT_WAIT,
    DOWNLOAD_WAIT,
    EDIT_WAIT,
    EDITOR_UPLOAD_ID,
    SAVE_WAIT,
    SLIDER_DEFAULTS,
    SLIDERS,
    EditorState,
    slider_values,
)
from prettyscore.ui import styles
from prettyscore.ui.components import (
    REJECTED_DROP_CODES,
    card,
    icon_button,
    image_drop_zone,
    page_header,
    photo_picker_prompt,
)
from prettyscore.ui.layout import page_layout

_ON_DROP = EditorState.upload(rx.upload_files(upload_id=EDITOR_UPLOAD_ID))
_PREVIEW_MAX_WIDTH = "560px"

# (state name, accessible label, unit, maximum, step)
_SLIDER_ROWS = (
    ("brightness", "Brightness", "%", PERCENT_MAX, 1),
    ("contrast", "Contrast", "%", PERCENT_MAX, 1),
    ("saturation", "Saturation", "%", PERCENT_MAX, 1),
    ("blur", "Blur", "px", BLUR_MAX, BLUR_STEP),
)

_RANGE = {
    "width": "100%",
    "accent_color": "var(--pink-9)",
    "cursor": "pointer",
    "&:focus-visible": {"outline": "2px solid var(--pink-9)", "outline_offset": "3px"},
}


def _busy():
    saving = SAVE_WAIT.busy(EditorState.saving)
    return EditorState.editing | saving | ~rx.State.is_hydrated


# ---------------------------------------------------------------------------
# The photo
# ---------------------------------------------------------------------------
def _preview_filter() -> rx.Var:
    """The CSS filter the sliders set on the preview, in the order the server applies.

    Blur is in pixels of the photo itself: the preview box is a size container, so
    ``100cqw / width`` is one photo pixel on screen, however large the photo is shown.
    """
    b, c, s, blur = (SLIDERS[name].value for name in SLIDER_DEFAULTS)
    blur_length = rx.cond(
        EditorState.image_width > 0,
        f"calc({blur} * 100cqw / {EditorState.image_width})",
        f"{blur}px",
    )
    return rx.Var.create(f"brightness({b}%) contrast({c}%) saturate({s}%) blur({blur_length})")


def _preview() -> rx.Component:
    return rx.vstack(
        rx.box(
            rx.image(
                src=EditorState.image_url,
                alt="Photo being edited",
                style={"display": "block", "width": "100%", "height": "auto"},
                filter=_preview_filter(),
                data_testid="editor-preview",
            ),
            rx.cond(
                EditorState.editing,
                rx.center(
                    rx.vstack(
                        rx.spinner(size="3"),
                        rx.text("Editing...", weight="bold", color="white"),
                        align="center",
                    ),
                    position="absolute",
                    inset="0",
                    background="rgba(20, 10, 30, 0.45)",
                ),
            ),
            rx.cond(
                EditorState.score_text != "",
                rx.badge(
                    rx.icon("star", size=14),
                    EditorState.score_text + "/10 · " + EditorState.score_label,
                    size="3",
                    radius="full",
                    position="absolute",
                    top="0.75rem",
                    left="0.75rem",
                    style={"background": styles.BRAND_GRADIENT, "color": "white"},
                    data_testid="editor-score",
                ),
            ),
            position="relative",
            overflow="hidden",
            border_radius="20px",
            background="white",
            width="100%",
            max_width=_PREVIEW_MAX_WIDTH,
            margin_x="auto",
            style={"container_type": "inline-size"},
        ),
        _history_bar(),
        rx.cond(
            EditorState.from_my_photos,
            rx.text(
                "From My Photos: saving updates this photo.",
                size="2",
                color_scheme="gray",
            ),
        ),
        _new_photo_zone(),
        spacing="3",
        width="100%",
        align="center",
    )


def _history_bar() -> rx.Component:
    return rx.hstack(
        icon_button(
            "undo-2",
            "Undo",
            variant="soft",
            on_click=EditorState.undo,
            disabled=~EditorState.can_undo | _busy(),
        ),
        rx.text(
            "Version ",
            EditorState.version_number,
            " of ",
            EditorState.version_count,
            size="2",
            color_scheme="gray",
            data_testid="editor-version",
        ),
        icon_button(
            "redo-2",
            "Redo",
            variant="soft",
            on_click=EditorState.redo,
            disabled=~EditorState.can_redo | _busy(),
        ),
        align="center",
        justify="center",
        spacing="4",
        width="100%",
    )


def _new_photo_zone() -> rx.Component:
    return image_drop_zone(
        rx.hstack(
            rx.icon("image-up", size=18, color=styles.PINK),
            rx.text("Upload a new photo", size="2", weight="medium"),
            align="center",
            justify="center",
            spacing="2",
        ),
        upload_id=EDITOR_UPLOAD_ID,
        on_drop=_ON_DROP,
        on_drop_rejected=EditorState.reject_drop(REJECTED_DROP_CODES),
        padding="0.75rem 1rem",
        max_width=_PREVIEW_MAX_WIDTH,
        data_testid="editor-upload-zone",
    )


def _first_photo_zone() -> rx.Component:
    return image_drop_zone(
        photo_picker_prompt(messages.CHOOSE_PHOTO),
        upload_id=EDITOR_UPLOAD_ID,
        on_drop=_ON_DROP,
        on_drop_rejected=EditorState.reject_drop(REJECTED_DROP_CODES),
        padding="3rem 1.25rem",
        data_testid="editor-upload-zone",
    )


# ---------------------------------------------------------------------------
# Sliders
# ---------------------------------------------------------------------------
def _slider(name: str, label: str, unit: str, maximum: float, step: float) -> rx.Component:
    value = SLIDERS[name].value
    return rx.vstack(
        rx.hstack(
            rx.el.label(label, html_for=f"editor-{name}", style={"font_weight": "500"}),
            rx.spacer(),
            rx.text(f"{value}{unit}", size="2", color_scheme="gray"),
            width="100%",
        ),
        rx.el.input(
            type="range",
            id=f"editor-{name}",
            min=0,
            max=maximum,
            step=step,
            value=value,
            on_change=SLIDERS[name].set,
            aria_label=label,
            style=_RANGE,
        ),
        spacing="1",
        width="100%",
    )


def _reset_sliders():
    return [SLIDERS[name].set_value(default) for name, default in SLIDER_DEFAULTS.items()]


def _sliders_card() -> rx.Component:
    return card(
        rx.vstack(
            rx.hstack(
                rx.heading("Adjust", size="4"),
                rx.spacer(),
                icon_button("rotate-ccw", "Reset", variant="ghost", on_click=_reset_sliders()),
                icon_button(
                    "check",
                    "Apply",
                    variant="soft",
                    on_click=EditorState.apply_sliders(slider_values()),
                    disabled=_busy(),
                ),
                width="100%",
                align="center",
            ),
            *[_slider(*row) for row in _SLIDER_ROWS],
            spacing="3",
            width="100%",
        ),
        width="100%",
    )


# ---------------------------------------------------------------------------
# AI edits
# ---------------------------------------------------------------------------
def _ai_card() -> rx.Component:
    """The shared AI edit controls; every edit carries the sliders' pending values."""
    no_edits = no_edits_left(EditorState.premium, EditorState.free_edits_left)
    return card(
        rx.vstack(
            rx.hstack(
                rx.heading("AI Edits", size="4"),
                rx.spacer(),
                free_edits_line(EditorState.premium, EditorState.free_edits_left),
                width="100%",
                align="center",
                wrap="wrap",
            ),
            preset_tabs(
                EditorState.run_edit,
                slider_values(),
                editing=_busy(),
                no_edits=no_edits,
                wait=EDIT_WAIT,
            ),
            rx.text("Custom AI Edit", weight="medium", size="2"),
            custom_prompt_form(
                value=EditorState.edit_prompt,
                on_change=EditorState.set_edit_prompt,
                on_submit=EditorState.submit_custom_edit(slider_values()),
                busy=_busy(),
                no_edits=no_edits,
                wait=CUSTOM_EDIT_WAIT,
            ),
            upgrade_prompt(no_edits),
            spacing="3",
            width="100%",
        ),
        width="100%",
    )


# ---------------------------------------------------------------------------
# Save and download
# ---------------------------------------------------------------------------
def _save_button() -> rx.Component:
    saving = SAVE_WAIT.busy(EditorState.saving)
    save = SAVE_WAIT.send(EditorState.save, slider_values())
    return rx.cond(
        EditorState.signed_in,
        icon_button(
            "bookmark",
            rx.cond(saving, "Saving...", "Save to My Photos"),
            size="3",
            style=styles.GRADIENT_BUTTON,
            on_click=save,
            loading=saving,
            disabled=_busy(),
        ),
        icon_button(
            "log-in",
            messages.SIGN_IN_TO_SAVE,
            size="3",
            variant="outline",
            on_click=save,
        ),
    )


def _actions() -> rx.Component:
    return rx.vstack(
        rx.hstack(
            _save_button(),
            icon_button(
                "download",
                "Download",
                size="3",
                variant="soft",
                on_click=DOWNLOAD_WAIT.send(EditorState.download, slider_values()),
                loading=DOWNLOAD_WAIT.pending.value,
                disabled=~rx.State.is_hydrated | DOWNLOAD_WAIT.pending.value,
            ),
            spacing="3",
            wrap="wrap",
            justify="center",
            width="100%",
        ),
        SAVE_WAIT.no_answer_notice(EditorState.saving, retry=SAVE_WAIT.retry(EditorState.save, 1)),
        DOWNLOAD_WAIT.no_answer_notice(
            rx.Var.create(False), retry=DOWNLOAD_WAIT.retry(EditorState.download, 1)
        ),
        spacing="3",
        width="100%",
    )


def editor_page() -> rx.Component:
    """/editor: the photo with its versions beside the sliders and the AI edits."""
    return page_layout(
        page_header(
            messages.TITLE_EDITOR,
            "Fine-tune your photo and transform it with AI",
            "wand-sparkles",
        ),
        rx.grid(
            rx.vstack(
                rx.cond(EditorState.image_url != "", _preview(), _first_photo_zone()),
                _actions(),
                spacing="4",
                width="100%",
            ),
            rx.vstack(_sliders_card(), _ai_card(), spacing="4", width="100%"),
            columns=rx.breakpoints(initial="1", md="2"),
            spacing="5",
            width="100%",
            data_testid="editor",
        ),
    )


def register(app: rx.App) -> None:
    """Add /editor to the app."""
    app.add_page(
        editor_page,
        route=routes.EDITOR,
        title=messages.page_title(messages.TITLE_EDITOR),
        on_load=EditorState.open_editor,
    )
