"""Reflex state of the face-scoring flow: Home hero → /upload → /results → Save.

Thin by design: files go to the media store and the analysis runs on a worker thread;
the tab's state holds URLs, the displayed result and, in backend-only vars, the keys the
server needs. Nothing the browser sends can set a score: it is read back from
``_result``, which only the server writes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time

import reflex as rx

from prettyscore.accounts.state import SESSION_TOAST, AuthState
from prettyscore.analysis import service as scoring
from prettyscore.analysis.service import ScoreResult
from prettyscore.core import constants, messages, routes
from prettyscore.core.db import run_in_session, session_scope
from prettyscore.core.errors import DomainError
from prettyscore.core.media import get_media_store, media_url
from prettyscore.core.settings import get_settings
from prettyscore.core.workers import edit_work, photo_work
from prettyscore.editing import service as editing
from prettyscore.photos import card as result_card
from prettyscore.photos import service as photos_service
from prettyscore.scoring import share_links, shown_state
from prettyscore.ui import ai_edit, early_photo
from prettyscore.ui.explanation import ExplanationNote, explanation_notes
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import FormWait, ServerWait
from prettyscore.ui.share import share_text
from prettyscore.ui.upload_watch import UploadProgress

HOME_UPLOAD_ID = "home_upload"
UPLOAD_PAGE_ID = "upload_page"
#: The early photo of /results: the photo this tab last saw its score for.
RESULTS_PHOTO = "results"
PROGRESS_TICK_SECONDS = 0.15
#: How long 'Get My Score!' waits for a photo still on its way before giving up.
UPLOAD_WAIT_SECONDS = 120.0
#: 'Get My Score!' is busy from the click, and says so when no answer comes.
SCORE_WAIT = ServerWait("score")
#: 'Save to My Photos' likewise (saving a result twice keeps it once).
SAVE_WAIT = ServerWait("save")
#: The AI edits (presets, the 4K download) and the custom prompt, likewise; a retry
#: never spends a second free edit.
EDIT_WAIT = ServerWait("results_edit")
CUSTOM_EDIT_WAIT = FormWait("results_custom_edit")
#: 'Score the edited photo' likewise (a repeat only opens /upload with it again).
RESCORE_WAIT = ServerWait("rescore_edited")
#: 'Add me to the leaderboard' in the opt-in dialog likewise (a result is saved once).
JOIN_WAIT = FormWait("join_leaderboard")


def _render_card(result: ScoreResult) -> bytes:
    from prettyscore.core import images

    store = get_media_store()
    photo = images.decode_upload(store.read(result.edited_key or result.image_key))
    return result_card.render_result_card(
        photo,
        score=result.score,
        label=result.label,
        emoji=result.emoji,
        breakdown=result.breakdown,
    )


class ScoreState(UploadProgress, AuthState):
    """One tab's trip through upload, analysis and results."""

    staging: bool = False
    preview_url: str = ""
    enhanced_notice: bool = False
    analyzing: bool = False
    progress: int = 0
    has_result: bool = False
    score: float = 0.0
    score_text: str = ""
    label: str = ""
    tier_key: str = ""
    emoji: str = ""
    color: str = ""
    # The score's bars (the overall, then the counted parts with their shares), the
    # parts shown apart, not counted, and how the score follows from the bars
    # (``analysis.service.BreakdownView``).
    breakdown: list[dict] = []
    breakdown_apart: list[dict] = []
    breakdown_sum: str = ""
    image_url: str = ""
    edited_url: str = ""
    explanation_url: str = ""
    # Copy Link's address and the one the share options carry: this score's own page.
    share_url: str = ""
    explanation_notes: list[ExplanationNote] = []
    special_panel: str = ""
    saved: bool = False
    celebrate: bool = False
    leaderboard_open: bool = False
    premium: bool = False
    free_edits_left: int = constants.FREE_EDITS
    editing: bool = False
    edit_prompt: str = ""

    _staged_key: str = ""
    # The attempt ids of the latest edits run (``ui.server_wait``).
    _answered_attempts: list[str] = []
    _result: dict = {}

    @rx.var
    def share_message(self) -> str:
        """The fixed promotional text with this score and label."""
        return share_text(self.score, self.label) if self.has_result else ""

    # -- choosing a photo ----------------------------------------------------
    async def _stage(self, files: list[rx.UploadFile]):
        if not files:
            # The picker refused the file and said why (reject_drop): one notice, not two.
            return None
        upload = files[0]
        data = await upload.read(constants.MAX_UPLOAD_BYTES + 1)
        with guarded("Staging an upload", messages.PHOTO_NOT_STORED) as call:
            key = await photo_work(
                scoring.stage_photo,
                get_media_store(),
                self._visitor_owner(),
                data,
                name=upload.name,
                content_type=upload.content_type,
            )
        if call.failed:
            return call.toast
        self._discard_staged()
        self._staged_key = key
        self.preview_url = media_url(key)
        self.enhanced_notice = False
        return None

    def _photo_being_kept(self) -> bool:
        return self.staging

    @rx.event
    async def upload_from_home(self, files: list[rx.UploadFile], drop: str = ""):
        """Home hero: keep the chosen photo for this session and carry it to /upload."""
        self.staging = True
        try:
            refusal = await self._stage(files)
        finally:
            self.staging = False
            self._upload_done(drop)
        if not files:
            return None
        return refusal or rx.redirect(routes.UPLOAD)

    @rx.event
    async def upload_on_page(self, files: list[rx.UploadFile], drop: str = ""):
        """/upload: 'From Gallery' or a drop on the zone."""
        self.staging = True
        try:
            return await self._stage(files)
        finally:
            self.staging = False
            self._upload_done(drop)

    @rx.event
    def change_photo(self):
        """'Change Photo': forget the chosen photo (and delete its file)."""
        self._forget_chosen_photo()

    @rx.event
    def try_again(self):
        """The results' 'Try Again': /upload afresh, no photo chosen (the result shown
        stays this tab's result until another photo is scored)."""
        self._forget_chosen_photo()
        return rx.redirect(routes.UPLOAD)

    def _forget_chosen_photo(self) -> None:
        self._discard_staged()
        self.preview_url = ""
        self.enhanced_notice = False
        self._upload_done()

    def _discard_staged(self) -> None:
        in_result = (self._result.get("image_key"), self._result.get("edited_key"))
        if self._staged_key and self._staged_key not in in_result:
            get_media_store().delete(self._staged_key)
        self._staged_key = ""

    @rx.event
    def reject_drop(self, error_codes: list[str]):
        """The picker refused a file before upload: too large, or not an image."""
        if "file-too-large" in error_codes:
            return rx.toast.error(messages.FILE_TOO_LARGE)
        return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FILE)

    @rx.event
    def camera_coming_soon(self):
        """'Take Photo' only announces the camera (document 000 §2 Upload)."""
        return rx.toast.info(messages.CAMERA_COMING_SOON)

    # -- analysis --------------------------------------------------------------
    @rx.event(background=True)
    async def analyse(self):
        """'Get My Score!': analyse on a worker thread, showing progress for at least the
        documents' analysis time, then open /results. Every outcome ends the browser's
        wait (``SCORE_WAIT``); a repeated click never analyses the photo twice."""
        outcome = await self._analyse()
        return SCORE_WAIT.answering(outcome)

    async def _analyse(self) -> list | None:
        if not await self._wait_for_upload():
            return None
        async with self:
            if self.analyzing:  # a repeat of a click whose analysis is under way
                return None
            if not self._staged_key:
                return [rx.toast.error(messages.PLEASE_UPLOAD_PHOTO_FIRST)]
            if self.has_result and self._result.get("image_key") == self._staged_key:
                return [rx.redirect(routes.RESULTS)]  # a repeat of a click already answered
            key, self.analyzing, self.progress = self._staged_key, True, 3
        work = asyncio.create_task(photo_work(scoring.score_staged_photo, get_media_store(), key))
        await self._show_progress(work)
        with guarded("Analysis") as call:
            result = work.result()
        if call.failed:
            async with self:
                self.analyzing, self.progress = False, 0
            return [call.toast]
        result = await _with_share_link(result)
        async with self:
            self._show_result(result)
            await self._keep_shown_result()
            self.analyzing, self.progress = False, 100
        photo_url = media_url(result.edited_key or result.image_key)
        return [early_photo.remember(RESULTS_PHOTO, photo_url), rx.redirect(routes.RESULTS)]

    async def _wait_for_upload(self) -> bool:
        """Pressed while a photo is still on its way: wait for it, then go on. False if
        the upload's own refusal has been shown (nothing more to say) or it never came."""
        started = time.monotonic()
        waited = False
        while True:
            async with self:
                if not (self.uploading or self.staging):
                    return not waited or bool(self._staged_key)
                if time.monotonic() - started > UPLOAD_WAIT_SECONDS:
                    self._upload_done()
                    return True
            waited = True
            await asyncio.sleep(PROGRESS_TICK_SECONDS)

    async def _show_progress(self, work: asyncio.Task) -> None:
        wait = get_settings().analysis_wait_seconds
        started = time.monotonic()
        while not work.done() or time.monotonic() - started < wait:
            await asyncio.sleep(PROGRESS_TICK_SECONDS)
            elapsed = time.monotonic() - started
            async with self:
                self.progress = min(95, 5 + int(90 * elapsed / max(wait, 0.5)))

    def _show_result(self, result: ScoreResult) -> None:
        self._result = result.to_dict()
        self.has_result = True
        self.score, self.score_text = result.score, result.score_text
        self.label, self.tier_key = result.label, result.tier_key
        self.emoji, self.color = result.emoji, result.color
        view = scoring.breakdown_view(result)
        self.breakdown, self.breakdown_apart, self.breakdown_sum = (
            view.bars,
            view.apart,
            view.sum_line,
        )
        self.image_url = media_url(result.image_key)
        self.edited_url = media_url(result.edited_key) if result.edited_key else ""
        self.explanation_url = media_url(result.explanation_key) if result.explanation_key else ""
        self.share_url = share_links.link_url(result.share_token)
        self.explanation_notes = explanation_notes(result.explanation)
        self.special_panel = result.special_panel
        self.saved = False
        self.celebrate = result.score >= constants.CELEBRATION_MIN_SCORE
        self.leaderboard_open = result.score >= constants.LEADERBOARD_DIALOG_MIN_SCORE

    async def _keep_shown_result(self) -> None:
        """Write the shown result where a lost tab state finds it again (``shown``)."""
        await shown_state.keep(self, self._current_result().to_dict())

    async def _shown_result(self) -> ScoreResult | None:
        """The result this tab shows; if the tab's state was lost with it (Redis
        restarted empty, say), the one kept for the tab, shown again as it was."""
        if self._result:
            return self._current_result()
        kept = await shown_state.find(self)
        if kept:
            self._show_result(ScoreResult.from_dict(kept))
            # Only the score again: the confetti and the opt-in came the first time.
            self.celebrate = self.leaderboard_open = False
        return self._current_result()

    # -- results -----------------------------------------------------------------
    @rx.event
    async def open_results(self):
        """on_load of /results: without a result there is nothing to show: go home."""
        await self._current_user()
        await self._shown_result()
        if not self.has_result:
            return [early_photo.remember(RESULTS_PHOTO, ""), rx.redirect(routes.HOME)]
        if self.router.url.query_parameters.get("leaderboard") == "1":
            self.leaderboard_open = True  # the documents' flag: open the opt-in on request
        # Kept again with this tab's browser keys now: signing in to save replaced them.
        await self._keep_shown_result()
        await self._load_allowance()
        # The photo was remembered when it was revealed (analyse) or edited.
        if self.celebrate:
            return ScoreState.end_celebration
        return None

    @rx.event(background=True)
    async def end_celebration(self):
        """The celebration lasts the documents' three seconds."""
        await asyncio.sleep(constants.CONFETTI_SECONDS)
        async with self:
            self.celebrate = False

    def _current_result(self) -> ScoreResult | None:
        return ScoreResult.from_dict(self._result) if self._result else None

    @rx.event
    @SAVE_WAIT.answers
    async def save_photo(self, attempt: str = ""):
        """Save to My Photos (members only; visitors are asked to sign in and come back).
        Every outcome ends the browser's wait (``SAVE_WAIT``); a press sent again before
        its answer (``attempt``) saves and says so once."""
        return await self._save(listing=None, success=messages.PHOTO_SAVED)

    @rx.event
    @JOIN_WAIT.answers
    async def join_leaderboard(self, form: dict[str, str]):
        """The opt-in dialog: save with a display name (and bio) and queue for the board."""
        try:
            listing = photos_service.check_listing(form.get("display_name"), form.get("bio"))
        except DomainError as error:
            return rx.toast.error(error.message)
        events = await self._save(listing=listing, success=messages.ADDED_TO_LEADERBOARD_QUEUE)
        if self.saved:
            self.leaderboard_open = False
        return events

    async def _save(self, *, listing, success: str):
        result = await self._shown_result()
        if result is None:
            return rx.redirect(routes.HOME)
        user = await self._current_user()
        if user is None:
            return [
                rx.toast.info(messages.SIGN_IN_TO_SAVE, id=SESSION_TOAST),
                self._sign_in_redirect(routes.RESULTS),
            ]
        # 'Failed to save photo' is the one failure text here, a refusal included.
        failed = messages.FAILED_TO_SAVE_PHOTO
        with guarded("Saving a result", failed, refusals=False) as call:
            await run_in_session(
                photos_service.save_result, get_media_store(), user.id, result, listing=listing
            )
        if call.failed:
            return call.toast
        self.saved = True
        return rx.toast.success(success)

    @rx.event
    def set_leaderboard_open(self, is_open: bool):
        self.leaderboard_open = is_open

    @rx.event
    async def download_card(self):
        """'Download Result Card': a 600×1000 PNG drawn on the server."""
        result = await self._shown_result()
        if result is None:
            return rx.toast.error(messages.NO_PHOTO_TO_DOWNLOAD)
        failed = messages.FAILED_TO_DOWNLOAD_RETRY
        with guarded("Rendering the result card", failed, refusals=False) as call:
            png = await photo_work(_render_card, result)
        if call.failed:
            return call.toast
        return [
            rx.download(data=png, filename=f"pretty-score-{result.score_text}.png"),
            rx.toast.success(messages.RESULT_CARD_DOWNLOADED),
        ]

    @rx.event
    def claim_world_record(self):
        return rx.toast.success(messages.WORLD_RECORD_NOTICE)

    @rx.event
    def claim_elite(self):
        return rx.toast.success(messages.ELITE_NOTICE)

    # -- AI edits ------------------------------------------------------------------
    async def _load_allowance(self) -> None:
        user = await self._current_user()
        self.premium, self.free_edits_left = await run_in_session(
            editing.allowance, user.id if user else None, self.visitor_secret
        )

    @rx.event
    def set_edit_prompt(self, value: str):
        self.edit_prompt = value

    @rx.event
    @CUSTOM_EDIT_WAIT.answers
    def submit_custom_edit(self, form: dict[str, str] | None = None):
        """Custom AI Edit (the button, or Enter in the field)."""
        prompt = str((form or {}).get("prompt") or self.edit_prompt).strip()
        if not prompt:
            return rx.toast.error(messages.PLEASE_ENTER_EDIT_INSTRUCTION)
        return ScoreState.run_edit(prompt, "edit")

    @rx.event(background=True)
    @EDIT_WAIT.answers
    async def run_edit(self, prompt: str, kind: str, attempt: str = ""):
        """One AI edit of the current photo, counted against the free allowance (once
        per ``attempt``: ``EDIT_WAIT``)."""
        async with self:
            result = await self._shown_result()
            if result is None or self.editing:
                return None
            user = await self._current_user()
            # Edits live in this browser's session folder, like the photo; Save copies them.
            owner = self._visitor_owner()
            request = {
                "owner_key": editing.allowance_key(user.id if user else None, self.visitor_secret),
                "image_key": result.edited_key or result.image_key,
                "media_owner": owner,
            }
            self.editing = True
        with guarded("An AI edit", ai_edit.failure_text(kind)) as call:
            outcome = await edit_work(
                editing.edit_photo, session_scope, get_media_store(), prompt=prompt, **request
            )
        if call.failed:
            async with self:
                self.editing = False
                if call.refusal is not None:  # refused: the allowance as the server has it
                    await self._load_allowance()
            return call.toast
        async with self:
            self._apply_edit(outcome.image_key)
            await self._keep_shown_result()
            self.editing, self.edit_prompt = False, ""
            left = ai_edit.edits_left_to_show(outcome.remaining, self.free_edits_left)
            self.free_edits_left = left
        remember = early_photo.remember(RESULTS_PHOTO, media_url(outcome.image_key))
        events = [remember, ai_edit.edited_notice(kind, outcome.remaining)]
        if kind == "upscale":  # 'Download HD Version (4K)': the upscaled photo, as a file
            events.append(await ai_edit.hd_download(outcome.image_key, owner, result.score_text))
        return events

    def _apply_edit(self, edited_key: str) -> None:
        """The first edit keeps the original as 'before'; the newest edit is 'after'."""
        result = dataclasses.replace(self._current_result(), edited_key=edited_key)
        self._result = result.to_dict()
        self.edited_url = media_url(edited_key)
        self.saved = False

    @rx.event
    @RESCORE_WAIT.answers
    async def rescore_edited(self, attempt: str = ""):
        """Take the edited photo back to /upload to analyse it ('Photo enhanced! ...').
        Every outcome ends the browser's wait (``RESCORE_WAIT``), once per ``attempt``."""
        result = await self._shown_result()
        if result is None or not result.edited_key:
            return rx.toast.error(messages.PLEASE_UPLOAD_PHOTO_FIRST)
        self._staged_key = result.edited_key
        self.preview_url = media_url(result.edited_key)
        self.enhanced_notice = True
        return rx.redirect(routes.UPLOAD)


async def shown_result(scores: ScoreState) -> ScoreResult | None:
    """The result this tab's /results shows (the editor opens it), or None."""
    return await scores._shown_result()


async def _with_share_link(result: ScoreResult) -> ScoreResult:
    """``result`` with its shared page written; without one (the database failed), Copy
    Link and the share options carry the site's address, as they did before."""
    with guarded("Writing a shared score's page", fallback=None, refusals=False) as call:
        token = await run_in_session(share_links.create_link, result)
    return result if call.failed else dataclasses.replace(result, share_token=token)
