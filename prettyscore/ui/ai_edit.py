"""What an AI edit shows, shared by the three places that run one: /results
(``scoring.state``), /editor (``editor.state``) and the dashboard's editor panel
(``photos.editor_state``).

The edit itself is one service call, ``editing.service.edit_photo`` (directly, or
through the editor's and the saved photo's wrappers), run on the photo pool
(``core.workers.photo_work``); it spends the free edit and decides Premium itself.
Here: the texts, the toast after a success, and the free edits to show.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.core import messages
from prettyscore.editing.service import UNLIMITED

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
