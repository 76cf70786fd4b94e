"""Video generation: the /video-generation page and the dashboard's video dialog.

Both show the same panel (``video_panel``), driven by the same ``VideoState``. The page
also lists the member's own videos below it ("Your videos", ``your_videos``).
"""

from __future__ import annotations

import reflex as rx

from prettyscore.core import messages, routes
from prettyscore.ui import styles
from prettyscore.ui.components import (
    REJECTED_DROP_CODES,
    icon_button,
    image_drop_zone,
    page_header,
)
from prettyscore.ui.layout import page_layout
from prettyscore.video import service
from prettyscore.video.models import VideoStatus
from prettyscore.video.state import START_WAIT, VIDEO_UPLOAD_ID, VideoRow, VideoState

DURATION_CHOICES = (5, 10)
PAGE_TITLE = "AI Video Generation"
PAGE_SUBTITLE = "Bring your photo to life in a short video"


def _choose_image() -> rx.Component:
    return image_drop_zone(
        rx.vstack(
            rx.icon("image-up", size=30, color=styles.PINK),
            rx.text("Choose or drop a photo to animate", weight="medium"),
            icon_button("images", messages.FROM_GALLERY, type="button", variant="soft"),
            align="center",
            spacing="2",
        ),
        upload_id=VIDEO_UPLOAD_ID,
        on_drop=VideoState.choose_image(rx.upload_files(upload_id=VIDEO_UPLOAD_ID)),
        on_drop_rejected=VideoState.reject_drop(REJECTED_DROP_CODES),
        data_testid="video-upload-zone",
    )


def _duration_choice() -> rx.Component:
    return rx.hstack(
        rx.text("Duration", size="2", weight="medium"),
        rx.select.root(
            rx.select.trigger(aria_label="Video duration"),
            rx.select.content(
                *[
                    rx.select.item(f"{seconds} seconds", value=str(seconds))
                    for seconds in DURATION_CHOICES
                ]
            ),
            value=VideoState.duration.to_string(),
            on_change=VideoState.set_duration,
        ),
        align="center",
        spacing="3",
    )


def _idle() -> rx.Component:
    return rx.vstack(
        rx.cond(
            VideoState.source_url != "",
            rx.vstack(
                rx.image(
                    src=VideoState.source_url,
                    alt="Photo to animate",
                    max_height="320px",
                    border_radius="16px",
                ),
                icon_button(
                    "refresh-cw", "Change Image", variant="ghost", on_click=VideoState.change_image
                ),
                align="center",
                width="100%",
            ),
            _choose_image(),
        ),
        rx.text_area(
            value=VideoState.prompt,
            on_change=VideoState.set_prompt,
            placeholder=messages.VIDEO_DEFAULT_PROMPT,
            aria_label="Video prompt",
            width="100%",
        ),
        _duration_choice(),
        icon_button(
            "clapperboard",
            "Generate Video",
            size="3",
            style=styles.GRADIENT_BUTTON,
            on_click=START_WAIT.send(VideoState.start),
            loading=START_WAIT.pending.value,
            disabled=START_WAIT.pending.value
            | (VideoState.source_url == "")
            | ~rx.State.is_hydrated,
        ),
        START_WAIT.no_answer_notice(
            VideoState.phase == VideoStatus.PROCESSING, retry=START_WAIT.retry(VideoState.start, 0)
        ),
        rx.text(f"Generation takes {messages.VIDEO_TAKES_UP_TO}.", size="2", color_scheme="gray"),
        rx.cond(
            VideoState.videos_left != "",
            rx.text(VideoState.videos_left, size="2", weight="medium", data_testid="videos-left"),
        ),
        spacing="4",
        width="100%",
        align="center",
    )


def _processing() -> rx.Component:
    return rx.vstack(
        rx.spinner(size="3"),
        rx.text("Creating your video...", weight="bold"),
        rx.text(f"This can take {messages.VIDEO_TAKES_UP_TO}.", size="2", color_scheme="gray"),
        align="center",
        spacing="3",
        padding="3em",
        data_testid="video-processing",
    )


def _completed() -> rx.Component:
    return rx.vstack(
        rx.el.video(
            src=VideoState.video_url,
            controls=True,
            plays_inline=True,
            style={"width": "100%", "border_radius": "16px", "background": "black"},
            data_testid="video-player",
        ),
        rx.hstack(
            icon_button(
                "download", "Download", on_click=VideoState.download, style=styles.GRADIENT_BUTTON
            ),
            icon_button(
                "plus", "Generate Another", variant="soft", on_click=VideoState.back_to_idle
            ),
            icon_button(
                "refresh-cw", "Change Image", variant="soft", on_click=VideoState.change_image
            ),
            spacing="3",
            wrap="wrap",
            justify="center",
        ),
        spacing="4",
        width="100%",
        align="center",
    )


def _failed() -> rx.Component:
    return rx.vstack(
        rx.callout(messages.VIDEO_FAILED_INLINE, icon="triangle-alert", color_scheme="red"),
        rx.hstack(
            icon_button(
                "rotate-ccw", "Try Again", on_click=VideoState.back_to_idle, high_contrast=True
            ),
            icon_button(
                "refresh-cw", "Change Image", variant="soft", on_click=VideoState.change_image
            ),
            spacing="3",
        ),
        spacing="4",
        align="center",
        width="100%",
    )


def video_panel() -> rx.Component:
    """What the page and the dialog show: the step the generation is at."""
    return rx.match(
        VideoState.phase,
        (VideoStatus.PROCESSING, _processing()),
        (VideoStatus.COMPLETED, _completed()),
        (VideoStatus.FAILED, _failed()),
        _idle(),
    )


#: A listed video scales to its column (a phone's width included), never wider.
LISTED_PLAYER_STYLE = {
    "display": "block",
    "width": "100%",
    "max_width": "100%",
    "height": "auto",
    "max_height": "420px",
    "object_fit": "contain",
    "border_radius": "12px",
    "background": "black",
}


def _listed_video_body(video: VideoRow) -> rx.Component:
    """A finished video plays in place (its photo as the poster); one still rendering
    shows as under way, until the page's poller finds it done; a failed one says so."""
    return rx.match(
        video.status,
        (
            VideoStatus.COMPLETED,
            rx.el.video(
                src=video.video_url,
                poster=video.poster_url,
                controls=True,
                plays_inline=True,
                preload="metadata",
                aria_label=video.label,
                style=LISTED_PLAYER_STYLE,
                data_testid="listed-video-player",
            ),
        ),
        (
            VideoStatus.PROCESSING,
            rx.vstack(
                rx.spinner(size="3"),
                rx.text(messages.VIDEO_IN_PROGRESS, weight="medium"),
                rx.text(
                    f"This can take {messages.VIDEO_TAKES_UP_TO}.", size="2", color_scheme="gray"
                ),
                align="center",
                justify="center",
                spacing="2",
                width="100%",
                min_height="180px",
                role="status",
                data_testid="listed-video-processing",
            ),
        ),
        rx.callout(
            messages.VIDEO_FAILED_INLINE,
            icon="triangle-alert",
            color_scheme="red",
            width="100%",
            data_testid="listed-video-failed",
        ),
    )


def _listed_video(video: VideoRow) -> rx.Component:
    return rx.card(
        rx.vstack(
            _listed_video_body(video),
            rx.hstack(
                rx.text(
                    video.created, size="2", color_scheme="gray", data_testid="listed-video-date"
                ),
                rx.spacer(),
                rx.cond(
                    video.status == VideoStatus.COMPLETED,
                    icon_button(
                        "download",
                        "Download",
                        size="2",
                        variant="soft",
                        on_click=VideoState.download_video(video.id),
                    ),
                ),
                align="center",
                width="100%",
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
        min_width="0",
        data_testid="listed-video",
    )


def _no_videos() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.icon("film", size=32, color=styles.PINK),
            rx.text(messages.NO_VIDEOS_YET, weight="medium"),
            rx.text(messages.NO_VIDEOS_YET_HINT, size="2", color_scheme="gray"),
            align="center",
            text_align="center",
            spacing="2",
            padding="1.5em",
        ),
        width="100%",
        data_testid="no-videos",
    )


def your_videos() -> rx.Component:
    """The member's own videos, newest first, as the database has them (the page reads
    them on every load): each plays in place, with its Download and its date."""
    return rx.vstack(
        rx.heading(messages.YOUR_VIDEOS, as_="h2", size="5"),
        rx.cond(
            VideoState.videos_loaded,
            rx.cond(
                VideoState.videos.length() > 0,
                rx.grid(
                    rx.foreach(VideoState.videos, _listed_video),
                    columns=rx.breakpoints(initial="1", sm="2"),
                    spacing="4",
                    width="100%",
                ),
                _no_videos(),
            ),
            rx.text(messages.LOADING_YOUR_VIDEOS, size="2", color_scheme="gray"),
        ),
        rx.cond(
            VideoState.more_videos,
            rx.text(
                messages.NEWEST_VIDEOS_SHOWN.format(count=service.MEMBER_VIDEOS_SHOWN),
                size="2",
                color_scheme="gray",
            ),
        ),
        spacing="3",
        width="100%",
        data_testid="your-videos",
    )


def video_page() -> rx.Component:
    """/video-generation (members only)."""
    return page_layout(
        rx.vstack(
            page_header(PAGE_TITLE, PAGE_SUBTITLE, "video"),
            rx.card(video_panel(), width="100%", data_testid="video-generator"),
            your_videos(),
            spacing="5",
            width="100%",
            max_width="640px",
            margin_x="auto",
        )
    )


def video_dialog() -> rx.Component:
    """The dashboard's video dialog, opened with ``VideoState.open_dialog(photo_id)``.

    Closing it leaves a running job alone: reopening shows it still processing or done.
    """
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(PAGE_TITLE),
            rx.dialog.description(
                PAGE_SUBTITLE, size="2", color_scheme="gray", margin_bottom="1em"
            ),
            video_panel(),
            rx.flex(
                rx.dialog.close(rx.button("Close", variant="ghost")),
                justify="end",
                margin_top="1em",
            ),
            max_width="640px",
            data_testid="video-dialog",
        ),
        open=VideoState.dialog_open,
        on_open_change=VideoState.set_dialog_open,
        on_mount=VideoState.dialog_mounted,
    )


def register(app: rx.App) -> None:
    """Add the video pages to the app."""
    app.add_page(
        video_page,
        route=routes.VIDEO_GENERATION,
        title=messages.page_title(messages.TITLE_VIDEO_GENERATION),
        on_load=VideoState.open_page,
    )
