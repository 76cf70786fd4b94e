"""Reflex state of the dashboard editor panel: AI edits of a saved photo, Undo, Redo.

The photo is always the member's own, looked up on the server by the id of the card the
dialog shows; the images, the undo stack and the free-edit count live in the database
(``photos.history``), so this state only mirrors what the server answered.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.core import constants, messages
from prettyscore.core.db import run_in_session, session_scope
from prettyscore.core.errors import DomainError
from prettyscore.core.media import get_media_store, key_from_url
from prettyscore.core.workers import edit_work
from prettyscore.photos import history
from prettyscore.photos.history import EditedPhoto
from prettyscore.photos.state import PhotoCard, PhotosState, photo_card
from prettyscore.ui import ai_edit
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import FormWait, ServerWait

PROMPT_VIEW = "prompt"  # the tabs, presets and custom prompt
EDITED_VIEW = "edited"  # after an edit: Download, Undo, Redo, Edit Again, ...
# The presets and the custom prompt are busy from the press; a retry never spends a
# second free edit.
EDIT_WAIT = ServerWait("dashboard_edit")
CUSTOM_EDIT_WAIT = FormWait("dashboard_custom_edit")


async def _edit(prompt: str, kind: str, request: dict) -> EditedPhoto:
    """One edit (core.workers.edit_work): Redo repeats the photo's last prompt, any other kind
    runs ``prompt``."""
    if kind == "redo":
        return await edit_work(history.redo_edit, session_scope, get_media_store(), **request)
    return await edit_work(
        history.edit_saved_photo, session_scope, get_media_store(), prompt=prompt, **request
    )


class PhotoEditorState(PhotosState):
    """The editor panel inside the photo details dialog."""

    editor_open: bool = False
    view: str = PROMPT_VIEW
    editing: bool = False
    edit_prompt: str = ""
    premium: bool = False
    free_edits_left: int = constants.FREE_EDITS
    undo_steps: int = 0

    @rx.event
    async def open_editor(self):
        """'Edit Photo': the prompt view for the selected photo."""
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        try:
            await self._load_facts(user.id)
        except DomainError as error:
            return rx.toast.error(error.message)
        # A photo edited before (even in another session) opens on its actions: Undo works.
        self.view = EDITED_VIEW if self.selected.edited_url else PROMPT_VIEW
        self.editor_open, self.edit_prompt = True, ""
        return None

    @rx.event
    def close_editor(self):
        self.editor_open, self.view = False, PROMPT_VIEW

    @rx.event
    def edit_again(self):
        """'Edit Again': back to the prompt view."""
        self.view = PROMPT_VIEW

    @rx.event
    def set_edit_prompt(self, value: str):
        self.edit_prompt = value

    @rx.event
    @CUSTOM_EDIT_WAIT.answers
    def submit_custom_edit(self, form: dict[str, str] | None = None):
        """The custom prompt (the button, or Enter in the field)."""
        prompt = str((form or {}).get("prompt") or self.edit_prompt).strip()
        if not prompt:
            return rx.toast.error(messages.PLEASE_ENTER_EDIT_INSTRUCTION)
        return PhotoEditorState.run_edit(prompt, "edit")

    @rx.event(background=True)
    @EDIT_WAIT.answers
    async def run_edit(self, prompt: str, kind: str, attempt: str = ""):
        """One edit of the selected photo on a worker thread (the dialog stays live),
        once per ``attempt`` (``EDIT_WAIT``). 'Redo' is the redo kind: the last prompt,
        applied again as a new edit. 'Download HD Version (4K)' is the upscale kind: one
        edit, then the result downloads as pretty-score-{score}-edited.png."""
        async with self:
            if self.editing or not self.selected.id:
                return None
            user = await self._current_user()
            if user is None:
                return self._sign_in_redirect()
            self.editing = True
            request = {"user_id": user.id, "photo_id": self.selected.id}
        with guarded("A dashboard edit", ai_edit.failure_text(kind)) as call:
            edited = await _edit(prompt, kind, request)
        if call.failed:
            return await self._edit_failed(call.toast)
        card = photo_card(edited.photo)
        async with self:
            self._show(edited, card)
            self.editing, self.edit_prompt, self.view = False, "", EDITED_VIEW
            left = ai_edit.edits_left_to_show(edited.remaining, self.free_edits_left)
            self.free_edits_left = left
            # The download's PNG copy goes to this browser's folder, like /results' one.
            owner = self._visitor_owner()
        notice = ai_edit.edited_notice(kind, edited.remaining)
        if kind != "upscale":
            return notice
        upscaled = key_from_url(edited.current_url)
        return [notice, await ai_edit.hd_download(upscaled, owner, card.score_text)]

    async def _load_facts(self, user_id) -> None:
        """Premium?, the free edits left and the undo steps, as the server has them."""
        facts = await run_in_session(history.editor_facts, user_id, self.selected.id)
        self.premium, self.free_edits_left = facts.premium, facts.free_edits_left
        self.undo_steps = facts.undo_steps

    async def _edit_failed(self, toast):
        """Show the failure, and the counts as the server has them now."""
        async with self:
            self.editing = False
            user = await self._current_user()
            if user is not None and self.selected.id:
                await self._load_facts(user.id)
        return toast

    @rx.event
    async def undo(self):
        """'Undo': the image before the newest edit, saved as the photo's edit again."""
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        with guarded("Undo", messages.FAILED_TO_UNDO_EDIT) as call:
            edited = await run_in_session(
                history.undo_described, get_media_store(), user.id, self.selected.id
            )
        if call.failed:
            return call.toast
        self._show(edited, photo_card(edited.photo))
        return rx.toast.success(messages.UNDO_SUCCESSFUL)

    def _show(self, edited: EditedPhoto, card: PhotoCard) -> None:
        """Show the photo's new images in the dialog and on its card."""
        self.undo_steps = edited.undo_steps
        self.selected = card
        for index, shown in enumerate(self.photos):
            if shown.id == card.id:
                self.photos[index] = card
