"""Reflex state of video generation: choose a photo, start a job, follow it to the end.

One state drives both the /video-generation page and the dashboard's video dialog (one
generation per tab at a time). The job runs on a worker thread of the server, not inside
this tab's events, so it goes on if the page is reloaded or the dialog closed; the tab
only polls the job's row (every 5 s, at most 30 times, as the documents say) and shows
what it finds. Whoever resumes the polling takes it over, so there is never more than
one poller per tab.

The page also lists the member's own videos (``videos``), read from the database each
time the page loads, when a generation starts and when the tab's job ends: the list is
only a view of the rows, so a tab whose state was lost (a Redis restart) shows it again
on its next load, and a generation still rendering is followed again by the same poller.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.core import constants, messages
from prettyscore.core.db import run_in_session, session_scope
from prettyscore.core.errors import DomainError
from prettyscore.core.media import get_media_store, key_from_url, media_url
from prettyscore.core.model_types import utcnow
from prettyscore.core.workers import database_work, photo_work
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import ServerWait
from prettyscore.video import jobs as video_jobs
from prettyscore.video import service
from prettyscore.video.engines.base import DEFAULT_DURATION_SECONDS, clamp_duration
from prettyscore.video.models import VideoStatus

VIDEO_UPLOAD_ID = "video_upload"
#: "Generate Video" is busy from the press; a retry never starts a second video.
START_WAIT = ServerWait("video_start")
POLL_SECONDS = 5
MAX_POLLS = 30
#: The phase before a generation starts; the others are the generation's ``VideoStatus``.
IDLE = "idle"


@dataclasses.dataclass
class VideoRow:
    """One of the member's videos as the page lists it (``service.MemberVideo``)."""

    id: str = ""
    status: str = ""  # a VideoStatus
    video_url: str = ""
    poster_url: str = ""
    created: str = ""
    label: str = ""  # the player's accessible name


def video_row(video: service.MemberVideo) -> VideoRow:
    created = f"{video.created_at:%b} {video.created_at.day}, {video.created_at.year}"
    return VideoRow(
        id=str(video.id),
        status=video.status,
        video_url=video.video_url,
        poster_url=video.poster_url,
        created=created,
        label=messages.YOUR_VIDEO_OF.format(date=created),
    )


def _video_file_name() -> str:
    """The documents' download name: ai-video-{timestamp}.mp4 (milliseconds)."""
    return f"ai-video-{int(utcnow().timestamp() * 1000)}.mp4"


def _download(video_url: str):
    return [
        rx.download(url=video_url, filename=_video_file_name()),
        rx.toast.success(messages.VIDEO_DOWNLOADED),
    ]


def _job_status(user_id, job_id: str) -> tuple[str, str]:
    with session_scope() as db:
        job = service.get_generation(db, user_id, job_id)
        return job.status, job.video_url or ""


class VideoState(AuthState):
    """One tab's video generation: idle → processing → completed or failed (``phase``:
    ``IDLE`` or a ``VideoStatus``)."""

    phase: str = IDLE
    source_url: str = ""
    prompt: str = messages.VIDEO_DEFAULT_PROMPT
    duration: int = DEFAULT_DURATION_SECONDS
    video_url: str = ""
    polls: int = 0
    dialog_open: bool = False
    # 'N of 2 free videos left' (or unlimited with Premium), counted on the server.
    videos_left: str = ""
    # The member's videos, newest first, as the database had them at the last look.
    videos: list[VideoRow] = []
    videos_loaded: bool = False
    more_videos: bool = False  # more than the list shows

    _source_key: str = ""
    _source_photo_id: str = ""  # the saved photo the source came from, if any
    _job_id: str = ""
    _poller: str = ""  # the one follow_job run allowed to poll
    # The attempt ids of the latest presses run (``ui.server_wait``).
    _answered_attempts: list[str] = []

    def _signed_out(self):
        return [
            rx.toast.error(messages.PLEASE_SIGN_IN_TO_GENERATE_VIDEOS),
            self._sign_in_redirect(),
        ]

    def _resume_following(self):
        """The poller to (re)start if a job is under way (after a reload, on reopening)."""
        if self.phase == VideoStatus.PROCESSING and self._job_id:
            return VideoState.follow_job
        return None

    async def _count_videos_left(self, user_id: uuid.UUID) -> None:
        """The line under Generate, from the generations counted as the limit counts them."""
        with guarded("Counting the free videos left", fallback=None, refusals=False) as call:
            left = await run_in_session(service.free_videos_left, user_id)
        if call.failed:
            self.videos_left = ""
            return
        self.videos_left = service.allowance_text(left)

    async def _read_videos(self, user_id: uuid.UUID) -> list[service.MemberVideo] | None:
        """The member's videos from the database (one more than shown, to tell whether
        there are more); None if they could not be read (logged; the list stays)."""
        with guarded("Listing the member's videos", fallback=None, refusals=False) as call:
            found = await run_in_session(
                service.member_videos, user_id, limit=service.MEMBER_VIDEOS_SHOWN + 1
            )
        return None if call.failed else found

    def _show_videos(self, found: list[service.MemberVideo] | None) -> None:
        if found is None:
            return
        shown = service.MEMBER_VIDEOS_SHOWN
        self.videos = [video_row(video) for video in found[:shown]]
        self.more_videos = len(found) > shown
        self.videos_loaded = True

    def _take_up_rendering(self, found: list[service.MemberVideo] | None) -> None:
        """A tab with no job of its own (its state was lost, or the video was started in
        another tab) follows the member's newest video still rendering, so that it turns
        into the finished video here too; a photo chosen to animate is left as it is."""
        if found is None or self.phase != IDLE or self.source_url or self._job_id:
            return
        rendering = next((v for v in found if v.status == VideoStatus.PROCESSING), None)
        if rendering is not None:
            self._job_id, self.phase, self.polls, self.video_url = (
                str(rendering.id),
                VideoStatus.PROCESSING,
                0,
                "",
            )

    def _reset_job(self) -> None:
        self.phase, self.video_url, self.polls, self._job_id = IDLE, "", 0, ""

    def _set_source(self, key: str, photo_id: str = "") -> None:
        self._source_key, self._source_photo_id = key, photo_id
        self.source_url = media_url(key) if key else ""

    @rx.event
    async def open_page(self):
        """on_load: members only; lists the member's videos from the database, and a job
        started before a reload (or a video still rendering) is followed again."""
        user = await self._current_user()
        if user is None:
            return self._signed_out()
        await self._count_videos_left(user.id)
        found = await self._read_videos(user.id)
        self._show_videos(found)
        self._take_up_rendering(found)
        return self._resume_following()

    @rx.event
    async def open_dialog(self, photo_id: str):
        """Open the video dialog for one of the member's saved photos (dashboard, editor).

        The source is the photo's current image (its edit if it has one) as the server
        finds it among this member's own photos; the browser only names the photo. A job
        still under way stays on screen (and is followed again), as does the finished
        result of this same photo; otherwise the dialog starts idle with this photo.
        """
        user = await self._current_user()
        if user is None:
            return self._signed_out()
        self.dialog_open = True
        await self._count_videos_left(user.id)
        if self.phase == VideoStatus.PROCESSING and self._job_id:
            return self._resume_following()
        if self.phase != IDLE and photo_id == self._source_photo_id:
            return None
        self._reset_job()
        try:
            url = await run_in_session(service.saved_photo_source, user.id, photo_id)
        except DomainError:
            self._set_source("")
            return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FIRST)
        self._set_source(key_from_url(url), photo_id)
        return None

    @rx.event
    def set_dialog_open(self, is_open: bool):
        """Closing the dialog leaves a job running; reopening shows where it is."""
        self.dialog_open = is_open

    @rx.event
    def resume(self):
        """on_load of the pages with the dialog: after a reload, or a reconnect to another
        web process (the one polling may have stopped), a running job is followed again;
        the dialog stays as it is."""
        return self._resume_following()

    @rx.event
    def dialog_mounted(self):
        """The dashboard (re)loaded: the dialog starts closed, a running job is followed."""
        self.dialog_open = False
        return self._resume_following()

    @rx.event
    async def choose_image(self, files: list[rx.UploadFile]):
        """The photo to animate: it must be an image (checked on the server); a refused
        file gets the refusal the other pickers give (too large, too many pixels, ...)."""
        if not files:
            return None  # the picker refused the file and said why (reject_drop)
        user = await self._current_user()
        if user is None:
            return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FILE)
        data = await files[0].read(constants.MAX_UPLOAD_BYTES + 1)
        with guarded("Staging a photo to animate", messages.PHOTO_NOT_STORED) as call:
            key = await photo_work(
                service.stage_source, session_scope, get_media_store(), user.id, data
            )
        if call.failed:
            return call.toast
        self._set_source(key)
        self.phase, self.video_url = IDLE, ""
        return None

    @rx.event
    def reject_drop(self, error_codes: list[str]):
        """The picker refused a file before upload: too large, or not an image."""
        if "file-too-large" in error_codes:
            return rx.toast.error(messages.FILE_TOO_LARGE)
        return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FILE)

    @rx.event
    def set_prompt(self, value: str):
        self.prompt = value

    @rx.event
    def set_duration(self, value: str):
        """The clip's length in seconds (kept within what the engine renders)."""
        self.duration = clamp_duration(value)

    @rx.event
    def back_to_idle(self):
        """'Try Again' and 'Generate Another': back to idle with the same photo."""
        self._reset_job()

    @rx.event
    def change_image(self):
        """'Change Image': back to idle to choose another photo."""
        self._reset_job()
        self._set_source("")

    @rx.event
    @START_WAIT.answers
    async def start(self, attempt: str = ""):
        """Start a generation if the member may; the render runs as a job (video.jobs).
        Once per ``attempt`` (``START_WAIT``)."""
        user = await self._current_user()
        if user is None:
            return self._signed_out()
        if self.phase == VideoStatus.PROCESSING:
            return None  # one generation per tab at a time
        if not self._source_key:
            return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FILE)
        if not get_media_store().exists(self._source_key):
            # A photo chosen but not animated lives a day (photos.media_files): a tab
            # left open longer chooses again rather than spend a generation on nothing.
            self._set_source("")
            return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FILE)
        with guarded("Starting a video generation", messages.FAILED_TO_GENERATE_VIDEO) as call:
            job = await run_in_session(
                service.start_generation,
                user.id,
                source_image_url=self.source_url,
                prompt=self.prompt,
                duration_seconds=self.duration,
            )
        if call.failed:
            return call.toast
        await asyncio.to_thread(video_jobs.start_render, job.id)
        self._job_id, self.phase, self.polls, self.video_url = (
            str(job.id),
            VideoStatus.PROCESSING,
            0,
            "",
        )
        await self._count_videos_left(user.id)
        self._show_videos(await self._read_videos(user.id))
        return [rx.toast.info(messages.VIDEO_STARTED), VideoState.follow_job]

    @rx.event(background=True)
    async def follow_job(self):
        """Poll the job every 5 s, at most 30 times in all (a resumed poller counts on).

        Starting a poller retires any earlier one of this tab (e.g. one left on another
        worker after a reload), so each poll is counted once.
        """
        poller = uuid.uuid4().hex
        async with self:
            self._poller = poller
        while True:
            await asyncio.sleep(POLL_SECONDS)
            async with self:
                if not self._is_polling(poller):
                    return None
                user = await self._current_user()
                job_id, self.polls = self._job_id, self.polls + 1
                polls = self.polls
            if user is None:
                return None
            failure = messages.FAILED_TO_CHECK_VIDEO_STATUS
            with guarded("Checking a video generation", failure, refusals=False) as call:
                status, video_url = await database_work(_job_status, user.id, job_id)
            if call.failed:
                return await self._finish(poller, user.id, VideoStatus.FAILED, "", failure)
            if status == VideoStatus.COMPLETED and video_url:
                return await self._finish(poller, user.id, VideoStatus.COMPLETED, video_url, None)
            if status == VideoStatus.FAILED:
                return await self._finish(
                    poller, user.id, VideoStatus.FAILED, "", messages.VIDEO_GENERATION_FAILED
                )
            if polls >= MAX_POLLS:
                return await self._finish(
                    poller, user.id, VideoStatus.FAILED, "", messages.VIDEO_GENERATION_TIMED_OUT
                )

    def _is_polling(self, poller: str) -> bool:
        return (
            self._poller == poller and self.phase == VideoStatus.PROCESSING and bool(self._job_id)
        )

    async def _finish(
        self, poller: str, user_id: uuid.UUID, phase: str, video_url: str, error_text: str | None
    ):
        """The job ended: show its outcome, and the member's videos as they are now."""
        found = await self._read_videos(user_id)
        async with self:
            if not self._is_polling(poller):
                return None  # another poller took over, or the member moved on
            self.phase, self.video_url = phase, video_url
            self._show_videos(found)
        if error_text:
            return rx.toast.error(error_text)
        return rx.toast.success(messages.VIDEO_GENERATED)

    @rx.event
    def download(self):
        """Download as ai-video-{timestamp}.mp4."""
        if not self.video_url:
            return rx.toast.error(messages.FAILED_TO_DOWNLOAD_VIDEO)
        return _download(self.video_url)

    @rx.event
    async def download_video(self, video_id: str):
        """Download one of the member's finished videos (from their list) as
        ai-video-{timestamp}.mp4; the server finds it among the member's own."""
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        with guarded("Downloading a listed video", messages.FAILED_TO_DOWNLOAD_VIDEO) as call:
            video_url = await run_in_session(service.finished_video_url, user.id, video_id)
        if call.failed:
            return call.toast
        return _download(video_url)
