"""Reflex state of /leaderboard, /global-ranking and /admin/leaderboard.

Ranks, who may enter which photo and who may moderate are decided by ``service`` on the
server; the browser only sends a photo id, which is looked up again every time.
"""

from __future__ import annotations

import dataclasses

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.analysis.tiers import score_text
from prettyscore.contact.state import ContactState
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import DomainError, ValidationFailed
from prettyscore.leaderboard import service
from prettyscore.leaderboard.components import BIO_FIELD, DISPLAY_NAME_FIELD
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import FormWait, ServerWait

# Rank icon colours for the podium: gold, silver, bronze.
#: The entry form is busy from the press and enters a photo once however often it is sent.
CONTEST_WAIT = FormWait("contest_entry")
# An admin's Verify and Remove: busy from the press, and a retry never runs twice.
VERIFY_WAIT = ServerWait("entry_verify")
REMOVE_WAIT = ServerWait("entry_remove")
MEDAL_COLOURS = {1: "#f5b301", 2: "#9ca3af", 3: "#cd7f32"}
MEDAL_NAMES = {1: "gold", 2: "silver", 3: "bronze"}
# The same medals' shades for the rank's small text on white: at least 4.5:1 (WCAG AA).
MEDAL_TEXT_COLOURS = {"gold": "#8a6500", "silver": "#6b7280", "bronze": "#9a5b1e"}


@dataclasses.dataclass
class EntryRow:
    """One leaderboard entry as the page shows it; ``own`` hides Contact on one's own."""

    rank: int = 0
    photo_id: str = ""
    image_url: str = ""
    display_name: str = ""
    bio: str = ""
    score: str = ""
    label: str = ""
    verified: bool = False
    medal_colour: str = ""
    medal: str = ""
    own: bool = False


def entry_row(entry: service.Entry, viewer_id: str = "") -> EntryRow:
    return EntryRow(
        rank=entry.rank,
        photo_id=entry.photo_id,
        image_url=entry.image_url,
        display_name=entry.display_name,
        bio=entry.bio,
        score=score_text(entry.score),
        label=entry.label,
        verified=entry.verified,
        medal_colour=MEDAL_COLOURS.get(entry.rank, ""),
        medal=MEDAL_NAMES.get(entry.rank, ""),
        own=bool(viewer_id) and entry.user_id == viewer_id,
    )


class LeaderboardState(AuthState):
    """The public leaderboard, a page at a time ("Show more")."""

    entries: list[EntryRow] = []
    total: int = 0
    loaded: bool = False
    loading: bool = False

    @rx.var
    def has_more(self) -> bool:
        return len(self.entries) < self.total

    async def _viewer(self) -> str:
        user = await self._current_user()
        return str(user.id) if user is not None else ""

    async def _load(self, offset: int, after: str = "") -> list[EntryRow] | None:
        viewer = await self._viewer()
        with guarded("Loading the leaderboard", fallback=None, refusals=False) as call:
            page = await run_in_session(
                service.leaderboard_page, offset=offset, limit=service.PAGE_SIZE, after=after
            )
        if call.failed:
            return None
        self.total = page.total
        return [entry_row(entry, viewer) for entry in page.entries]

    @rx.event
    async def open_page(self):
        """on_load: the first page, ranked on the server."""
        self.loading = True
        rows = await self._load(0)
        self.loading, self.loaded = False, True
        if rows is None:
            return rx.toast.error(messages.FAILED_TO_LOAD_LEADERBOARD)
        self.entries = rows

    @rx.event
    async def show_more(self):
        """The next page, after the entries already shown (none shown twice)."""
        self.loading = True
        last = self.entries[-1].photo_id if self.entries else ""
        rows = await self._load(len(self.entries), last)
        self.loading = False
        if rows is None:
            return rx.toast.error(messages.FAILED_TO_LOAD_LEADERBOARD)
        shown = {row.photo_id for row in self.entries}
        self.entries = self.entries + [row for row in rows if row.photo_id not in shown]

    @rx.event
    async def contact(self, photo_id: str):
        """Contact a contestant: members open the contact dialog, visitors sign in first."""
        if await self._current_user() is None:
            return [
                rx.toast.error(messages.SIGN_IN_TO_CONTACT),
                self._sign_in_redirect(routes.LEADERBOARD),
            ]
        return ContactState.open_contact(photo_id)


@dataclasses.dataclass
class ChoiceRow:
    """One of the member's top photos offered for the contest."""

    photo_id: str = ""
    image_url: str = ""
    score: str = ""
    label: str = ""
    listed: bool = False


class ContestState(AuthState):
    """/global-ranking: the member picks one of their 10 best photos and submits it."""

    choices: list[ChoiceRow] = []
    selected: str = ""
    submitting: bool = False
    choices_loaded: bool = False
    # The attempt ids of the latest entries sent (``ui.server_wait.FormWait``).
    _answered_attempts: list[str] = []

    async def _choices(self, user_id) -> list[ChoiceRow]:
        photos = await run_in_session(service.top_photos_for_submission, user_id)
        return [
            ChoiceRow(
                photo_id=str(photo.id),
                image_url=service.image_of(photo),
                score=score_text(photo.score),
                label=photo.rating_label,
                listed=photo.public_listing,
            )
            for photo in photos
        ]

    @rx.event
    async def open_page(self):
        """on_load: members only; their 10 best photos."""
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect(routes.GLOBAL_RANKING)
        self.selected = ""
        self.choices = await self._choices(user.id)
        self.choices_loaded = True

    @rx.event
    def select(self, photo_id: str):
        self.selected = photo_id

    @rx.event
    @CONTEST_WAIT.answers
    async def submit(self, form: dict[str, str]):
        """Enter the selected photo under the entry form's display name and bio; on
        success the member is told it waits for review and sees the leaderboard."""
        user = await self._current_user()
        if user is None:
            yield self._sign_in_redirect(routes.GLOBAL_RANKING)
            return
        if not self.selected:
            yield rx.toast.error(messages.SELECT_PHOTO_TO_SUBMIT)
            return
        self.submitting = True
        yield
        name, bio = form.get(DISPLAY_NAME_FIELD), form.get(BIO_FIELD)
        with guarded("Submitting to the ranking", messages.FAILED_TO_SUBMIT_PHOTO) as call:
            await run_in_session(service.submit_to_ranking, user.id, self.selected, name, bio)
        self.submitting = False
        if isinstance(call.error, ValidationFailed):
            yield call.toast
            return
        if call.failed:  # not the member's photo (or deleted meanwhile), or unexpected
            yield rx.toast.error(messages.FAILED_TO_SUBMIT_PHOTO)
            return
        queued = rx.toast.success(messages.ADDED_TO_LEADERBOARD_QUEUE)
        yield [queued, rx.redirect(routes.LEADERBOARD)]


class LeaderboardAdminState(AuthState):
    """/admin/leaderboard: new entries, verified or removed by an admin."""

    pending: list[EntryRow] = []
    # The attempt ids of the latest presses run (``ui.server_wait``).
    _answered_attempts: list[str] = []

    async def _reload(self) -> None:
        entries = await run_in_session(service.pending_entries)
        self.pending = [entry_row(entry) for entry in entries]

    @rx.event
    async def open_page(self):
        """on_load after the admin guard: the queue (nothing for anyone else)."""
        if await self._admin_user() is None:
            self.pending = []
            return
        await self._reload()

    async def _moderate(self, action, photo_id: str, done_text: str):
        admin = await self._admin_user()
        if admin is None:  # visitors sign in; members are turned away, like every admin page
            return await self._guard_admin(messages.ACCESS_DENIED_ADMIN_ONLY)
        try:
            await run_in_session(action, admin.id, photo_id)
        except DomainError as refused:
            await self._reload()
            return rx.toast.error(refused.message)
        await self._reload()
        return rx.toast.success(done_text)

    @rx.event
    @VERIFY_WAIT.answers
    async def verify(self, photo_id: str, attempt: str = ""):
        """The verified badge on a listed photo (once per ``attempt``)."""
        return await self._moderate(service.verify_entry, photo_id, messages.ADMIN_ENTRY_VERIFIED)

    @rx.event
    @REMOVE_WAIT.answers
    async def remove(self, photo_id: str, attempt: str = ""):
        """Off the leaderboard (once per ``attempt``: a second run would be refused, the
        photo being no longer listed)."""
        return await self._moderate(service.remove_entry, photo_id, messages.ADMIN_ENTRY_REMOVED)
