"""Reflex state of the admin tools: /admin/partners, /admin/payouts, /admin/verification.

Thin: every handler resolves the caller on the server and refuses anyone who is not an
admin (visitors go to /auth, members get the page's refusal and go home) before it
calls a service, and the service checks the role again. The browser sends only ids and
choices (a status, a tier, notes), which the services look up and check.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

import reflex as rx

from prettyscore.accounts.service import CurrentUser
from prettyscore.accounts.state import AuthState
from prettyscore.billing.checkout import format_amount
from prettyscore.billing.state import format_date
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.partners import admin_service as partners
from prettyscore.partners import programme
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import ServerWait
from prettyscore.verification import service as verification
from prettyscore.verification.models import VerificationStatus

FILTER_ALL = "all"
PARTNER_FILTERS: tuple[tuple[str, str], ...] = (
    (FILTER_ALL, messages.PARTNER_FILTER_ALL),
    *((status, messages.PARTNER_STATUS_LABELS[status]) for status in programme.PARTNER_STATUSES),
)


def format_time(moment: datetime) -> str:
    """A moment as the admin pages show it, e.g. "November 21, 2026 14:05 UTC"."""
    return f"{format_date(moment)} {moment:%H:%M} UTC"


def format_period(start: date, end: date) -> str:
    return f"{format_date(start)} – {format_date(end)}"


async def _admin_or_refusal(state: AuthState, refusal: str) -> tuple[CurrentUser | None, Any]:
    """The signed-in admin, or None with what to send back instead: visitors go to
    /auth, members get ``refusal`` and go home (the pages' guard, for every handler)."""
    user = await state._current_user()
    if user is None:
        return None, state._sign_in_redirect()
    if not state.is_admin:
        return None, [rx.toast.error(refusal), rx.redirect(routes.HOME)]
    return user, None


def _events(*events: Any) -> list:
    """The events to send back, leaving out the steps that had nothing to say."""
    return [event for event in events if event is not None]


async def _outcome(action: Callable, *args: Any, done: str, failed: str, what: str):
    """Run one admin action in its own transaction and say how it went: ``done`` on
    success, the service's own refusal, or ``failed`` (with the error logged as ``what``)."""
    with guarded(what, failed) as call:
        await run_in_session(action, *args)
    return call.toast if call.failed else rx.toast.success(done)


# ---------------------------------------------------------------------------
# /admin/partners
# ---------------------------------------------------------------------------
@dataclasses.dataclass
class PartnerView:
    """One row of the partner table."""

    id: str = ""
    display_name: str = ""
    email: str = ""
    code: str = ""
    status: str = ""
    status_label: str = ""
    tier: str = ""
    commission: str = ""
    clicks: int = 0
    conversions: int = 0
    earned: str = ""


def partner_view(row: partners.PartnerRow) -> PartnerView:
    return PartnerView(
        id=str(row.id),
        display_name=row.display_name,
        email=row.email,
        code=row.code,
        status=row.status,
        status_label=messages.PARTNER_STATUS_LABELS.get(row.status, row.status),
        tier=row.tier,
        commission=f"{row.commission_percent}%",
        clicks=row.clicks,
        conversions=row.conversions,
        earned=format_amount(row.earned_cents),
    )


# A row's action is busy from the press and runs once per press (``ui.server_wait``).
PARTNER_STATUS_WAIT = ServerWait("partner_status")
MARK_PAID_WAIT = ServerWait("mark_paid")
APPROVE_WAIT = ServerWait("verification_approve")
REJECT_WAIT = ServerWait("verification_reject")


class PartnersAdminState(AuthState):
    """The partner table, its status filter, and the admin's status and tier changes."""

    partners: list[PartnerView] = []
    status_filter: str = FILTER_ALL
    loaded: bool = False
    load_failed: bool = False
    _answered_attempts: list[str] = []

    async def _reload(self, admin: CurrentUser):
        """Fetch the table for the current filter; the load-failure toast if it fails."""
        with guarded(
            "Loading the partner list", messages.FAILED_TO_LOAD_PARTNERS, refusals=False
        ) as call:
            rows = await run_in_session(partners.list_partners, admin.id, self.status_filter)
        if call.failed:
            self.partners, self.load_failed, self.loaded = [], True, True
            return call.toast
        self.partners = [partner_view(row) for row in rows]
        self.load_failed, self.loaded = False, True
        return None

    @rx.event
    async def open_page(self):
        """on_load after the guard: every partner (nothing for anyone else)."""
        self.status_filter, self.loaded = FILTER_ALL, False
        admin, _ = await _admin_or_refusal(self, messages.ACCESS_DENIED_ADMIN_ONLY)
        if admin is None:
            self.partners = []
            return None
        return await self._reload(admin)

    @rx.event
    async def show_status(self, status: str):
        """A filter button: All, Pending, Approved or Suspended."""
        admin, refusal = await _admin_or_refusal(self, messages.ACCESS_DENIED_ADMIN_ONLY)
        if admin is None:
            return refusal
        self.status_filter = status if status in dict(PARTNER_FILTERS) else FILTER_ALL
        return await self._reload(admin)

    async def _change(self, action: Callable, partner_id: str, choice: str, done: str):
        admin, refusal = await _admin_or_refusal(self, messages.ACCESS_DENIED_ADMIN_ONLY)
        if admin is None:
            return refusal
        outcome = await _outcome(
            action,
            admin.id,
            partner_id,
            choice,
            done=done,
            failed=messages.UNEXPECTED_ERROR,
            what=f"Changing partner {partner_id}",
        )
        return _events(outcome, await self._reload(admin))

    @rx.event
    @PARTNER_STATUS_WAIT.answers
    async def set_status(self, partner_id: str, status: str, attempt: str = ""):
        """Approve a pending partner, suspend an approved one, reactivate a suspended one
        (once per ``attempt``)."""
        done = messages.PARTNER_STATUS_CHANGED.format(status=status)
        return await self._change(partners.set_partner_status, partner_id, status, done)

    @rx.event
    async def set_tier(self, partner_id: str, tier: str):
        """The tier dropdown: the tier and its commission percent, set on the server."""
        name = programme.TIERS[tier].name if tier in programme.TIERS else tier
        done = messages.TIER_UPDATED.format(tier=name)
        return await self._change(partners.set_partner_tier, partner_id, tier, done)


# ---------------------------------------------------------------------------
# /admin/payouts
# ---------------------------------------------------------------------------
@dataclasses.dataclass
class UnpaidView:
    """A partner who is owed commission."""

    partner_id: str = ""
    display_name: str = ""
    email: str = ""
    code: str = ""
    conversions: int = 0
    second_tier: int = 0
    amount: str = ""


@dataclasses.dataclass
class PayoutView:
    """A recorded payout."""

    id: str = ""
    display_name: str = ""
    code: str = ""
    period: str = ""
    total: str = ""
    status: str = ""
    recorded: str = ""


def unpaid_view(row: partners.UnpaidRow) -> UnpaidView:
    return UnpaidView(
        partner_id=str(row.partner_id),
        display_name=row.display_name,
        email=row.email,
        code=row.code,
        conversions=row.conversions,
        second_tier=row.second_tier,
        amount=format_amount(row.amount_cents),
    )


def payout_view(row: partners.PayoutRow) -> PayoutView:
    return PayoutView(
        id=str(row.id),
        display_name=row.display_name,
        code=row.code,
        period=format_period(row.period_start, row.period_end),
        total=format_amount(row.total_cents),
        status=row.status,
        recorded=format_time(row.created_at),
    )


def _payout_lists(db, admin_id):
    return partners.unpaid_by_partner(db, admin_id), partners.recent_payouts(db, admin_id)


class PayoutsAdminState(AuthState):
    """Partners with unpaid conversions, Mark as Paid, and the payouts recorded."""

    unpaid: list[UnpaidView] = []
    payouts: list[PayoutView] = []
    loaded: bool = False
    paying: str = ""
    _answered_attempts: list[str] = []

    async def _reload(self, admin: CurrentUser):
        with guarded("Loading the payouts", messages.FAILED_TO_LOAD_DATA, refusals=False) as call:
            unpaid, payouts = await run_in_session(_payout_lists, admin.id)
        if call.failed:
            self.loaded = True
            return call.toast
        self.unpaid = [unpaid_view(row) for row in unpaid]
        self.payouts = [payout_view(row) for row in payouts]
        self.loaded = True
        return None

    @rx.event
    async def open_page(self):
        """on_load after the guard: who is owed what, and the latest payouts."""
        self.loaded, self.paying = False, ""
        admin, _ = await _admin_or_refusal(self, messages.ACCESS_DENIED_ADMIN_ONLY)
        if admin is None:
            self.unpaid, self.payouts = [], []
            return None
        return await self._reload(admin)

    @rx.event
    @MARK_PAID_WAIT.answers
    async def mark_paid(self, partner_id: str, attempt: str = ""):
        """Pay all of the partner's unpaid conversions and record the payout (once per
        ``attempt``)."""
        if self.paying:
            return
        admin, refusal = await _admin_or_refusal(self, messages.ACCESS_DENIED_ADMIN_ONLY)
        if admin is None:
            yield refusal
            return
        self.paying = partner_id
        yield
        try:
            outcome = await _outcome(
                partners.mark_paid,
                admin.id,
                partner_id,
                done=messages.PAYOUT_MARKED_SENT,
                failed=messages.UNEXPECTED_ERROR,
                what=f"Marking partner {partner_id} paid",
            )
        finally:
            self.paying = ""
        yield _events(outcome, await self._reload(admin))


# ---------------------------------------------------------------------------
# /admin/verification
# ---------------------------------------------------------------------------
@dataclasses.dataclass
class RequestView:
    """A verification request as the review page shows it."""

    id: str = ""
    email: str = ""
    full_name: str = ""
    reason: str = ""
    instagram: str = ""
    other_social: str = ""
    status: str = ""
    status_label: str = ""
    admin_notes: str = ""
    submitted: str = ""


def request_view(row: verification.RequestRow) -> RequestView:
    return RequestView(
        id=str(row.id),
        email=row.email,
        full_name=row.full_name,
        reason=row.reason,
        instagram=f"@{row.instagram_handle}" if row.instagram_handle else "",
        other_social=row.other_social or "",
        status=row.status,
        status_label=messages.VERIFICATION_STATUS_LABELS.get(row.status, row.status),
        admin_notes=row.admin_notes or "",
        submitted=format_time(row.created_at),
    )


class VerificationAdminState(AuthState):
    """Every verification request, newest first; pending ones approved or rejected."""

    requests: list[RequestView] = []
    notes: dict[str, str] = {}
    loaded: bool = False
    reviewing: str = ""
    _answered_attempts: list[str] = []

    async def _reload(self, admin: CurrentUser):
        with guarded(
            "Loading the verification requests",
            messages.FAILED_TO_LOAD_VERIFICATION_REQUESTS,
            refusals=False,
        ) as call:
            rows = await run_in_session(verification.list_requests, admin.id)
        if call.failed:
            self.loaded = True
            return call.toast
        self.requests = [request_view(row) for row in rows]
        # One notes box per pending request, keeping what was typed in the ones still open.
        self.notes = {
            row.id: self.notes.get(row.id, "")
            for row in self.requests
            if row.status == VerificationStatus.PENDING
        }
        self.loaded = True
        return None

    @rx.event
    async def open_page(self):
        """on_load after the guard: all requests (nothing for anyone else)."""
        self.loaded, self.reviewing, self.notes = False, "", {}
        admin, _ = await _admin_or_refusal(self, messages.ADMIN_ACCESS_REQUIRED)
        if admin is None:
            self.requests = []
            return None
        return await self._reload(admin)

    @rx.event
    def set_note(self, request_id: str, text: str):
        """What the admin types in a pending request's notes box (checked when it is sent)."""
        if request_id in self.notes:
            self.notes = {**self.notes, request_id: text}

    async def _review(self, action: Callable, request_id: str, done: str, failed: str):
        if self.reviewing:
            return None
        admin, refusal = await _admin_or_refusal(self, messages.ADMIN_ACCESS_REQUIRED)
        if admin is None:
            return refusal
        self.reviewing = request_id
        try:
            outcome = await _outcome(
                action,
                admin.id,
                request_id,
                self.notes.get(request_id),
                done=done,
                failed=failed,
                what=f"Reviewing verification request {request_id}",
            )
        finally:
            self.reviewing = ""
        return _events(outcome, await self._reload(admin))

    @rx.event
    @APPROVE_WAIT.answers
    async def approve(self, request_id: str, attempt: str = ""):
        """Approve: the request and the member's verified badge, in one transaction (once
        per ``attempt``)."""
        return await self._review(
            verification.approve_request,
            request_id,
            messages.VERIFICATION_APPROVED,
            messages.FAILED_TO_APPROVE_REQUEST,
        )

    @rx.event
    @REJECT_WAIT.answers
    async def reject(self, request_id: str, attempt: str = ""):
        """Reject, with the admin's notes (once per ``attempt``)."""
        return await self._review(
            verification.reject_request,
            request_id,
            messages.VERIFICATION_REJECTED,
            messages.FAILED_TO_REJECT_REQUEST,
        )
