"""Reflex state of contact requests: the contact dialog, the contestant's inbox and the
sidebar's count of requests waiting for an answer.

The browser only names a photo and types a message: the rank, the fee and who may answer
what are decided by ``contact.service`` on the server.
"""

from __future__ import annotations

import asyncio

import reflex as rx

from prettyscore.accounts.state import SESSION_TOAST, AuthState
from prettyscore.billing.checkout import CheckoutFailed
from prettyscore.billing.components import as_typed
from prettyscore.contact import service
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import ServerWait

#: After paying, the payment event may reach us a moment after the member: look again
#: this many times, a second apart, before showing nothing.
#: "Send Request" is busy from the press; a retry never makes a second request.
SEND_REQUEST_WAIT = ServerWait("contact_request")
# The inbox's Approve and Deny: busy from the press, and a retry never answers twice.
APPROVE_WAIT = ServerWait("contact_approve")
DENY_WAIT = ServerWait("contact_deny")
SENT_CHECKS = 5
# The page's address without ?contact=sent, kept in the history in its place.
FORGET_SENT_ADDRESS = "history.replaceState(history.state, '', location.pathname)"
SENT_CHECK_PAUSE_SECONDS = 1.0


class ContactState(AuthState):
    """The contact dialog the leaderboard opens for one of its entries."""

    contact_open: bool = False
    contact_photo_id: str = ""
    contestant_name: str = ""
    contact_rank: int = 0
    contact_fee: str = ""
    contact_message: str = ""
    promo_code: str = ""
    sending: bool = False
    sent_notice: str = ""
    # The attempt ids of the latest presses run (``ui.server_wait``).
    _answered_attempts: list[str] = []

    @rx.var
    def contact_title(self) -> str:
        return messages.CONTACT_DIALOG_TITLE.format(name=self.contestant_name)

    @rx.var
    def contact_rank_text(self) -> str:
        return messages.CONTACT_RANK.format(rank=self.contact_rank)

    @rx.var
    def contact_fee_text(self) -> str:
        return messages.CONTACT_FEE.format(fee=self.contact_fee)

    @rx.var
    def message_count_text(self) -> str:
        """How many characters the message has (as the rule counts them: trimmed)."""
        return messages.CONTACT_CHARACTER_COUNT.format(count=len(self.contact_message.strip()))

    @rx.var
    def message_empty(self) -> bool:
        return not self.contact_message.strip()

    def _sign_in_first(self):
        toast = rx.toast.error(messages.SIGN_IN_TO_CONTACT, id=SESSION_TOAST)
        return [toast, self._sign_in_redirect(routes.LEADERBOARD)]

    @rx.event
    async def open_contact(self, photo_id: str):
        """Contact button of a leaderboard entry: the contestant, rank and fee from the
        server, then the dialog; visitors are sent to sign in first."""
        user = await self._current_user()
        if user is None:
            return self._sign_in_first()
        with guarded("Loading the contact fee", messages.FAILED_TO_PROCESS_REQUEST) as call:
            offer = await run_in_session(service.contact_offer, user.id, photo_id)
        if call.failed:
            return call.toast
        self.contact_photo_id = offer.photo_id
        self.contestant_name = offer.contestant_name
        self.contact_rank = offer.rank
        self.contact_fee = offer.fee
        self.contact_message = ""
        self.contact_open = True

    @rx.event(background=True)
    async def check_sent(self):
        """on_mount of the leaderboard's notice: on /leaderboard?contact=sent, the notice
        that the request was sent, once the server knows this member's newest request is
        paid; nothing for anyone else opening that address."""
        async with self:
            self.sent_notice = ""
            if self.router.url.query_parameters.get("contact") != "sent":
                return
        for attempt in range(SENT_CHECKS):
            if attempt:
                await asyncio.sleep(SENT_CHECK_PAUSE_SECONDS)
            async with self:
                user = await self._current_user()
            if user is None:
                return
            with guarded(
                "Checking the member's sent contact request", fallback=None, refusals=False
            ) as call:
                text = await run_in_session(service.sent_notice, user.id)
            if call.failed:
                return
            if text:
                async with self:
                    self.sent_notice = text
                # Said once: a reload of the page does not say it again.
                return rx.call_script(FORGET_SENT_ADDRESS)

    @rx.event
    def dismiss_sent_notice(self):
        self.sent_notice = ""

    @rx.event
    def set_contact_open(self, is_open: bool):
        self.contact_open = is_open

    @rx.event
    def set_contact_message(self, text: str):
        self.contact_message = text

    @rx.event
    def set_promo_code(self, value: str):
        """The Promo code field, as typed (the checkout's service decides it)."""
        self.promo_code = as_typed(value)

    @rx.event
    @SEND_REQUEST_WAIT.answers
    async def send_contact(self, attempt: str = ""):
        """Create the request (the server checks the message and prices it) and go to
        the checkout to pay its fee (once per ``attempt``)."""
        user = await self._current_user()
        if user is None:
            for event in self._sign_in_first():
                yield event
            return
        self.sending = True
        yield
        url = ""
        with guarded("Creating a contact request", messages.FAILED_TO_PROCESS_REQUEST) as call:
            url = await run_in_session(
                service.request_contact,
                user,
                self.contact_photo_id,
                self.contact_message,
                self.promo_code,
            )
        self.sending = False
        error = call.error
        if isinstance(error, CheckoutFailed) and error.message != messages.NO_CHECKOUT_URL:
            yield rx.toast.error(messages.FAILED_TO_PROCESS_REQUEST)
        elif call.failed:
            yield call.toast
        elif url:
            self.contact_open = False
            yield rx.redirect(url)
        else:
            yield rx.toast.error(messages.NO_CHECKOUT_URL)


class ContactBadgeState(AuthState):
    """How many paid requests wait for the signed-in member's answer (sidebar count)."""

    pending_requests: int = 0

    async def _count_pending(self, user) -> None:
        self.pending_requests = await run_in_session(service.pending_count, user.id) if user else 0

    @rx.event
    async def refresh_pending_requests(self):
        """on_mount of the sidebar's Contact Requests entry."""
        with guarded("Counting pending contact requests", fallback=None, refusals=False):
            await self._count_pending(await self._current_user())


class ContactInboxState(ContactBadgeState):
    """/contestant-requests: paid requests addressed to the member, to approve or deny,
    and the ones the member sent (pending, approved with the chat, denied and refunded)."""

    inbox_entries: list[service.InboxEntry] = []
    sent_entries: list[service.SentEntry] = []
    loaded: bool = False
    answering: str = ""
    # The attempt ids of the latest presses run (``ui.server_wait``).
    _answered_attempts: list[str] = []

    async def _reload(self, user) -> None:
        self.inbox_entries = await run_in_session(service.inbox, user.id)
        self.sent_entries = await run_in_session(service.sent, user.id)
        await self._count_pending(user)
        self.loaded = True

    @rx.event
    async def load_inbox(self):
        """on_load: members only; their paid pending and approved requests, and the
        requests they sent."""
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        with guarded(
            "Loading contact requests", messages.FAILED_TO_LOAD_CONTACT_REQUESTS, refusals=False
        ) as call:
            await self._reload(user)
        if call.failed:
            self.loaded = True
            return call.toast

    async def _answer(self, request_id: str, answer, done_text: str, failed_text: str):
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        self.answering = request_id
        with guarded("Answering a contact request", failed_text) as call:
            await run_in_session(answer, user.id, request_id)
        # a refusal (answered meanwhile, not theirs) reads as the failure too
        toast = rx.toast.error(failed_text) if call.failed else rx.toast.success(done_text)
        self.answering = ""
        await self._reload(user)
        return toast

    @rx.event
    @APPROVE_WAIT.answers
    async def approve(self, request_id: str, attempt: str = ""):
        """Approve: the chat opens for both members (once per ``attempt``: a second
        run would read as a failure, the request being answered already)."""
        return await self._answer(
            request_id,
            service.approve,
            messages.CONTACT_REQUEST_APPROVED,
            messages.FAILED_TO_APPROVE_REQUEST,
        )

    @rx.event
    @DENY_WAIT.answers
    async def deny(self, request_id: str, attempt: str = ""):
        """Deny: the request closes and the requester's fee is refunded (once per
        ``attempt``)."""
        return await self._answer(
            request_id,
            service.deny,
            messages.CONTACT_REQUEST_DENIED,
            messages.FAILED_TO_DENY_REQUEST,
        )
