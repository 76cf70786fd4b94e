"""What an AI edit shows, shared by the three places that run one: /results
(``scoring.state``), /editor (``editor.state``) and the dashboard's editor panel
(``photos.editor_state``).

The edit itself is one service call, ``editing.service.edit_photo`` (directly, or
through the editor's and the saved photo's wrappers), run on the photo pool
(``core.workers.photo_work``); it spends the free edit and decides Premium itself.
Here: the texts, the toast after a success, the free edits to show, and the 4K download.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.core import messages
from prettyscore.core.media import MediaOwner, get_media_store, media_url
from prettyscore.core.workers import photo_work
from prettyscore.editing import service as editing
from prettyscore.editing.service import UNLIMITED
from prettyscore.ui.guarded import guarded

# Which texts an edit shows: (success with the count, failure).
EDIT_TEXTS = {
    "enhance": (messages.PHOTO_ENHANCED_REMAINING, messages.FAILED_TO_ENHANCE_PHOTO),
    "upscale": (messages.PHOTO_UPSCALED_REMAINING, messages.FAILED_TO_UPSCALE_PHOTO),
    "edit": (messages.PHOTO_EDITED_REMAINING, messages.FAILED_TO_EDIT_PHOTO),
}


def edit_texts(kind: str) -> tuple[str, str]:
    """(success with the count, failure) for ``kind``; an unknown kind is an edit."""
    return EDIT_TEXTS.get(kind, EDIT_TEXTS["edit"])


def failure_text(kind: str) -> str:
    return edit_texts(kind)[1]


def edited_notice(kind: str, remaining: int):
    """The toast after a successful edit: Premium's, or the free edits left."""
    if remaining == UNLIMITED:
        return rx.toast.success(messages.PHOTO_EDITED_SUCCESSFULLY)
    return rx.toast.success(edit_texts(kind)[0].format(n=remaining))


def edits_left_to_show(remaining: int, shown: int) -> int:
    """The free edits a page shows after an edit (Premium's stays as it was)."""
    return shown if remaining == UNLIMITED else remaining


async def hd_download(image_key: str, owner: MediaOwner, score_text: str):
    """The upscaled photo downloaded as pretty-score-{score}-edited.png (a PNG copy in
    this browser's folder), or 'Failed to download photo' whatever went wrong (the edit
    itself is done, so even a refusal here reads as a failed download)."""
    failed = messages.FAILED_TO_DOWNLOAD_PHOTO
    with guarded("Preparing the 4K download", failed, refusals=False) as call:
        png_key = await photo_work(editing.download_copy, get_media_store(), image_key, owner)
    if call.failed:
        return call.toast
    name = editing.photo_download_name(score_text)
    return rx.download(url=media_url(png_key), filename=name)
