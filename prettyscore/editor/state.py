"""Reflex state of /editor: the photo's versions on the server, the sliders in the browser.

The sliders live in the browser (``SLIDERS``, client-side state) so the preview follows
them with no server round trip; their values come to the server only with an action
(Apply, an AI edit, Download, Save), which clamps them and applies them itself. The
versions (media keys) live in backend-only vars and never come from the browser.
"""

from __future__ import annotations

import time

import reflex as rx
from reflex.experimental.client_state import ClientStateVar

from prettyscore.accounts.state import SESSION_TOAST, AuthState
from prettyscore.analysis import service as scoring
from prettyscore.core import constants, messages, routes
from prettyscore.core.db import run_in_session, session_scope
from prettyscore.core.errors import DomainError
from prettyscore.core.media import MediaOwner, get_media_store, media_url
from prettyscore.core.workers import edit_work, photo_work
from prettyscore.editing import service as editing
from prettyscore.editing.adjustments import (
    BLUR_DEFAULT,
    PERCENT_DEFAULT,
    Adjustments,
)
from prettyscore.editor import service
from prettyscore.editor.service import Version, VersionHistory
from prettyscore.scoring.state import ScoreState, shown_result
from prettyscore.ui import ai_edit
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import FormWait, ServerWait

EDITOR_UPLOAD_ID = "editor_upload"
# The AI presets and the custom prompt are busy from the press; a retry of a preset
# never spends a second free edit.
EDIT_WAIT = ServerWait("editor_edit")
CUSTOM_EDIT_WAIT = FormWait("editor_custom_edit")
# Save and Download are busy from the press; a retry never saves or downloads twice.
SAVE_WAIT = ServerWait("editor_save")
DOWNLOAD_WAIT = ServerWait("editor_download")

# The four sliders, held in the browser: name → (client-side value, default).
SLIDER_DEFAULTS = {
    "brightness": PERCENT_DEFAULT,
    "contrast": PERCENT_DEFAULT,
    "saturation": PERCENT_DEFAULT,
    "blur": BLUR_DEFAULT,
}
SLIDERS = {
    name: ClientStateVar.create(f"editor_{name}", default)
    for name, default in SLIDER_DEFAULTS.items()
}


def slider_values() -> rx.Var:
    """The sliders' current values as one object, to pass with an action."""
    return rx.Var.create({name: var.value for name, var in SLIDERS.items()})


def reset_sliders() -> list:
    """Events putting the sliders back to their defaults (from the server)."""
    return [SLIDERS[name].push(default) for name, default in SLIDER_DEFAULTS.items()]


class EditorState(AuthState):
    """One tab's editing session: the photo's versions, its score, the free edits left."""

    image_url: str = ""
    image_width: int = 0
    version_number: int = 0
    version_count: int = 0
    can_undo: bool = False
    can_redo: bool = False
    score_text: str = ""
    score_label: str = ""
    from_my_photos: bool = False
    premium: bool = False
    free_edits_left: int = constants.FREE_EDITS
    editing: bool = False
    saving: bool = False
    edit_prompt: str = ""

    _versions: list[dict] = []
    _position: int = -1
    # The attempt ids of the latest presses run (``ui.server_wait``).
    _answered_attempts: list[str] = []
    _photo_id: str = ""
    _result_id: str = ""
    _source: str = ""

    # -- the history ---------------------------------------------------------------
    def _history(self) -> VersionHistory:
        return VersionHistory.from_state(self._versions, self._position)

    def _keep(self, history: VersionHistory) -> None:
        """Store ``history`` and show its current version."""
        self._versions, self._position = history.to_state()
        current = history.current
        self.image_url = media_url(current.key) if current else ""
        self.version_number = history.position + 1
        self.version_count = len(history.versions)
        self.can_undo, self.can_redo = history.can_undo, history.can_redo
        self.image_width = current.width if current else 0

    async def _owners(self) -> list[MediaOwner]:
        """Whose files this tab may use: this browser's and the signed-in member's."""
        owners = [self._visitor_owner()]
        user = await self._current_user()
        if user is not None:
            owners.append(MediaOwner.member(user.id))
        return owners

    async def _current_key(self) -> str | None:
        """The shown version's key, if this browser may use it."""
        current = self._history().current
        if current is None:
            return None
        return service.check_owned(current.key, await self._owners())

    def _start(self, first: Version, *more: Version, source: str) -> None:
        """A new photo: the old versions go, the score and the sliders start afresh."""
        service.discard(get_media_store(), (Version(**dict(v)) for v in self._versions))
        self._keep(VersionHistory.starting_with(first, *more))
        self._source, self._photo_id, self.from_my_photos = source, "", False
        self._result_id = ""
        self.score_text = self.score_label = ""

    async def _load_allowance(self) -> None:
        user = await self._current_user()
        self.premium, self.free_edits_left = await run_in_session(
            editing.allowance, user.id if user else None, self.visitor_secret
        )

    # -- arriving ------------------------------------------------------------------
    @rx.event
    async def open_editor(self):
        """on_load: open the photo the link names (one of My Photos, or the result on
        /results in this tab); without one, keep what this tab was editing."""
        user = await self._current_user()
        query = self.router.url.query_parameters
        events = []
        if query.get("photo"):
            events = await self._open_member_photo(user, str(query["photo"]))
        elif query.get("from") == "results":
            events = await self._open_result()
        await self._load_allowance()
        return events

    async def _open_member_photo(self, user, photo_id: str) -> list:
        if user is None:
            return [
                rx.toast.info(messages.SIGN_IN_TO_SAVE, id=SESSION_TOAST),
                rx.redirect(f"{routes.AUTH}?next={routes.EDITOR}?photo={photo_id}"),
            ]
        if self._source == f"photo:{photo_id}":
            return []  # already open here: keep the edits made since
        try:
            opened = await run_in_session(service.open_member_photo, user.id, photo_id)
            width = await photo_work(service.image_width, get_media_store(), opened.key)
        except DomainError as error:
            return [rx.toast.error(error.message)]
        self._start(Version(opened.key, width=width), source=f"photo:{photo_id}")
        self._photo_id, self.from_my_photos = opened.photo_id, True
        self.score_text, self.score_label = opened.score_text, opened.label
        return reset_sliders()

    async def _open_result(self) -> list:
        result = await shown_result(await self.get_state(ScoreState))
        if result is None:
            return []
        source = f"results:{result.result_id}:{result.edited_key or ''}"
        if self._source == source:
            return []
        keys = [result.image_key, *([result.edited_key] if result.edited_key else [])]
        widths = [await photo_work(service.image_width, get_media_store(), k) for k in keys]
        versions = (Version(key, width=width) for key, width in zip(keys, widths, strict=True))
        self._start(*versions, source=source)
        self._result_id = result.result_id
        self.score_text, self.score_label = result.score_text, result.label
        return reset_sliders()

    @rx.event
    async def upload(self, files: list[rx.UploadFile]):
        """A new photo from this device: history, score and sliders start again."""
        if not files:
            return None  # the picker refused the file and said why (reject_drop)
        data = await files[0].read(constants.MAX_UPLOAD_BYTES + 1)
        owner = (await self._owners())[0]
        with guarded("Reading an editor upload", messages.PHOTO_NOT_STORED) as call:
            key = await photo_work(scoring.stage_photo, get_media_store(), owner, data)
            width = await photo_work(service.image_width, get_media_store(), key)
        if call.failed:
            return call.toast
        self._start(Version(key, made_here=True, width=width), source=f"upload:{key}")
        return reset_sliders()

    @rx.event
    def reject_drop(self, error_codes: list[str]):
        """The picker refused a file before upload: too large, or not an image."""
        if "file-too-large" in error_codes:
            return rx.toast.error(messages.FILE_TOO_LARGE)
        return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FILE)

    # -- versions ------------------------------------------------------------------
    @rx.event
    def undo(self):
        history = self._history()
        if history.undo():
            self._keep(history)

    @rx.event
    def redo(self):
        history = self._history()
        if history.redo():
            self._keep(history)

    def _add_version(self, version: Version) -> None:
        """A new version after the shown one; the redo versions (and their files) go."""
        history = self._history()
        service.discard(get_media_store(), history.add(version))
        self._keep(history)

    @rx.event
    async def apply_sliders(self, adjustments: dict):
        """'Apply': the sliders become a version of their own, and go back to default."""
        changes = Adjustments.clamped(adjustments)
        with guarded("Applying the sliders", messages.FAILED_TO_EDIT_PHOTO) as call:
            key = await self._current_key()
            if key is None:
                return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FIRST)
            owner = (await self._owners())[0]
            baked = await photo_work(service.bake, get_media_store(), key, changes, owner)
        if call.failed:
            return call.toast
        if baked:
            self._add_version(Version(baked, changes.describe(), True, self.image_width))
        return reset_sliders()

    # -- AI edits ------------------------------------------------------------------
    @rx.event
    def set_edit_prompt(self, value: str):
        self.edit_prompt = value

    @rx.event
    @CUSTOM_EDIT_WAIT.answers
    def submit_custom_edit(self, adjustments: dict):
        """Custom AI Edit (the button, or Enter in the field), with the sliders' values."""
        prompt = self.edit_prompt.strip()
        if not prompt:
            return rx.toast.error(messages.PLEASE_ENTER_EDIT_INSTRUCTION)
        return EditorState.run_edit(prompt, adjustments)

    @rx.event(background=True)
    @EDIT_WAIT.answers
    async def run_edit(self, prompt: str, adjustments: dict, attempt: str = ""):
        """One AI edit of the shown version (pending sliders applied first), counted
        against the same free allowance as the results page, once per ``attempt``
        (``EDIT_WAIT``)."""
        changes = Adjustments.clamped(dict(adjustments or {}))
        async with self:
            if self.editing:
                return None
            try:
                key = await self._current_key()
            except DomainError as error:
                return rx.toast.error(error.message)
            if key is None:
                return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FIRST)
            user = await self._current_user()
            request = {
                "owner": self._visitor_owner(),
                "owner_key": editing.allowance_key(user.id if user else None, self.visitor_secret),
            }
            self.editing = True
        with guarded("An AI edit in the editor", ai_edit.failure_text("edit")) as call:
            edited = await edit_work(
                service.edit_with_adjustments,
                session_scope,
                get_media_store(),
                key=key,
                adjustments=changes,
                prompt=prompt,
                **request,
            )
        if call.failed:
            async with self:
                self.editing = False
                if call.refusal is not None:  # refused: the allowance as the server has it
                    await self._load_allowance()
            return call.toast
        async with self:
            return self._show_edit(edited, changes, prompt)

    def _show_edit(self, edited: service.EditedVersions, changes: Adjustments, prompt: str):
        if edited.baked_key:
            self._add_version(Version(edited.baked_key, changes.describe(), True, self.image_width))
        self._add_version(Version(edited.outcome.image_key, prompt, True, edited.width))
        self.editing, self.edit_prompt = False, ""
        remaining = edited.outcome.remaining
        self.free_edits_left = ai_edit.edits_left_to_show(remaining, self.free_edits_left)
        toast = ai_edit.edited_notice("edit", remaining)
        return [toast, *(reset_sliders() if edited.baked_key else [])]

    # -- download ------------------------------------------------------------------
    @rx.event
    @DOWNLOAD_WAIT.answers
    async def download(self, adjustments: dict, attempt: str = ""):
        """The shown version with the sliders applied, as edited-photo-{ms}.png (once per
        ``attempt``); any failure, a refusal included, reads 'Failed to download
        photo.'."""
        changes = Adjustments.clamped(dict(adjustments or {}))
        failed = messages.FAILED_TO_DOWNLOAD_PHOTO_DOT
        with guarded("Preparing an editor download", failed, refusals=False) as call:
            key = await self._current_key()
            if key is None:
                return rx.toast.error(messages.NO_EDITED_IMAGE_TO_DOWNLOAD)
            owner = (await self._owners())[0]
            png_key = await photo_work(service.export_png, get_media_store(), key, changes, owner)
        if call.failed:
            return call.toast
        stamp = int(time.time() * 1000)
        return [
            rx.download(url=media_url(png_key), filename=f"edited-photo-{stamp}.png"),
            rx.toast.success(messages.PHOTO_DOWNLOADED),
        ]

    # -- save ------------------------------------------------------------------------
    @rx.event(background=True)
    @SAVE_WAIT.answers
    async def save(self, adjustments: dict, attempt: str = ""):
        """Save the final photo (sliders applied): a photo from My Photos gets this as
        its new edited version; any other is scored and saved as a new photo. Once per
        ``attempt``: run again, it would add the same version to the photo a second
        time."""
        changes = Adjustments.clamped(dict(adjustments or {}))
        async with self:
            if self.saving:
                return None
            if self._history().current is None:
                return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FIRST)
            user = await self._current_user()
            if user is None:
                return [
                    rx.toast.info(messages.SIGN_IN_TO_SAVE, id=SESSION_TOAST),
                    self._sign_in_redirect(routes.EDITOR),
                ]
            try:
                key = await self._current_key()
            except DomainError as error:
                return rx.toast.error(error.message)
            if not get_media_store().exists(key):
                return rx.toast.error(messages.NO_PHOTO_TO_SAVE)
            owner = (await self._owners())[0]
            self.saving = True
        baked = None
        with guarded("Saving from the editor", messages.FAILED_TO_SAVE_PHOTO) as call:
            baked = await photo_work(service.bake, get_media_store(), key, changes, owner)
            async with self:
                if baked:
                    self._add_version(Version(baked, changes.describe(), True, self.image_width))
                history, photo_id, result_id = self._history(), self._photo_id, self._result_id
            saved = await photo_work(
                service.save_edited_photo,
                session_scope,
                get_media_store(),
                user.id,
                photo_id=photo_id,
                result_id=result_id,
                original_key=history.versions[0].key,
                final_key=baked or key,
                prompt=history.last_prompt() or changes.describe(),
            )
        if call.failed:
            async with self:
                self.saving = False
            # Once the sliders are baked into a version they go back to default, saved
            # or not: left as they were, the preview would apply them twice.
            return [call.toast, *(reset_sliders() if baked else [])]
        async with self:
            self._show_saved(saved)
        return [rx.toast.success(messages.PHOTO_SAVED), *(reset_sliders() if baked else [])]

    def _show_saved(self, saved: service.SavedPhoto) -> None:
        """The saved photo is now the member's: further saves update it."""
        self.saving, self._photo_id, self.from_my_photos = False, saved.photo_id, True
        self._source = f"photo:{saved.photo_id}"
        if saved.result is not None:
            self.score_text, self.score_label = saved.result.score_text, saved.result.label
