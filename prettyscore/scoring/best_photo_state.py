"""Reflex state of "Which photo shows you best" (/best-photo): choose 2 to 6 photos →
compare → the photos ranked, each with what differs from the best and one line of advice.

Thin by design: ``best_photo_service`` stages the photos, reads each one and ranks them.
The staged photos' keys stay in backend-only vars; the tab holds their URLs and the
ranked cards' texts. The photos are read one after another on the photo pool, so the
page counts them off while it waits.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time

import reflex as rx
from reflex_base.utils.format import format_event_handler

from prettyscore.accounts.state import AuthState
from prettyscore.core import constants, messages
from prettyscore.core.media import get_media_store, media_url
from prettyscore.core.workers import photo_work
from prettyscore.scoring import best_photo_service
from prettyscore.scoring.best_photo_service import RankedPhoto, Ranking, Upload
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import ServerWait
from prettyscore.ui.upload_watch import UploadProgress

UPLOAD_ID = "best_photos"
TICK_SECONDS = 0.15
#: How long 'Compare My Photos' waits for photos still on their way before giving up.
UPLOAD_WAIT_SECONDS = 120.0
#: 'Compare My Photos': busy from the click, and says so when no answer comes.
COMPARE_WAIT = ServerWait("best_photo")


@dataclasses.dataclass
class BestPhotoCard:
    """One photo of the comparison as its card shows it (texts ready to show)."""

    rank: str = ""  # "#1"; "Not ranked" for a photo the analysis refused
    best: bool = False
    image_url: str = ""
    alt: str = ""
    quality: str = ""  # "Photo quality 8.2/10"
    score: str = ""  # "Score 7.4"
    person_score: str = ""  # "Your face alone: 7.3"
    # Each aspect: {"name", "value" (0–10), "text" (its value with one decimal)}.
    aspects: list[dict] = dataclasses.field(default_factory=list)
    differs: str = ""  # "What differs: Light, Sharpness"
    advice: str = ""  # the photo's advice, or the refusal's text


def _card(photo: RankedPhoto) -> BestPhotoCard:
    if photo.rank is None:
        return BestPhotoCard(
            rank=messages.BEST_PHOTO_NOT_RANKED,
            image_url=media_url(photo.image_key),
            alt=messages.BEST_PHOTO_CHOSEN_ALT,
            advice=photo.refusal,
        )
    quality = "" if photo.quality is None else f"{photo.quality:.1f}"
    person = photo.person_score_text
    return BestPhotoCard(
        rank=messages.BEST_PHOTO_RANK.format(rank=photo.rank),
        best=photo.rank == 1,
        image_url=media_url(photo.image_key),
        alt=messages.BEST_PHOTO_RANKED_ALT.format(rank=photo.rank),
        quality=messages.BEST_PHOTO_QUALITY.format(value=quality) if quality else "",
        score=messages.BEST_PHOTO_SCORE.format(score=photo.score_text),
        person_score=messages.BEST_PHOTO_PERSON_SCORE.format(score=person) if person else "",
        aspects=[
            {**row, "text": f"{row['value']:.1f}"} for row in best_photo_service.aspect_rows(photo)
        ],
        differs=(
            messages.BEST_PHOTO_DIFFERS.format(aspects=", ".join(photo.differs))
            if photo.differs
            else ""
        ),
        advice=photo.advice,
    )


class BestPhotoState(UploadProgress, AuthState):
    """One tab's comparison: the chosen photos, the reading's progress, the ranking."""

    staging: bool = False
    chosen_urls: list[str] = []
    comparing: bool = False
    compared_count: int = 0  # photos read so far
    cards: list[BestPhotoCard] = []
    ranked_by_score: bool = False  # the engine reads no photo: ranked by score alone

    _staged: list[str] = []  # the chosen photos' media keys, in the order chosen
    _compared: list[str] = []  # the keys whose ranking is on show
    # The attempt ids of the latest presses run (``ui.server_wait``).
    _answered_attempts: list[str] = []

    @rx.var
    def comparing_text(self) -> str:
        """'Comparing photo 2 of 4...' while the photos are read."""
        total = len(self.chosen_urls)
        return messages.BEST_PHOTO_COMPARING.format(
            done=min(self.compared_count + 1, total), total=total
        )

    @rx.var
    def compared_percent(self) -> int:
        return 100 * self.compared_count // max(len(self.chosen_urls), 1)

    @rx.var
    def chosen_text(self) -> str:
        return messages.BEST_PHOTO_CHOSEN.format(count=len(self.chosen_urls))

    # -- choosing the photos -----------------------------------------------------------
    @rx.event
    async def choose_photos(self, files: list[rx.UploadFile], drop: str = ""):
        """The drop zone: check the photos and keep them for this session."""
        self.staging = True
        try:
            return await self._choose(files)
        finally:
            self.staging = False
            self._upload_done(drop)

    async def _choose(self, files: list[rx.UploadFile]):
        if self.comparing or not files:
            # No files: the picker refused them and said why (reject_drop).
            return None
        with guarded("Staging photos to compare", messages.PHOTO_NOT_STORED) as call:
            best_photo_service.check_photo_count(len(files))
            uploads = [
                Upload(
                    await file.read(constants.MAX_UPLOAD_BYTES + 1), file.name, file.content_type
                )
                for file in files
            ]
            keys = await photo_work(
                best_photo_service.stage_photos, get_media_store(), self._visitor_owner(), uploads
            )
        if call.failed:
            return call.toast
        self._forget_photos()
        self._staged = keys
        self.chosen_urls = [media_url(key) for key in keys]
        return None

    def _photo_being_kept(self) -> bool:
        return self.staging

    @rx.event
    def change_photos(self):
        """'Choose Other Photos': forget the chosen photos (and delete their files)."""
        if not self.comparing:
            self._forget_photos()
            self._upload_done()

    def _forget_photos(self) -> None:
        store = get_media_store()
        for key in self._staged:
            store.delete(key)
        self._staged, self._compared = [], []
        self.chosen_urls, self.cards, self.ranked_by_score = [], [], False

    @rx.event
    def reject_drop(self, error_codes: list[str]):
        """The picker refused files before upload: too many, too large, or not images."""
        if "too-many-files" in error_codes:
            return rx.toast.error(messages.BEST_PHOTO_TOO_MANY)
        if "file-too-large" in error_codes:
            return rx.toast.error(messages.FILE_TOO_LARGE)
        return rx.toast.error(messages.PLEASE_UPLOAD_IMAGE_FILE)

    # -- comparing ---------------------------------------------------------------------
    @rx.event(background=True)
    async def compare(self):
        """'Compare My Photos': read each photo on the photo pool, counting them off,
        then show the ranking. Every outcome ends the browser's wait (``COMPARE_WAIT``);
        a repeat while it runs, or once its ranking shows, does nothing more."""
        outcome = await self._compare()
        return COMPARE_WAIT.answering(outcome)

    async def _compare(self):
        if not await self._wait_for_upload():
            return None
        async with self:
            keys = list(self._staged)
            if self.comparing or (keys and keys == self._compared):
                return None
            if not keys:
                return rx.toast.error(messages.BEST_PHOTO_TOO_FEW)
            self.comparing, self.compared_count = True, 0
        with guarded("Comparing photos") as call:
            ranking = await self._read_and_rank(keys)
        async with self:
            self.comparing = False
            if call.failed:
                return call.toast
            if self._staged == keys:  # not other photos, chosen meanwhile
                self._show(ranking, keys)
        return None

    async def _read_and_rank(self, keys: list[str]) -> Ranking:
        store, reads = get_media_store(), []
        for key in keys:
            reads.append(await photo_work(best_photo_service.read_photo, store, key))
            async with self:
                self.compared_count = len(reads)
        return best_photo_service.rank(reads)

    def _show(self, ranking: Ranking, keys: list[str]) -> None:
        self.cards = [_card(photo) for photo in ranking.photos]
        self.ranked_by_score = not ranking.by_photo
        self._compared = keys

    async def _wait_for_upload(self) -> bool:
        """Pressed while photos are still on their way: wait for them, then go on. False
        if the upload's own refusal has been shown (nothing more to say)."""
        started = time.monotonic()
        waited = False
        while True:
            async with self:
                if not (self.uploading or self.staging):
                    return not waited or bool(self._staged)
                if time.monotonic() - started > UPLOAD_WAIT_SECONDS:
                    self._upload_done()
                    return True
            waited = True
            await asyncio.sleep(TICK_SECONDS)


#: The photos of one comparison travel in one upload: up to six at the file limit each
#: (``web.upload_limits``), where every other upload carries one photo.
UPLOAD_LIMITS = {
    format_event_handler(BestPhotoState.choose_photos): (
        constants.BEST_PHOTO_MAX_PHOTOS * constants.MAX_UPLOAD_BYTES
    )
}
