"""Reflex state of the feet, hands and pet scores: /{kind}-upload → the analysis →
/{kind}-results → Save to Dashboard.

Thin by design: ``body_service`` decides who may score, what a results page shows and
what a save keeps. Per kind, this tab keeps in backend-only vars the staged photo and
the results page's navigation state (the image and, once analysed, its result), so the
browser never holds a score it could change. Files go to the media store and the
analysis runs on a worker thread.
"""

from __future__ import annotations

import asyncio
import time

import reflex as rx

from prettyscore.accounts.state import SESSION_TOAST, AuthState
from prettyscore.analysis.kinds import BODY_KINDS
from prettyscore.analysis.service import ScoreResult
from prettyscore.core import constants, messages, routes
from prettyscore.core.db import run_in_session, session_scope
from prettyscore.core.errors import DomainError, NotAuthenticated, PermissionDenied
from prettyscore.core.media import get_media_store, media_url
from prettyscore.core.settings import get_settings
from prettyscore.core.workers import photo_work
from prettyscore.gates.state import FeatureGateState
from prettyscore.scoring import body_service, shown_state
from prettyscore.scoring.body_service import FEATURES, RESULTS_ROUTES, UPLOAD_ROUTES
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import ServerWait
from prettyscore.ui.upload_watch import UploadProgress

GALLERY_UPLOAD_ID = "body_gallery"
CAMERA_UPLOAD_ID = "body_camera"
CHECK_LINES = 3
TICK_SECONDS = 0.15
#: How long 'Get My Score!' waits for a photo still on its way before giving up.
UPLOAD_WAIT_SECONDS = 120.0
#: 'Get My Score!' of feet, hands and pets: busy from the click, says when no answer comes.
BODY_SCORE_WAIT = ServerWait("body_score")
#: 'Save to Dashboard': busy from the press, and a retry never saves the result twice.
BODY_SAVE_WAIT = ServerWait("body_save")


class BodyScoreState(UploadProgress, AuthState):
    """One tab's feet, hands and pet scores: the page's kind, its photo and its result."""

    kind: str = ""
    preview_url: str = ""
    analyzing: bool = False
    checks_done: int = 0
    result_kind: str = ""  # the kind whose result is on show ("" for none)
    score: float = 0.0
    score_text: str = ""
    label: str = ""
    emoji: str = ""
    color: str = ""
    breakdown: list[dict] = []
    image_url: str = ""
    share_message: str = ""
    pet_summary: str = ""
    saved: bool = False
    celebrate: bool = False

    _staged: dict[str, str] = {}  # kind → the chosen photo's media key
    _navigation: dict[str, dict] = {}  # kind → what its results page receives
    # The attempt ids of the latest presses run (``ui.server_wait``).
    _answered_attempts: list[str] = []

    # -- helpers -------------------------------------------------------------------
    def _set_navigation(self, kind: str, navigation: dict | None) -> None:
        rest = {k: v for k, v in self._navigation.items() if k != kind}
        self._navigation = {**rest, kind: navigation} if navigation else rest

    def _keys_in_use(self) -> set[str]:
        return {nav.get("image_key", "") for nav in self._navigation.values()}

    def _forget_photo(self, kind: str) -> None:
        """Drop the chosen photo and any result of ``kind``, deleting their files."""
        keys = {self._staged.get(kind, ""), (self._navigation.get(kind) or {}).get("image_key")}
        self._staged = {k: v for k, v in self._staged.items() if k != kind}
        self._set_navigation(kind, None)
        for key in filter(None, keys - self._keys_in_use()):
            get_media_store().delete(key)

    def _locked_out(self, kind: str, error: DomainError):
        """The server refused: visitors go to sign in, others see the gate's answer."""
        if isinstance(error, NotAuthenticated):
            return [rx.toast.error(error.message), self._sign_in_redirect(UPLOAD_ROUTES[kind])]
        events = [rx.toast.error(error.message)]
        if isinstance(error, PermissionDenied) and kind in FEATURES:
            events.append(FeatureGateState.check_access(FEATURES[kind]))
        return events

    # -- /{kind}-upload ----------------------------------------------------------------
    @rx.event
    async def open_upload(self, kind: str):
        """on_load of an upload page. Pets need a member (the gate asks for the others)."""
        if kind not in BODY_KINDS:
            return rx.redirect(routes.HOME)
        self.kind = kind
        staged = self._staged.get(kind)
        self.preview_url = media_url(staged) if staged else ""
        user = await self._current_user()
        if user is None and kind not in FEATURES:
            return [
                rx.toast.error(messages.SIGN_IN_TO_ACCESS_FEATURE, id=SESSION_TOAST),
                self._sign_in_redirect(UPLOAD_ROUTES[kind]),
            ]
        return None

    @rx.event
    async def choose_photo(self, files: list[rx.UploadFile], drop: str = ""):
        """From the gallery or the camera: check the photo and keep it for this session."""
        try:
            return await self._choose_photo(files)
        finally:
            self._upload_done(drop)

    async def _choose_photo(self, files: list[rx.UploadFile]):
        kind = self.kind
        if kind not in BODY_KINDS or self.analyzing:
            return None
        if not files:
            # The picker refused the file and said why (reject_drop): one notice, not two.
            return None
        user = await self._current_user()
        try:
            await run_in_session(body_service.check_may_score, user and user.id, kind)
        except DomainError as error:
            return self._locked_out(kind, error)
        upload = files[0]
        data = await upload.read(constants.MAX_UPLOAD_BYTES + 1)
        owner = self._visitor_owner()
        with guarded(f"Staging a {kind} photo", messages.PHOTO_NOT_STORED) as call:
            key = await photo_work(
                body_service.stage_body_photo,
                get_media_store(),
                owner,
                data,
                name=upload.name,
                content_type=upload.content_type,
            )
        if call.failed:
            return call.toast
        self._forget_photo(kind)
        self._staged = {**self._staged, kind: key}
        self._set_navigation(kind, body_service.photo_navigation(key))
        self.preview_url = media_url(key)
        return None

    @rx.event
    def change_photo(self):
        """'Change Photo': forget the chosen photo (and delete its file)."""
        if self.kind in BODY_KINDS and not self.analyzing:
            self._forget_photo(self.kind)
            self.preview_url = ""

    @rx.event
    def reject_drop(self, error_codes: list[str]):
        """The picker refused a file before upload: too large, or not an image."""
        if "file-too-large" in error_codes:
            return rx.toast.error(messages.FILE_SIZE_LIMIT)
        return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FILE)

    # -- the analysis ----------------------------------------------------------------------
    @rx.event(background=True)
    async def analyse(self):
        """'Get My Score!': analyse on a worker thread while the check lines tick for at
        least the analysis wait, then open the kind's results page. Every outcome ends
        the browser's wait (``BODY_SCORE_WAIT``); a repeat while it runs is ignored."""
        outcome = await self._analyse()
        return BODY_SCORE_WAIT.answering(outcome)

    async def _analyse(self):
        if not await self._wait_for_upload():
            return None
        async with self:
            kind, key = self.kind, self._staged.get(self.kind, "")
            if self.analyzing or kind not in BODY_KINDS:
                return None
            if not key:
                return rx.toast.error(messages.PLEASE_UPLOAD_PHOTO_FIRST_NO_BANG)
            user = await self._current_user()
            if user is None:
                return self._locked_out(kind, NotAuthenticated(messages.SIGN_IN_TO_ACCESS_FEATURE))
            self.analyzing, self.checks_done = True, 0
        work = asyncio.create_task(
            photo_work(
                body_service.analyse_for_member,
                session_scope,
                get_media_store(),
                user.id,
                key,
                kind,
            )
        )
        await self._tick_checks(work)
        with guarded(f"Analysing a {kind} photo") as call:
            result = work.result()
        if call.failed:
            async with self:
                self.analyzing, self.checks_done = False, 0
                if call.refusal is None:
                    return call.toast
                return self._locked_out(kind, call.refusal)  # sign in, or the feature's gate
        async with self:
            self.analyzing = False
            if self._staged.get(kind) == key:
                self._staged = {k: v for k, v in self._staged.items() if k != kind}
                self.preview_url = ""
            navigation = body_service.result_navigation(result)
            self._set_navigation(kind, navigation)
            await shown_state.keep(self, navigation, kind)
        return rx.redirect(RESULTS_ROUTES[kind])

    async def _wait_for_upload(self) -> bool:
        """Pressed while a photo is still on its way: wait for it, then go on. False if
        the upload's own refusal has been shown (nothing more to say)."""
        started = time.monotonic()
        waited = False
        while True:
            async with self:
                if not self.uploading:
                    return not waited or bool(self._staged.get(self.kind))
                if time.monotonic() - started > UPLOAD_WAIT_SECONDS:
                    self._upload_done()
                    return True
            waited = True
            await asyncio.sleep(TICK_SECONDS)

    async def _tick_checks(self, work: asyncio.Task) -> None:
        wait = get_settings().body_analysis_wait_seconds
        started = time.monotonic()
        while not work.done() or time.monotonic() - started < wait:
            await asyncio.sleep(TICK_SECONDS)
            share = (time.monotonic() - started) / max(wait, TICK_SECONDS)
            async with self:
                self.checks_done = min(CHECK_LINES - 1, int(CHECK_LINES * share))
        async with self:
            self.checks_done = CHECK_LINES

    # -- /{kind}-results -----------------------------------------------------------------
    @rx.event
    async def open_results(self, kind: str):
        """on_load of a results page: without a result, back to the kind's upload page."""
        if kind not in BODY_KINDS:
            return rx.redirect(routes.HOME)
        user = await self._current_user()
        navigation = await self._navigation_of(kind)
        try:
            result = await run_in_session(
                body_service.result_to_show, user and user.id, kind, navigation
            )
        except DomainError as error:
            return [rx.toast.error(error.message), rx.redirect(UPLOAD_ROUTES[kind])]
        if result is None:
            self.result_kind = ""
            return rx.redirect(UPLOAD_ROUTES[kind])
        if not navigation.get("result"):  # the hands default: the same one on a reload
            navigation = body_service.result_navigation(result)
            self._set_navigation(kind, navigation)
            await shown_state.keep(self, navigation, kind)
        self._show(result, saved=bool(navigation.get("saved")))
        return BodyScoreState.end_celebration if self.celebrate else None

    def _show(self, result: ScoreResult, *, saved: bool) -> None:
        self.result_kind = result.kind
        self.score, self.score_text = result.score, body_service.score_text(result)
        self.label, self.emoji, self.color = result.label, result.emoji, result.color
        self.breakdown = body_service.breakdown_rows(result)
        self.image_url = media_url(result.image_key)
        self.share_message = body_service.share_text(result)
        self.pet_summary = body_service.pet_summary(result)
        self.saved = saved
        self.celebrate = body_service.celebrates(result)

    @rx.event(background=True)
    async def end_celebration(self):
        """The confetti lasts the documents' three seconds."""
        await asyncio.sleep(constants.CONFETTI_SECONDS)
        async with self:
            self.celebrate = False

    async def _navigation_of(self, kind: str) -> dict:
        """What the results page of ``kind`` receives; if the tab's state was lost with
        it (Redis restarted empty, say), the one kept for the tab (``shown_state``)."""
        navigation = self._navigation.get(kind)
        if not navigation and (navigation := await shown_state.find(self, kind)):
            self._set_navigation(kind, navigation)
        return navigation or {}

    async def _result_on_show(self) -> tuple[str, dict]:
        """The kind on show and its navigation. A lost state knows the kind only from
        the results page the press came from."""
        on_page = {route: kind for kind, route in RESULTS_ROUTES.items()}
        kind = self.result_kind or on_page.get(self.router.url.path.rstrip("/") or "/", "")
        return kind, await self._navigation_of(kind) if kind else {}

    @rx.event
    @BODY_SAVE_WAIT.answers
    async def save(self, attempt: str = ""):
        """'Save to Dashboard': members only, once, from the result the server holds (and
        once per ``attempt``)."""
        kind, navigation = await self._result_on_show()
        if not navigation.get("result"):
            return rx.redirect(UPLOAD_ROUTES.get(kind, "/"))
        if navigation.get("saved"):
            self.saved = True
            return None
        user = await self._current_user()
        if user is None:
            return [
                rx.toast.error(messages.SIGN_IN_TO_SAVE_RESULTS, id=SESSION_TOAST),
                self._sign_in_redirect(RESULTS_ROUTES[kind]),
            ]
        result = ScoreResult.from_dict(navigation["result"])
        # 'Failed to save results' is the one failure text here, a refusal included.
        failed = messages.FAILED_TO_SAVE_RESULTS
        with guarded(f"Saving a {kind} result", failed, refusals=False) as call:
            await run_in_session(body_service.save_body_result, get_media_store(), user.id, result)
        if call.failed:
            return call.toast
        self._set_navigation(kind, {**navigation, "saved": True})
        await shown_state.keep(self, self._navigation[kind], kind)
        self.saved = True
        return rx.toast.success(messages.RESULTS_SAVED)

    @rx.event
    async def download_card(self):
        """'Download Result Card': the 600×800 PNG, drawn on the server."""
        _, navigation = await self._result_on_show()
        if not navigation.get("result"):
            return rx.toast.error(messages.FAILED_TO_DOWNLOAD_RETRY)
        result = ScoreResult.from_dict(navigation["result"])
        failed = messages.FAILED_TO_DOWNLOAD_RETRY
        with guarded(f"Rendering a {result.kind} result card", failed, refusals=False) as call:
            png = await photo_work(body_service.render_card, get_media_store(), result)
        if call.failed:
            return call.toast
        return [
            rx.download(data=png, filename=body_service.card_filename(result)),
            rx.toast.success(messages.RESULT_CARD_DOWNLOADED),
        ]
