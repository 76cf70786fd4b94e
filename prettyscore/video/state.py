"""Reflex state of /video-generation: choose a photo, start a job, follow it to the end.

The job runs on a worker thread of the server, not inside this tab's events, so it goes
on if the page is reloaded; the tab only polls the job's row (every 5 s, at most 30
times, as the documents say) and shows what it finds.
"""

from __future__ import annotations

import asyncio
import logging

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.core import constants, messages
from prettyscore.core.db import run_in_session, session_scope
from prettyscore.core.errors import DomainError
from prettyscore.core.media import MediaOwner, get_media_store, media_url
from prettyscore.core.model_types import utcnow
from prettyscore.scoring import service as scoring
from prettyscore.video import service
from prettyscore.video.engines.base import DEFAULT_DURATION_SECONDS

log = logging.getLogger(__name__)

VIDEO_UPLOAD_ID = "video_upload"
POLL_SECONDS = 5
MAX_POLLS = 30


def _job_status(user_id, job_id: str) -> tuple[str, str]:
    with session_scope() as db:
        job = service.get_generation(db, user_id, job_id)
        return job.status, job.video_url or ""


class VideoState(AuthState):
    """One tab's video generation: idle → processing → completed or failed."""

    phase: str = "idle"
    source_url: str = ""
    prompt: str = messages.VIDEO_DEFAULT_PROMPT
    duration: int = DEFAULT_DURATION_SECONDS
    video_url: str = ""
    polls: int = 0

    _source_key: str = ""
    _job_id: str = ""

    @rx.event
    async def open_page(self):
        """on_load: members only; a job started before a reload is followed again."""
        if await self.current_user() is None:
            return [
                rx.toast.error(messages.PLEASE_SIGN_IN_TO_GENERATE_VIDEOS),
                self.sign_in_redirect(),
            ]
        if self.phase == "processing" and self._job_id:
            return VideoState.follow_job
        return None

    @rx.event
    async def choose_image(self, files: list[rx.UploadFile]):
        """The photo to animate: it must be an image (checked on the server)."""
        user = await self.current_user()
        if user is None or not files:
            return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FILE)
        data = await files[0].read(constants.MAX_UPLOAD_BYTES + 1)
        try:
            key = await asyncio.to_thread(
                scoring.stage_photo, get_media_store(), MediaOwner.member(user.id), data
            )
        except DomainError:
            return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FILE)
        self._source_key, self.source_url = key, media_url(key)
        self.phase, self.video_url = "idle", ""
        return None

    @rx.event
    def set_prompt(self, value: str):
        self.prompt = value

    @rx.event
    def back_to_idle(self):
        """'Try Again' and 'Generate Another': back to idle with the same photo."""
        self.phase, self.video_url, self.polls, self._job_id = "idle", "", 0, ""

    @rx.event
    def change_image(self):
        """'Change Image': back to idle to choose another photo."""
        self.back_to_idle()
        self._source_key, self.source_url = "", ""

    @rx.event
    async def start(self):
        """Start a generation if the member may; the render runs on a server thread."""
        user = await self.current_user()
        if user is None:
            return [
                rx.toast.error(messages.PLEASE_SIGN_IN_TO_GENERATE_VIDEOS),
                self.sign_in_redirect(),
            ]
        if not self._source_key:
            return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FILE)
        try:
            job = await run_in_session(
                service.start_generation,
                user.id,
                source_image_url=self.source_url,
                prompt=self.prompt,
                duration_seconds=self.duration,
            )
        except DomainError as error:
            return rx.toast.error(error.message)
        except Exception:
            log.exception("Starting a video generation failed")
            return rx.toast.error(messages.FAILED_TO_GENERATE_VIDEO)
        asyncio.get_running_loop().run_in_executor(
            None, service.render_generation, session_scope, get_media_store(), job.id
        )
        self._job_id, self.phase, self.polls, self.video_url = str(job.id), "processing", 0, ""
        return [rx.toast.info(messages.VIDEO_STARTED), VideoState.follow_job]

    @rx.event(background=True)
    async def follow_job(self):
        """Poll the job every 5 s, at most 30 times."""
        while True:
            await asyncio.sleep(POLL_SECONDS)
            async with self:
                if self.phase != "processing" or not self._job_id:
                    return None
                user = await self.current_user()
                job_id, self.polls = self._job_id, self.polls + 1
                polls = self.polls
            try:
                status, video_url = await asyncio.to_thread(_job_status, user.id, job_id)
            except Exception:
                log.exception("Checking a video generation failed")
                return await self._finish("failed", "", messages.FAILED_TO_CHECK_VIDEO_STATUS)
            if status == "completed" and video_url:
                return await self._finish("completed", video_url, None)
            if status == "failed":
                return await self._finish("failed", "", messages.VIDEO_GENERATION_FAILED)
            if polls >= MAX_POLLS:
                return await self._finish("failed", "", messages.VIDEO_GENERATION_TIMED_OUT)

    async def _finish(self, phase: str, video_url: str, error_text: str | None):
        async with self:
            self.phase, self.video_url = phase, video_url
        if error_text:
            return rx.toast.error(error_text)
        return rx.toast.success(messages.VIDEO_GENERATED)

    @rx.event
    def download(self):
        """Download as ai-video-{timestamp}.mp4."""
        if not self.video_url:
            return rx.toast.error(messages.FAILED_TO_DOWNLOAD_VIDEO)
        stamp = int(utcnow().timestamp() * 1000)
        return [
            rx.download(url=self.video_url, filename=f"ai-video-{stamp}.mp4"),
            rx.toast.success(messages.VIDEO_DOWNLOADED),
        ]
