"""The dashboard editor panel, shown in a saved photo's details dialog after 'Edit Photo'.

Two views, as the documents describe: the prompt view (tabs Background, Hair, Outfit with
their presets, and a custom prompt) and, after an edit, the actions: Download, Undo,
Redo, Edit Again, Generate Video, Download HD Version (4K) and the social share buttons.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.core import messages
from prettyscore.core.settings import get_settings
from prettyscore.editing import components as edit_controls
from prettyscore.editing.presets import UPSCALE_PROMPT
from prettyscore.photos.editor_state import (
    CUSTOM_EDIT_WAIT,
    EDIT_WAIT,
    PROMPT_VIEW,
    PhotoEditorState,
)
from prettyscore.photos.state import DOWNLOAD_WAIT, PhotosState
from prettyscore.ui.comparison import before_after_slider, photo_frame
from prettyscore.ui.components import icon_button
from prettyscore.ui.share import share_text_var, social_share_row

State = PhotoEditorState
#: For an action whose work the server does not mark as under way (the editing
#: indicator shows an edit's).
_NOTHING_UNDER_WAY = rx.Var.create(False)


def _no_edits_left() -> rx.Var[bool]:
    return edit_controls.no_edits_left(State.premium, State.free_edits_left)


def _busy_or_used_up() -> rx.Var[bool]:
    return EDIT_WAIT.busy(State.editing) | _no_edits_left()


def editor_photo() -> rx.Component:
    """Before/after once the photo has an edit, otherwise the photo."""
    photo = State.selected
    return rx.cond(
        photo.edited_url != "",
        before_after_slider(photo.original_url, photo.edited_url),
        photo_frame(photo.original_url),
    )


def _prompt_view() -> rx.Component:
    return rx.vstack(
        edit_controls.free_edits_line(State.premium, State.free_edits_left),
        edit_controls.preset_tabs(
            State.run_edit,
            "edit",
            editing=State.editing,
            no_edits=_no_edits_left(),
            wait=EDIT_WAIT,
        ),
        edit_controls.custom_prompt_form(
            value=State.edit_prompt,
            on_change=State.set_edit_prompt,
            on_submit=State.submit_custom_edit,
            busy=State.editing,
            no_edits=_no_edits_left(),
            wait=CUSTOM_EDIT_WAIT,
        ),
        edit_controls.upgrade_prompt(_no_edits_left()),
        spacing="3",
        width="100%",
    )


def download_button(which: rx.Var | str, **props) -> rx.Component:
    """'Download' of the selected photo: busy from the press, once per press."""
    return icon_button(
        "download",
        "Download",
        variant="soft",
        on_click=DOWNLOAD_WAIT.send(PhotosState.download_photo, which),
        loading=DOWNLOAD_WAIT.pending.value,
        **props,
    )


def download_notice() -> rx.Component:
    """Said when a Download has gone unanswered; "Try again" asks once more."""
    return DOWNLOAD_WAIT.no_answer_notice(
        _NOTHING_UNDER_WAY, retry=DOWNLOAD_WAIT.retry(PhotosState.download_photo, 1)
    )


def _after_edit_view(generate_video) -> rx.Component:
    photo = State.selected
    return rx.vstack(
        rx.flex(
            download_button("edited"),
            icon_button(
                "undo-2", "Undo", variant="soft", on_click=State.undo, disabled=State.editing
            ),
            icon_button(
                "redo-2",
                "Redo",
                variant="soft",
                on_click=EDIT_WAIT.send(State.run_edit, "", "redo"),
                loading=EDIT_WAIT.busy_for("", _NOTHING_UNDER_WAY),
                disabled=_busy_or_used_up(),
            ),
            icon_button("pencil", messages.EDIT_AGAIN, variant="soft", on_click=State.edit_again),
            icon_button("clapperboard", "Generate Video", variant="soft", on_click=generate_video),
            icon_button(
                "maximize-2",
                messages.DOWNLOAD_HD,
                variant="outline",
                on_click=EDIT_WAIT.send(State.run_edit, UPSCALE_PROMPT, "upscale"),
                loading=EDIT_WAIT.busy_for(UPSCALE_PROMPT, _NOTHING_UNDER_WAY),
                disabled=_busy_or_used_up(),
            ),
            spacing="2",
            wrap="wrap",
        ),
        download_notice(),
        EDIT_WAIT.no_answer_notice(State.editing, EDIT_WAIT.retry(State.run_edit, 2)),
        edit_controls.hd_format_note(),
        social_share_row(share_text_var(photo.score, photo.label), get_settings().public_url),
        edit_controls.free_edits_line(State.premium, State.free_edits_left),
        spacing="3",
        width="100%",
    )


def editor_panel(generate_video) -> rx.Component:
    """The panel: the photo, then the prompt view or the after-edit actions.

    ``generate_video`` is the event that opens the video dialog for the selected photo.
    """
    return rx.vstack(
        rx.hstack(
            rx.dialog.title("Edit Photo", margin="0"),
            rx.spacer(),
            rx.button("Back", variant="ghost", on_click=State.close_editor),
            width="100%",
            align="center",
        ),
        editor_photo(),
        rx.cond(State.view == PROMPT_VIEW, _prompt_view(), _after_edit_view(generate_video)),
        edit_controls.editing_indicator(EDIT_WAIT.busy(State.editing)),
        spacing="3",
        width="100%",
        data_testid="editor-panel",
    )
