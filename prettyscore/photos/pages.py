"""My Photos (/dashboard): the member's saved photos, newest or best first."""

from __future__ import annotations

import reflex as rx

from prettyscore.core import messages, routes
from prettyscore.photos.editor_components import download_button, download_notice, editor_panel
from prettyscore.photos.editor_state import PhotoEditorState
from prettyscore.photos.state import DELETE_ACCOUNT_WAIT, DELETE_WAIT, PhotosState
from prettyscore.ui import styles
from prettyscore.ui.comparison import before_after_slider, photo_frame
from prettyscore.ui.explanation import explanation_panel
from prettyscore.ui.score import score_breakdown
from prettyscore.ui.share import share_button, share_text_var
from prettyscore.video.pages import video_dialog
from prettyscore.video.state import VideoState

#: Delete and Delete everything: the server marks no work as under way.
_NOTHING_UNDER_WAY = rx.Var.create(False)


def _score_badge(score_text) -> rx.Component:
    return rx.badge(
        rx.text(score_text, weight="bold"),
        "/10",
        size="2",
        radius="full",
        style={**styles.GRADIENT_BUTTON, "position": "absolute", "top": "10px", "right": "10px"},
        data_testid="photo-score",
    )


def _metric(metric) -> rx.Component:
    return rx.hstack(
        rx.text(metric.name, size="1", color_scheme="gray"),
        rx.spacer(),
        rx.text(metric.value, "/10", size="1", weight="medium"),
        width="100%",
    )


def _photo_card(photo) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.box(
                rx.image(
                    src=photo.image_url,
                    alt=photo.label,
                    width="100%",
                    height="240px",
                    object_fit="cover",
                    object_position=photo.focus,
                    border_radius="12px",
                    loading="lazy",
                ),
                _score_badge(photo.score_text),
                position="relative",
                width="100%",
            ),
            rx.hstack(
                rx.text(photo.label, weight="bold"),
                rx.cond(
                    photo.kind_title != "",
                    rx.badge(photo.kind_title, size="1", radius="full", variant="soft"),
                ),
                rx.spacer(),
                rx.text(photo.created, size="1", color_scheme="gray"),
                width="100%",
                align="center",
            ),
            rx.foreach(photo.metrics, _metric),
            spacing="2",
            width="100%",
        ),
        on_click=[PhotoEditorState.close_editor, PhotosState.open_details(photo.id)],
        cursor="pointer",
        data_testid="photo-card",
        width="100%",
    )


def _open_video_dialog() -> list:
    """Close this dialog (two modals never stack), then open the video dialog with the
    selected photo's current image."""
    return [
        PhotosState.set_details_open(False),
        VideoState.open_dialog(PhotosState.selected.id),
    ]


def _details_view() -> rx.Component:
    """The saved photo with its actions: Edit Photo, Download, Share, Delete."""
    photo = PhotosState.selected
    return rx.fragment(
        rx.dialog.title(photo.label, " · ", photo.score_text, "/10"),
        rx.cond(
            photo.edited_url != "",
            before_after_slider(photo.original_url, photo.edited_url),
            photo_frame(photo.original_url),
        ),
        rx.hstack(
            rx.button(
                rx.icon("wand-sparkles", size=16),
                "Edit Photo",
                variant="soft",
                on_click=PhotoEditorState.open_editor,
            ),
            rx.button(
                rx.icon("clapperboard", size=16),
                "Generate Video",
                variant="soft",
                on_click=_open_video_dialog(),
            ),
            download_button(rx.cond(photo.edited_url != "", "edited", "original")),
            share_button(
                share_text_var(photo.score, photo.label),
                photo.image_url,
                size="2",
                variant="soft",
                style={},
            ),
            rx.alert_dialog.root(
                rx.alert_dialog.trigger(
                    rx.button(
                        rx.icon("trash-2", size=16),
                        "Delete",
                        color_scheme="red",
                        variant="soft",
                        loading=DELETE_WAIT.pending.value,
                    )
                ),
                rx.alert_dialog.content(
                    rx.alert_dialog.title("Delete this photo?"),
                    rx.alert_dialog.description(
                        "The photo, its files and any leaderboard entry are deleted for good."
                    ),
                    rx.hstack(
                        rx.alert_dialog.cancel(rx.button("Cancel", variant="soft")),
                        rx.alert_dialog.action(
                            rx.button(
                                "Delete photo",
                                color_scheme="red",
                                high_contrast=True,
                                on_click=DELETE_WAIT.send(PhotosState.delete_selected),
                            )
                        ),
                        spacing="3",
                        justify="end",
                    ),
                ),
            ),
            spacing="2",
            wrap="wrap",
            padding_top="1em",
        ),
        download_notice(),
        DELETE_WAIT.no_answer_notice(
            _NOTHING_UNDER_WAY, retry=DELETE_WAIT.retry(PhotosState.delete_selected, 0)
        ),
        rx.cond(
            PhotosState.selected_bars.length() > 0,
            rx.box(
                score_breakdown(
                    PhotosState.selected_bars,
                    PhotosState.selected_apart,
                    PhotosState.selected_sum,
                ),
                padding_top="1em",
            ),
        ),
        rx.box(
            explanation_panel(photo.explanation_url, PhotosState.selected_notes),
            padding_top="1em",
        ),
    )


def _details_dialog() -> rx.Component:
    """A saved photo's dialog: its details, or the editor panel after 'Edit Photo'."""
    return rx.dialog.root(
        rx.dialog.content(
            rx.cond(
                PhotoEditorState.editor_open,
                editor_panel(_open_video_dialog()),
                _details_view(),
            ),
            rx.dialog.close(rx.button("Close", variant="ghost", margin_top="1em")),
            max_width="620px",
        ),
        open=PhotosState.details_open,
        on_open_change=PhotosState.set_details_open,
    )


def _empty_state() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.icon("image", size=40, color=styles.PINK),
            rx.text("You haven't saved any photos yet."),
            rx.link(
                rx.button(messages.UPLOAD_YOUR_FIRST_PHOTO, high_contrast=True), href=routes.UPLOAD
            ),
            align="center",
            spacing="3",
            padding="2em",
        ),
        width="100%",
    )


#: The grid's columns by screen width (dashboard.pages' loading view follows them too).
PHOTO_GRID_COLUMNS = rx.breakpoints(initial="1", sm="2", lg="3")


def _photo_grid() -> rx.Component:
    return rx.vstack(
        rx.grid(
            rx.foreach(PhotosState.photos, _photo_card),
            columns=PHOTO_GRID_COLUMNS,
            spacing="4",
            width="100%",
        ),
        rx.cond(
            PhotosState.has_more,
            rx.button(
                "Show more",
                variant="soft",
                on_click=PhotosState.load_more,
                loading=PhotosState.loading,
            ),
        ),
        align="center",
        spacing="4",
        width="100%",
    )


def account_zone() -> rx.Component:
    """Deleting the account (the privacy policy's right to erasure): busy from the press,
    and said when no answer comes."""
    return rx.vstack(
        rx.alert_dialog.root(
            rx.alert_dialog.trigger(
                rx.button(
                    "Delete my account",
                    variant="ghost",
                    color_scheme="red",
                    size="1",
                    loading=DELETE_ACCOUNT_WAIT.pending.value,
                )
            ),
            _account_deletion_dialog(),
        ),
        DELETE_ACCOUNT_WAIT.no_answer_notice(
            _NOTHING_UNDER_WAY, retry=DELETE_ACCOUNT_WAIT.retry(PhotosState.delete_account, 0)
        ),
        align="start",
        spacing="2",
        width="100%",
    )


def _account_deletion_dialog() -> rx.Component:
    return rx.alert_dialog.content(
        rx.alert_dialog.title("Delete your account?"),
        rx.alert_dialog.description(
            "Your account, every photo you saved and all their files are deleted for good."
        ),
        rx.hstack(
            rx.alert_dialog.cancel(rx.button("Cancel", variant="soft")),
            rx.alert_dialog.action(
                rx.button(
                    "Delete everything",
                    color_scheme="red",
                    high_contrast=True,
                    on_click=DELETE_ACCOUNT_WAIT.send(PhotosState.delete_account),
                )
            ),
            spacing="3",
            justify="end",
        ),
    )


def my_photos_tab() -> rx.Component:
    """My Photos: the count, the sort order, the grid and the photo dialogs."""
    return rx.vstack(
        rx.hstack(
            rx.heading(
                f"{messages.NAV_MY_PHOTOS} (",
                PhotosState.total,
                ")",
                size="5",
                data_testid="photo-count",
            ),
            rx.spacer(),
            rx.select.root(
                rx.select.trigger(aria_label="Sort photos"),
                rx.select.content(
                    rx.select.item(messages.LATEST_FIRST, value="latest"),
                    rx.select.item(messages.HIGHEST_RATING, value="highest"),
                ),
                value=PhotosState.sort,
                on_change=PhotosState.set_sort,
            ),
            width="100%",
            align="center",
        ),
        rx.cond(
            PhotosState.loading & (PhotosState.total == 0),
            rx.center(rx.text(messages.LOADING_YOUR_PHOTOS), padding="3em", width="100%"),
            rx.cond(PhotosState.total == 0, _empty_state(), _photo_grid()),
        ),
        _details_dialog(),
        video_dialog(),
        spacing="4",
        width="100%",
    )
