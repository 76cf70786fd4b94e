"""Reflex state of /messages (the member's conversations) and /messages/{requestId}.

An open chat page runs one background loop (``follow_conversation``) that waits on the
conversation's live channel and, when woken, loads what is new from the database. A
reload or a second on_load replaces the loop (a fresh ``_watch`` token ends the old one);
it also ends when the tab leaves the chat, and after an idle cap, since a closed tab
cannot tell the server. Each pass reloads a little before the newest message it has
and skips what it already shows, so a missed notification, a reconnect, or two
messages committed out of order never lose a message.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import secrets
import time
import uuid
from datetime import datetime, timedelta

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.chat import live, service
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import DomainError, ValidationFailed
from prettyscore.core.outages import is_service_outage
from prettyscore.core.rate_limits import RateLimited
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import FormWait

log = logging.getLogger(__name__)

ROUTE_ARG = "chat_request_id"
#: Without a notification the page still looks again this often (a safety net).
RECHECK_SECONDS = 15.0
#: The loop ends after this long without a new message (a closed tab cannot say so).
IDLE_CAP_SECONDS = 30 * 60
#: Each look starts this long before the newest message shown (out-of-order commits).
OVERLAP = timedelta(seconds=5)
#: While PostgreSQL or Redis does not answer, the live loop looks again this often.
OUTAGE_RETRY_SECONDS = 1.0


@dataclasses.dataclass
class ChatLine:
    """One message as the chat box shows it."""

    id: str = ""
    content: str = ""
    mine: bool = False
    time: str = ""
    created: str = ""  # ISO time, for the next look's starting point


@dataclasses.dataclass
class ConversationRow:
    """One conversation in the /messages list."""

    href: str = ""
    other_name: str = ""
    last_message: str = ""
    last_at: str = ""


def _line(message: service.ChatMessage, user_id: uuid.UUID) -> ChatLine:
    at = message.created_at
    return ChatLine(
        id=str(message.id),
        content=message.content,
        mine=message.sender_id == user_id,
        time=f"{at:%b} {at.day}, {at:%H:%M}",
        created=at.isoformat(),
    )


def _opening(db, user_id: uuid.UUID, request_id: str) -> tuple[str, list[service.ChatMessage]]:
    request = service.open_conversation(db, user_id, request_id)
    name = service.party_name(db, request, user_id)
    return name, service.messages_since(db, user_id, request.id)


def _rows(db, user_id: uuid.UUID) -> list[ConversationRow]:
    return [
        ConversationRow(
            href=routes.chat(item.request_id),
            other_name=item.other_name,
            last_message=item.last_message or messages.CHAT_NO_MESSAGES,
            last_at=f"{item.last_at:%b} {item.last_at.day}, {item.last_at:%H:%M}",
        )
        for item in service.conversations(db, user_id)
    ]


# Send is busy from the press, and a message resent before an answer is stored once.
SEND_WAIT = FormWait("chat_send")


class ChatState(AuthState):
    """One chat page: who with, the messages shown, the draft, and the live loop."""

    other_name: str = ""
    lines: list[ChatLine] = []
    draft: str = ""
    conversations: list[ConversationRow] = []

    _request_id: str = ""
    _user_id: str = ""
    _watch: str = ""  # the one live loop allowed to run for this tab
    # The attempt ids of the latest messages sent (``ui.server_wait.FormWait``).
    _answered_attempts: list[str] = []

    @rx.var
    def can_send(self) -> bool:
        """Send is offered only for a non-empty draft (the server checks it again)."""
        return self.draft.strip() != ""

    @rx.event
    def set_draft(self, value: str):
        self.draft = value

    # -- /messages ------------------------------------------------------------------
    @rx.event
    async def open_list(self):
        """on_load of /messages: members only; their conversations, newest first."""
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        with guarded(
            "Loading conversations", messages.FAILED_TO_LOAD_CONTACT_REQUESTS, refusals=False
        ) as call:
            self.conversations = await run_in_session(_rows, user.id)
        return call.toast

    # -- /messages/{requestId} --------------------------------------------------------
    @rx.event
    async def open_chat(self):
        """on_load of a chat: members only, parties of an approved request only."""
        self._watch = ""  # whatever loop ran for this tab stops at its next look
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        refusal = await self._open_route_chat(user)
        if refusal is not None:
            return refusal
        return ChatState.follow_conversation

    async def _open_route_chat(self, user):
        """Show the chat the page's route names and arm a new live loop for it; the
        refusal to show (a toast, then home) when the member is no party of it."""
        request_id = str(self.router.page.params.get(ROUTE_ARG, ""))
        try:
            name, found = await run_in_session(_opening, user.id, request_id)
        except DomainError as error:
            return [rx.toast.error(error.message), rx.redirect(routes.HOME)]
        if self._request_id and request_id != self._request_id:
            # Another chat: its own empty draft. A reconnect re-runs on_load, and a state
            # Redis lost knows no chat at all: both keep what is being typed.
            self.draft = ""
        self._request_id, self._user_id = request_id, str(user.id)
        self.other_name = name
        self.lines = [_line(message, user.id) for message in found]
        self._watch = secrets.token_hex(8)
        return None

    def _merge(self, found: list[service.ChatMessage]) -> None:
        user_id = uuid.UUID(self._user_id)
        shown = {line.id for line in self.lines}
        fresh = [_line(message, user_id) for message in found if str(message.id) not in shown]
        if fresh:
            self.lines = sorted([*self.lines, *fresh], key=lambda line: (line.created, line.id))

    def _look_from(self) -> datetime | None:
        if not self.lines:
            return None
        return datetime.fromisoformat(self.lines[-1].created) - OVERLAP

    @rx.event
    @SEND_WAIT.answers
    async def send(self, form_data: dict):
        """Store the message (Enter or the Send button) and wake the other party's page.

        A tab whose state holds no chat lost it while the page stayed open (Redis
        restarted and Reflex made a new, empty state): the chat of the page's route is
        opened again first, so the message goes where the member typed it and the
        conversation stays on screen, instead of being refused as sent to no chat.
        Reflex runs the page's on_load right after such an event, which starts the
        live loop again.
        """
        # A forged event may send anything: only text is a message (else the draft).
        content = form_data.get("content") if isinstance(form_data, dict) else None
        text = content if isinstance(content, str) else self.draft
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        if not self._request_id and (refusal := await self._open_route_chat(user)):
            return refusal
        with guarded("Sending a chat message", messages.FAILED_TO_SEND_MESSAGE) as call:
            stored = await run_in_session(service.send_message, user.id, self._request_id, text)
        if isinstance(call.error, (ValidationFailed, RateLimited)):
            return call.toast  # the draft stays, to fix or resend
        if call.refusal is not None:
            return [call.toast, rx.redirect(routes.HOME)]
        if call.failed:
            return call.toast
        self.draft = ""
        self._merge([stored])
        # stored all the same if this fails; the other page finds it on its next look
        with guarded("Announcing a chat message", fallback=None, refusals=False):
            await live.broadcast().publish(self._request_id, origin=self._watch)

    @rx.event(background=True)
    async def follow_conversation(self):
        """While this chat is open: wait for news on its channel, then load what is new.

        A service outage does not end the loop: it looks again once the service is back.
        If Redis lost this tab's state meanwhile (a restart), the tab reloads the chat,
        which sends the browser's cookies again and starts a fresh loop.
        """
        async with self:
            watch, request_id, user_id = self._watch, self._request_id, self._user_id
            after = self._look_from()
        if not watch:
            return
        idle_until = time.monotonic() + IDLE_CAP_SECONDS
        async with live.broadcast().subscribe(request_id, origin=watch) as subscription:
            notified = True  # listening now: catch up on anything sent since the page loaded
            while time.monotonic() < idle_until:
                if not notified:
                    notified = await subscription.wait(RECHECK_SECONDS)
                try:
                    looked = await self._look_again(watch, user_id, request_id, after)
                except _StateLost:
                    yield rx.call_script(_reload_if_showing(request_id))
                    return
                except Exception as error:
                    if not is_service_outage(error):
                        raise
                    log.warning("Chat %s waits for a service to come back: %r", request_id, error)
                    await asyncio.sleep(OUTAGE_RETRY_SECONDS)
                    continue  # and look again at once
                if looked is None:
                    return
                news, after = looked
                if news:
                    idle_until = time.monotonic() + IDLE_CAP_SECONDS
                notified = False

    async def _look_again(
        self, watch: str, user_id: str, request_id: str, after: datetime | None
    ) -> tuple[bool, datetime | None] | None:
        """One look at the conversation for messages from ``after`` on: whether new ones
        were shown and where the next look starts, or None when this loop should end.
        Raises _StateLost when Redis no longer has this tab's state, and the error when a
        service does not answer.

        The tab's state is opened once, to merge: under Redis each opening is a lock and
        a round trip, and an open chat looks again at every message and every 15 s. A
        message this tab sent meanwhile only makes the query start a little earlier.
        """
        try:
            found = await run_in_session(
                service.messages_since, uuid.UUID(user_id), request_id, after
            )
        except DomainError:
            return None  # no longer a party of an approved request
        except Exception as error:
            if is_service_outage(error):
                raise
            log.exception("Loading new chat messages failed")
            found = []
        async with self:
            if not self._still_following(watch):
                return None
            before = len(self.lines)
            self._merge(found)
            return len(self.lines) != before, self._look_from()

    def _still_following(self, watch: str) -> bool:
        """Whether this loop is still the one for this tab. A state with no page at all
        is a new one that Reflex made after Redis lost the tab's: _StateLost."""
        if not self.router.url.path:
            raise _StateLost
        on_chat = self.router.url.path.rstrip("/").startswith(f"{routes.MESSAGES}/")
        return self._watch == watch and on_chat and self.signed_in


class _StateLost(Exception):
    """This tab's state is gone from Redis; only the browser can bring it back."""


def _reload_if_showing(request_id: str) -> str:
    """Script: reload the page if it still shows this chat (its cookies and on_load come
    again with the reload); a tab that moved on is left alone."""
    path = json.dumps(routes.chat(request_id))
    return (
        f"if (window.location.pathname.replace(/\\/+$/, '') === {path}) window.location.reload();"
    )
