"""Reflex state of the partner pages: the application, the portal and the leaderboard.

Thin: who is asking, then ``partners.service`` decides. The Custom Short Code and
Preferred Promo Code fields show the service's own clean-up as the member types; the
service checks the submitted values again, and the database decides uniqueness.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import reflex as rx
from typing_extensions import TypedDict  # pydantic reads it before Python 3.12

from prettyscore.accounts.state import SESSION_TOAST, AuthState
from prettyscore.billing.checkout import format_amount
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import DomainError
from prettyscore.core.settings import get_settings
from prettyscore.partners import service
from prettyscore.partners.api import REFERRAL_PATH
from prettyscore.partners.models import PartnerConversion, PartnerStatus
from prettyscore.ui.form_state import FormState
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import FormWait

# One toast for the outcome of a submission: the next outcome replaces the last one.
OUTCOME_TOAST = "partner-application"
# The application form is busy from the press and runs each submission once.
PARTNER_APPLY_WAIT = FormWait("partner_apply")
STATUS_COLOURS = {PartnerStatus.APPROVED: "green", PartnerStatus.PENDING: "yellow"}
OTHER_STATUS_COLOUR = "red"
LOOKING_UP_PARTNER = "Looking up the member's partner account"
# The form field a uniqueness refusal concerns.
REFUSED_FIELDS = {service.CODE_TAKEN: "short_code", service.PROMO_CODE_TAKEN: "promo_code"}


class ApplicationFormData(TypedDict, total=False):
    display_name: str
    short_code: str
    promo_code: str
    attempt: str  # the submission's attempt id (ui.server_wait.FormWait)


def _text(value: object) -> str | None:
    """A submitted text field; anything but text (a forged event) counts as empty."""
    return value if isinstance(value, str) else None


def date_label(moment) -> str:
    """A date as the partner pages print it, e.g. 'Nov 21, 2026' (UTC)."""
    return f"{moment:%b} {moment.day}, {moment.year}"


def referral_link(code: str) -> str:
    """The partner's link: ``{origin}/r/{code}`` on the app's public address."""
    return get_settings().public_url + REFERRAL_PATH.format(code=code)


def second_tier_percent() -> int:
    """The second tier's commission percent, from the settings (what fulfilment pays)."""
    return get_settings().partner_second_tier_percent


class PartnerProgrammeState(AuthState):
    """The programme's terms that come from the settings: the second tier's percent,
    shown on /partners and in the portal."""

    second_tier_percent: int = second_tier_percent()

    @rx.var
    def second_tier_rate(self) -> str:
        return messages.PARTNERS_SECOND_TIER_RATE.format(percent=self.second_tier_percent)

    @rx.var
    def second_tier_body(self) -> str:
        return messages.PARTNERS_SECOND_TIER_RATE_BODY.format(percent=self.second_tier_percent)


# ---------------------------------------------------------------------------
# /partners/apply
# ---------------------------------------------------------------------------
class PartnerApplyState(FormState, AuthState):
    """The application form; members who already are partners go to their portal."""

    short_code: str = ""
    promo_code: str = ""
    ready: bool = False

    _outcome_toast: ClassVar[str | None] = OUTCOME_TOAST

    @rx.event
    async def open_page(self):
        """on_load: visitors sign in first; partners are sent to their portal."""
        self.short_code = self.promo_code = ""
        self._clear_problem()
        self.submitting = self.ready = False
        user = await self._current_user()
        if user is None:
            return [
                rx.toast.error(messages.SIGN_IN_TO_APPLY, id=SESSION_TOAST),
                self._sign_in_redirect(routes.PARTNERS_APPLY),
            ]
        account = None
        with guarded(LOOKING_UP_PARTNER, fallback=None, refusals=False):
            account = await run_in_session(service.partner_of, user.id)
        if account is not None:
            return [rx.toast.info(messages.ALREADY_PARTNER), rx.redirect(routes.PARTNERS_PORTAL)]
        self.ready = True
        return None

    @rx.event
    def set_short_code(self, value: str):
        """Upper-case letters and digits only, at most 10, as the member types."""
        self.short_code = service.code_as_typed(value)

    @rx.event
    def set_promo_code(self, value: str):
        """Upper case as the member types."""
        self.promo_code = (value or "").upper()[: service.MAX_PROMO_CODE]

    def _problem_field(self, refusal: DomainError) -> str | None:
        """A taken code marks its field; being a partner already marks none."""
        if refusal.code == service.ALREADY_PARTNER:
            return None
        return super()._problem_field(refusal) or REFUSED_FIELDS.get(refusal.code, "")

    @rx.event
    @PARTNER_APPLY_WAIT.answers
    async def submit(self, form_data: ApplicationFormData):
        """Send the application; on success the member sees their (pending) portal."""
        if self.submitting:
            return
        user = await self._current_user()
        if user is None:
            yield [
                rx.toast.error(messages.SIGN_IN_TO_APPLY, id=SESSION_TOAST),
                self._sign_in_redirect(routes.PARTNERS_APPLY),
            ]
            return
        self._begin_submission()
        yield
        with self._submission(
            "Submitting a partner application", messages.FAILED_TO_SUBMIT_APPLICATION
        ) as call:
            await run_in_session(
                service.apply,
                user.id,
                _text(form_data.get("display_name")),
                _text(form_data.get("short_code")),
                _text(form_data.get("promo_code")),
            )
        refusal = call.refusal
        if refusal is not None and refusal.code == service.ALREADY_PARTNER:
            yield [
                rx.toast.info(refusal.message, id=OUTCOME_TOAST),
                rx.redirect(routes.PARTNERS_PORTAL),
            ]
        elif call.failed:
            yield call.toast
        else:
            yield [
                rx.toast.success(messages.APPLICATION_SUBMITTED, id=OUTCOME_TOAST),
                rx.redirect(routes.PARTNERS_PORTAL),
            ]


# ---------------------------------------------------------------------------
# /partners/portal
# ---------------------------------------------------------------------------
@dataclasses.dataclass
class ConversionRow:
    """One line of the recent conversions table."""

    id: str = ""
    date: str = ""
    amount: str = ""
    commission: str = ""
    status: str = ""
    status_label: str = ""
    second_tier: bool = False


def conversion_row(conversion: PartnerConversion) -> ConversionRow:
    return ConversionRow(
        id=str(conversion.id),
        second_tier=conversion.level == service.SECOND_TIER_LEVEL,
        date=date_label(conversion.created_at),
        amount=format_amount(conversion.amount),
        commission=format_amount(conversion.commission),
        status=conversion.status,
        status_label=messages.PARTNER_CONVERSION_STATUS_LABELS.get(
            conversion.status, conversion.status
        ),
    )


class PartnerPortalState(PartnerProgrammeState):
    """The partner's own account and latest conversions."""

    loaded: bool = False
    status: str = ""
    status_label: str = ""
    status_colour: str = OTHER_STATUS_COLOUR
    clicks: int = 0
    conversion_count: int = 0
    total_earned: str = ""
    second_tier_earned: str = ""
    tier_name: str = ""
    commission: str = ""
    referral_link: str = ""
    promo_code: str = ""
    conversions: list[ConversionRow] = []

    def _show(self, view: service.PortalView) -> None:
        account = view.account
        self.status = account.status
        self.status_label = messages.PARTNER_STATUS_LABELS.get(account.status, account.status)
        self.status_colour = STATUS_COLOURS.get(account.status, OTHER_STATUS_COLOUR)
        self.clicks = account.total_clicks
        self.conversion_count = account.total_conversions
        self.total_earned = format_amount(account.total_earned)
        self.second_tier_percent = second_tier_percent()
        self.second_tier_earned = messages.PARTNER_SECOND_TIER_EARNED.format(
            percent=self.second_tier_percent, amount=format_amount(view.second_tier_earned)
        )
        self.tier_name = view.terms.name
        self.commission = messages.PARTNERS_TIER_COMMISSION.format(
            percent=view.terms.commission_percent
        )
        self.referral_link = referral_link(account.code)
        self.promo_code = account.promo_code
        self.conversions = [conversion_row(item) for item in view.conversions]

    @rx.event
    async def open_page(self):
        """on_load: visitors sign in first; members without an account go to apply."""
        self.loaded = False
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect(routes.PARTNERS_PORTAL)
        with guarded(
            "Loading the partner portal", messages.FAILED_TO_LOAD_PARTNER_DATA, refusals=False
        ) as call:
            view = await run_in_session(service.portal, user.id)
        if call.failed:
            return call.toast
        if view is None:
            return rx.redirect(routes.PARTNERS_APPLY)
        self._show(view)
        self.loaded = True
        return None


# ---------------------------------------------------------------------------
# /partners/leaderboard
# ---------------------------------------------------------------------------
@dataclasses.dataclass
class LeaderRow:
    """One approved partner on the public leaderboard."""

    rank: int = 0
    display_name: str = ""
    tier: str = ""
    tier_name: str = ""
    total_earned: str = ""


def leader_row(entry: service.LeaderboardEntry) -> LeaderRow:
    return LeaderRow(
        rank=entry.rank,
        display_name=entry.display_name,
        tier=entry.tier.key,
        tier_name=entry.tier.name,
        total_earned=format_amount(entry.total_earned),
    )


class PartnerLeaderboardState(AuthState):
    """The top 10 approved partners by total earned."""

    leaders: list[LeaderRow] = []
    loaded: bool = False

    @rx.event
    async def open_page(self):
        """on_load: anyone may look."""
        await self._current_user()
        with guarded(
            "Loading the partner leaderboard", messages.FAILED_TO_LOAD_PARTNERS, refusals=False
        ) as call:
            entries = await run_in_session(service.leaderboard)
        self.loaded = True
        if call.failed:
            return call.toast
        self.leaders = [leader_row(entry) for entry in entries]
        return None


class PartnerLinkState(AuthState):
    """Whether the signed-in member has a partner account, so the account menu can lead
    to their portal. Asked when the menu opens, not on every page."""

    is_partner: bool = False

    @rx.event
    async def refresh(self):
        user = await self._current_user()
        if user is None:
            self.is_partner = False
            return
        with guarded(LOOKING_UP_PARTNER, fallback=None, refusals=False):
            self.is_partner = await run_in_session(service.partner_of, user.id) is not None
