"""Reflex state of My Photos (/dashboard): the member's saved photos, paged.

Every action resolves the member from the session first; a photo id sent by the browser
is only ever looked up among that member's own photos.
"""

from __future__ import annotations

import dataclasses
import io

import reflex as rx

from prettyscore.accounts.service import CurrentUser
from prettyscore.accounts.state import AuthState
from prettyscore.analysis.kinds import FACE, FEET, HANDS
from prettyscore.analysis.service import BREAKDOWN_NAMES, saved_breakdown_view
from prettyscore.analysis.tiers import score_text
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import DomainError, NotFound
from prettyscore.core.media import get_media_store, key_from_url
from prettyscore.core.workers import photo_work
from prettyscore.photos import service
from prettyscore.photos.models import Photo
from prettyscore.ui.explanation import ExplanationNote, explanation_notes
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import ServerWait

# Saved feet and hands photos say what they are; each shows its own kind's sub-scores.
KIND_TITLES = {FEET: messages.TITLE_FEET_UPLOAD, HANDS: messages.TITLE_HANDS_UPLOAD}

# Download, Delete and Delete everything are busy from the press, say so when no answer
# comes, and run once however often "Try again" is pressed (``ui.server_wait``).
DOWNLOAD_WAIT = ServerWait("photo_download")
DELETE_WAIT = ServerWait("photo_delete")
DELETE_ACCOUNT_WAIT = ServerWait("delete_account")


@dataclasses.dataclass
class Metric:
    """One sub-score of a card: its name and value out of 10, as text."""

    name: str = ""
    value: str = ""


@dataclasses.dataclass
class PhotoCard:
    """What a card and the details dialog show of one photo (URLs, never bytes)."""

    id: str = ""
    image_url: str = ""
    original_url: str = ""
    edited_url: str = ""
    score: float = 0.0
    score_text: str = ""
    label: str = ""
    created: str = ""
    listed: bool = False
    kind_title: str = ""  # "Feet Score" or "Hands Score"; "" for a face
    explanation_url: str = ""  # the measured picture; its notes load with the details
    metrics: list[Metric] = dataclasses.field(default_factory=list)
    # Where a card cut to another shape centres the photo (CSS object-position).
    focus: str = "50% 50%"
    # What was scored (face, feet, hands, pet) and the stored breakdown, for the details.
    kind: str = ""
    breakdown: dict[str, float] = dataclasses.field(default_factory=dict)


def photo_card(photo: Photo) -> PhotoCard:
    """The card of one saved photo."""
    return PhotoCard(
        id=str(photo.id),
        image_url=photo.edited_image_url or photo.original_image_url,
        original_url=photo.original_image_url,
        edited_url=photo.edited_image_url or "",
        score=photo.score,
        score_text=score_text(photo.score),
        label=photo.rating_label,
        created=f"{photo.created_at:%b} {photo.created_at.day}, {photo.created_at.year}",
        listed=photo.public_listing,
        kind_title=KIND_TITLES.get(photo.photo_type, ""),
        explanation_url=photo.explanation_image_url or "",
        metrics=[
            Metric(BREAKDOWN_NAMES.get(key, key), f"{float(value):.1f}")
            for key, value in (photo.breakdown or {}).items()
        ],
        focus=card_focus(photo),
        kind=photo.photo_type,
        breakdown={str(key): float(value) for key, value in (photo.breakdown or {}).items()},
    )


#: Without a measured face (older photos, feet, hands, pets), a card keeps the photo's
#: upper part, where a portrait's head is: a centred cut lost the top of it.
UNMEASURED_FOCUS = (0.5, 0.3)


def card_focus(photo: Photo) -> str:
    """The CSS object-position that keeps the photo's face in a card of another shape:
    the analysis's face centre, a little above it for the hair."""
    if photo.focus_x is None or photo.focus_y is None:
        x, y = UNMEASURED_FOCUS
    else:
        x, y = photo.focus_x, max(0.0, photo.focus_y - 0.05)
    return f"{x * 100:.1f}% {y * 100:.1f}%"


def _photo_png(user_id, photo_id: str, which: str) -> tuple[bytes, str]:
    """The member's photo as a PNG and its download name (the documents' names)."""
    from PIL import Image

    from prettyscore.core.db import session_scope

    with session_scope() as db:
        photo = service.get_photo(db, user_id, photo_id)
        url = photo.edited_image_url if which == "edited" else photo.original_image_url
        shown = score_text(photo.score)
    if not url:
        raise DomainError(messages.NO_PHOTO_TO_DOWNLOAD)
    data = get_media_store().read(key_from_url(url))
    buffer = io.BytesIO()
    Image.open(io.BytesIO(data)).save(buffer, format="PNG")
    return buffer.getvalue(), f"pretty-score-{shown}-{which}.png"


class PhotosState(AuthState):
    """The dashboard's photo grid, its sort order and the details dialog."""

    photos: list[PhotoCard] = []
    total: int = 0
    sort: str = "latest"
    loading: bool = True
    has_more: bool = False
    selected: PhotoCard = PhotoCard()
    selected_notes: list[ExplanationNote] = []
    # A saved face's breakdown, as /results shows it (``analysis.service.BreakdownView``);
    # none for feet, hands and pets.
    selected_bars: list[dict] = []
    selected_apart: list[dict] = []
    selected_sum: str = ""
    details_open: bool = False
    # The attempt ids of the latest presses run (``ui.server_wait``).
    _answered_attempts: list[str] = []

    async def _show_grid(self, user: CurrentUser):
        """The grid as the dashboard opens (DashboardState.open_page): the first page of
        photos, no dialog open (a reload shows the grid, not the last dialog)."""
        self.details_open = False
        return await self._load(reset=True, user=user)

    async def _load(self, *, reset: bool, user: CurrentUser | None = None):
        """Load the first (``reset``) or next page of photos; ``user`` when the caller
        has just resolved them in this event."""
        user = user or await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        self.loading = True
        offset = 0 if reset else len(self.photos)
        with guarded("Loading photos", messages.FAILED_TO_LOAD_PHOTOS, refusals=False) as call:
            page = await run_in_session(service.list_photos, user.id, sort=self.sort, offset=offset)
        if call.failed:
            self.loading = False
            return call.toast
        cards = [photo_card(photo) for photo in page.photos]
        self.photos = cards if reset else self.photos + cards
        self.total = page.total
        self.has_more = len(self.photos) < page.total
        self.loading = False
        return None

    @rx.event
    async def set_sort(self, value: str):
        """'Latest First' or 'Highest Rating'."""
        self.sort = "highest" if value == "highest" else "latest"
        return await self._load(reset=True)

    @rx.event
    async def load_more(self):
        return await self._load(reset=False)

    @rx.event
    async def open_details(self, photo_id: str):
        """Open the details dialog of a card the page already shows, then load the
        notes of its "How we got your score" (only a photo that has its picture)."""
        found = next((card for card in self.photos if card.id == photo_id), None)
        self.selected = found or PhotoCard()
        self.selected_notes = []
        self._show_breakdown(found)
        self.details_open = found is not None
        if found is None or not found.explanation_url:
            return
        yield
        user = await self._current_user()
        if user is None:
            return
        try:
            notes = await run_in_session(service.photo_explanation, user.id, found.id)
        except DomainError:
            return  # deleted meanwhile (in another tab): the dialog shows without notes
        if self.selected.id == found.id:
            self.selected_notes = explanation_notes(notes)
            self._show_breakdown(found, notes)

    def _show_breakdown(self, card: PhotoCard | None, notes: list[dict] | None = None) -> None:
        """The selected face's bars; how its score follows from them once its notes
        (which say what the photo added) are in."""
        if card is None or card.kind != FACE:
            self.selected_bars, self.selected_apart, self.selected_sum = [], [], ""
            return
        view = saved_breakdown_view(
            card.kind,
            card.score,
            card.breakdown,
            measured=bool(card.explanation_url),
            notes=notes,
        )
        self.selected_bars, self.selected_apart, self.selected_sum = (
            view.bars,
            view.apart,
            view.sum_line,
        )

    @rx.event
    def set_details_open(self, is_open: bool):
        self.details_open = is_open

    @rx.event
    @DOWNLOAD_WAIT.answers
    async def download_photo(self, which: str, attempt: str = ""):
        """Download the selected photo as pretty-score-{score}-edited/original.png (once
        per ``attempt``: a retry does not download it a second time)."""
        user = await self._current_user()
        if user is None or not self.selected.id:
            return rx.toast.error(messages.NO_PHOTO_TO_DOWNLOAD)
        kind = "edited" if which == "edited" and self.selected.edited_url else "original"
        with guarded("Photo download", messages.FAILED_TO_DOWNLOAD_PHOTO) as call:
            data, name = await photo_work(_photo_png, user.id, self.selected.id, kind)
        if isinstance(call.error, NotFound):  # deleted meanwhile (in another tab)
            return rx.toast.error(messages.FAILED_TO_DOWNLOAD_PHOTO)
        if call.failed:
            return call.toast
        return [rx.download(data=data, filename=name), rx.toast.success(messages.PHOTO_DOWNLOADED)]

    @rx.event
    @DELETE_WAIT.answers
    async def delete_selected(self, attempt: str = ""):
        """Delete the selected photo: its row, its leaderboard entry and its files (once
        per ``attempt``)."""
        user = await self._current_user()
        if user is None or not self.selected.id:
            return None
        try:  # deleted meanwhile (in another tab): deleted is deleted
            await run_in_session(
                service.delete_photo, get_media_store(), user.id, self.selected.id, gone_ok=True
            )
        except DomainError as error:
            return rx.toast.error(error.message)
        self.details_open, self.selected = False, PhotoCard()
        await self._load(reset=True)
        return rx.toast.success(messages.PHOTO_DELETED)

    @rx.event
    @DELETE_ACCOUNT_WAIT.answers
    async def delete_account(self, attempt: str = ""):
        """Delete the member, all their photos and files, and sign this browser out (once
        per ``attempt``)."""
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        with guarded("Account deletion", refusals=False) as call:
            await run_in_session(service.delete_account, get_media_store(), user.id)
        if call.failed:
            return call.toast
        self._clear_tokens()
        self.photos, self.total, self.selected = [], 0, PhotoCard()
        return [rx.toast.success(messages.ACCOUNT_DELETED), rx.redirect(routes.HOME)]
