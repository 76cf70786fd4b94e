"""Reflex state of the dashboard editor panel: AI edits of a saved photo, Undo, Redo.

The photo is always the member's own, looked up on the server by the id of the card the
dialog shows; the images, the undo stack and the free-edit count live in the database
(``photos.history``), so this state only mirrors what the server answered.
"""

from __future__ import annotations

import asyncio
import logging

import reflex as rx

from prettyscore.core import constants, messages
from prettyscore.core.db import run_in_session, session_scope
from prettyscore.core.errors import DomainError
from prettyscore.core.media import get_media_store, key_from_url
from prettyscore.editing import service as editing
from prettyscore.editing.presets import UPSCALE_PROMPT
from prettyscore.photos import history, service
from prettyscore.photos.history import EditedPhoto
from prettyscore.photos.state import PhotoCard, PhotosState, photo_card
from prettyscore.scoring.state import EDIT_TEXTS, ScoreState, hd_download

log = logging.getLogger(__name__)

PROMPT_VIEW = "prompt"  # the tabs, presets and custom prompt
EDITED_VIEW = "edited"  # after an edit: Download, Undo, Redo, Edit Again, ...


def _editor_facts(db, user_id, photo_id: str) -> tuple[bool, int, int]:
    """(Premium?, free edits left, undo steps) of the member and their photo."""
    photo = service.get_photo(db, user_id, photo_id)
    premium, left = editing.allowance(db, user_id, None)
    return premium, left, history.undo_steps(db, photo.id)


def _undo(db, user_id, photo_id: str) -> tuple[EditedPhoto, PhotoCard]:
    photo = history.undo_edit(db, get_media_store(), user_id, photo_id)
    return history.describe(db, photo), photo_card(photo)


def _edit(kind: str, prompt: str, request: dict) -> tuple[EditedPhoto, PhotoCard]:
    """Run the edit (or the redo), then read the photo's new card."""
    store = get_media_store()
    if kind == "redo":
        edited = history.redo_edit(session_scope, store, **request)
    else:
        edited = history.edit_saved_photo(session_scope, store, prompt=prompt, **request)
    with session_scope() as db:
        return edited, photo_card(service.get_photo(db, request["user_id"], edited.photo_id))


def _success_notice(kind: str, remaining: int):
    if remaining == editing.UNLIMITED:
        return rx.toast.success(messages.PHOTO_EDITED_SUCCESSFULLY)
    text = EDIT_TEXTS.get(kind, EDIT_TEXTS["edit"])[0]
    return rx.toast.success(text.format(n=remaining))


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
            facts = await run_in_session(_editor_facts, user.id, self.selected.id)
        except DomainError as error:
            return rx.toast.error(error.message)
        self.premium, self.free_edits_left, self.undo_steps = facts
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
    def submit_custom_edit(self, form: dict[str, str] | None = None):
        """The custom prompt (the button, or Enter in the field)."""
        prompt = str((form or {}).get("prompt") or self.edit_prompt).strip()
        if not prompt:
            return rx.toast.error(messages.PLEASE_ENTER_EDIT_INSTRUCTION)
        return PhotoEditorState.run_edit(prompt, "edit")

    @rx.event
    def download_hd(self):
        """'Download HD Version (4K)': upscale (one edit), then download the result as
        pretty-score-{score}-edited.png."""
        return PhotoEditorState.run_edit(UPSCALE_PROMPT, "upscale")

    @rx.event
    def redo(self):
        """'Redo': the last prompt, applied again as a new edit."""
        return PhotoEditorState.run_edit("", "redo")

    @rx.event(background=True)
    async def run_edit(self, prompt: str, kind: str):
        """One edit of the selected photo on a worker thread (the dialog stays live)."""
        async with self:
            if self.editing or not self.selected.id:
                return None
            user = await self._current_user()
            if user is None:
                return self._sign_in_redirect()
            self.editing = True
            request = {"user_id": user.id, "premium": self.premium, "photo_id": self.selected.id}
        try:
            edited, card = await asyncio.to_thread(_edit, kind, prompt, request)
        except DomainError as error:
            return await self._edit_failed(error.message)
        except Exception:
            log.exception("A dashboard edit failed")
            return await self._edit_failed(EDIT_TEXTS.get(kind, EDIT_TEXTS["edit"])[1])
        async with self:
            self._show(edited, card)
            self.editing, self.edit_prompt, self.view = False, "", EDITED_VIEW
            if edited.remaining != editing.UNLIMITED:
                self.free_edits_left = edited.remaining
            # The download's PNG copy goes to this browser's folder, like /results' one.
            owner = (await self.get_state(ScoreState))._visitor_owner()
        notice = _success_notice(kind, edited.remaining)
        if kind != "upscale":
            return notice
        upscaled = key_from_url(edited.current_url)
        return [notice, await hd_download(upscaled, owner, card.score_text)]

    async def _edit_failed(self, text: str):
        """Show the failure, and the counts as the server has them now."""
        async with self:
            self.editing = False
            user = await self._current_user()
            if user is not None and self.selected.id:
                facts = await run_in_session(_editor_facts, user.id, self.selected.id)
                self.premium, self.free_edits_left, self.undo_steps = facts
        return rx.toast.error(text)

    @rx.event
    async def undo(self):
        """'Undo': the image before the newest edit, saved as the photo's edit again."""
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        try:
            edited, card = await run_in_session(_undo, user.id, self.selected.id)
        except DomainError as error:
            return rx.toast.error(error.message)
        except Exception:
            log.exception("Undo failed")
            return rx.toast.error(messages.FAILED_TO_UNDO_EDIT)
        self._show(edited, card)
        return rx.toast.success(messages.UNDO_SUCCESSFUL)

    def _show(self, edited: EditedPhoto, card: PhotoCard) -> None:
        """Show the photo's new images in the dialog and on its card."""
        self.undo_steps = edited.undo_steps
        self.selected = card
        for index, shown in enumerate(self.photos):
            if shown.id == card.id:
                self.photos[index] = card
