"""Reflex state of payments: the Premium badge, the /premium page, the test checkout.

Nothing here decides a price or grants Premium: the page asks ``billing.checkout`` for a
checkout URL and shows what ``billing.service`` says about the member's plan. Premium is
granted only by a payment event.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.billing import checkout, service
from prettyscore.billing.components import as_typed
from prettyscore.billing.fulfilment import KIND_SUBSCRIPTION
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import DomainError
from prettyscore.core.settings import get_settings
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import ServerWait

#: After a successful payment: recheck the plan after 2 s, go to /dashboard 1 s later.
#: "Subscribe" is busy from the press; a retry never opens a second checkout.
SUBSCRIBE_WAIT = ServerWait("subscribe")
CANCEL_PLAN_WAIT = ServerWait("cancel_plan")
# The test checkout's two buttons.
PAY_WAIT = ServerWait("test_checkout_pay")
LEAVE_WAIT = ServerWait("test_checkout_cancel")
RECHECK_AFTER_SECONDS = 2.0
LEAVE_AFTER_SECONDS = 1.0
CHECKING, CONFIRMED, PROCESSING = "checking", "confirmed", "processing"


def format_date(moment: datetime | None) -> str:
    """A date as the page shows it, e.g. "December 21, 2026"."""
    return f"{moment:%B} {moment.day}, {moment.year}" if moment else ""


class MembershipState(AuthState):
    """Whether the signed-in member has Premium (the badge beside their email)."""

    is_premium: bool = False

    @rx.event
    async def refresh_membership(self):
        """on_mount of the account menu: ask the server whether the member has Premium."""
        user = await self._current_user()
        self.is_premium = bool(user) and await run_in_session(service.is_subscriber, user.id)


def premium_price() -> str:
    """Premium's monthly price as shown, from the settings (what checkout charges)."""
    return checkout.format_amount(get_settings().premium_monthly_cents)


class PremiumState(MembershipState):
    """/premium: the plan, subscribing, the member's status and cancelling."""

    price: str = premium_price()
    status_loaded: bool = False
    renews_on: str = ""
    cancel_pending: bool = False
    success: bool = False
    #: After a payment: "checking", then "confirmed" (Premium is active) or "processing"
    #: (the payment event has not arrived yet); "" otherwise.
    payment_check: str = ""
    _member_known: bool = False
    starting: bool = False
    cancelling: bool = False
    cancel_dialog_open: bool = False
    promo_code: str = ""
    # The attempt ids of the latest presses run (``ui.server_wait``).
    _answered_attempts: list[str] = []

    async def _load_plan(self):
        """The member's plan as the server has it; returns the member (None: a visitor)."""
        user = await self._current_user()
        self._member_known = user is not None
        summary = (
            await run_in_session(service.subscription_summary, user.id)
            if user is not None
            else service.SubscriptionSummary(is_premium=False)
        )
        self._show(summary)
        return user

    @rx.var
    def status_line(self) -> str:
        """'Renews on <date>', or 'Cancels on <date>' once cancelled."""
        text = messages.PREMIUM_CANCELS_ON if self.cancel_pending else messages.PREMIUM_RENEWS_ON
        return text.format(date=self.renews_on) if self.renews_on else ""

    def _show(self, summary: service.SubscriptionSummary) -> None:
        self.is_premium = summary.is_premium
        self.renews_on = format_date(summary.renews_at) if summary.is_premium else ""
        self.cancel_pending = summary.is_premium and summary.cancel_at_period_end
        self.status_loaded = True

    @rx.event
    async def load_status(self):
        """The member's plan, for the dashboard's Premium tab."""
        await self._load_plan()

    @rx.event
    async def open_page(self):
        """on_load: the member's plan; after a payment, only what the server knows: a
        member whose Premium is active gets the confirmation, one whose checkout is open
        or paid but not yet fulfilled that it is still processing; a member who started
        no checkout, or a visitor signed out, nothing of it."""
        self.cancel_dialog_open = False
        self.price = premium_price()
        returned = self.router.url.query_parameters.get("success") == "true"
        self.success = returned and self.signed_in
        self.payment_check = CHECKING if self.success else ""
        if self.success:
            yield
        user = await self._load_plan()
        if not returned:
            return
        self.success = user is not None and (
            self.is_premium or await run_in_session(service.premium_checkout_started, user.id)
        )
        self.payment_check = self._payment_outcome() if self.success else ""
        if self.success:
            yield PremiumState.confirm_and_continue

    def _payment_outcome(self) -> str:
        return CONFIRMED if self.is_premium else PROCESSING

    @rx.event(background=True)
    async def confirm_and_continue(self):
        """Recheck the subscription after 2 s, then go to /dashboard 1 s later."""
        await asyncio.sleep(RECHECK_AFTER_SECONDS)
        async with self:
            await self._load_plan()
            if not self._member_known:
                self.success, self.payment_check = False, ""
                return
            self.payment_check = self._payment_outcome()
        await asyncio.sleep(LEAVE_AFTER_SECONDS)
        async with self:
            self.success, self.payment_check = False, ""
        yield rx.redirect(routes.DASHBOARD)

    @rx.event
    @SUBSCRIBE_WAIT.answers
    async def subscribe(self, attempt: str = ""):
        """Start a Premium checkout and send the browser to it (once per ``attempt``)."""
        was_signed_in = self.signed_in
        user = await self._current_user()
        if user is None:
            text = messages.NO_ACTIVE_SESSION if was_signed_in else messages.SIGN_IN_TO_UPGRADE
            yield rx.toast.error(text)
            yield self._sign_in_redirect(routes.PREMIUM)
            return
        self.starting = True
        yield
        url = ""
        with guarded("Starting a Premium checkout", messages.FAILED_TO_START_CHECKOUT) as call:
            url = await run_in_session(
                checkout.start_checkout,
                user,
                KIND_SUBSCRIPTION,
                description=messages.PREMIUM_PLAN_NAME,
                promo_code=self.promo_code,
            )
        self.starting = False
        if call.failed:
            yield call.toast
        else:
            yield rx.redirect(url) if url else rx.toast.error(messages.NO_CHECKOUT_URL)

    @rx.event
    def set_promo_code(self, value: str):
        """The Promo code field, as typed (the checkout's service decides it)."""
        self.promo_code = as_typed(value)

    @rx.event
    def set_cancel_dialog_open(self, is_open: bool):
        self.cancel_dialog_open = is_open

    @rx.event
    @CANCEL_PLAN_WAIT.answers
    async def confirm_cancel(self, attempt: str = ""):
        """Cancel at the end of the paid period, as confirmed in the dialog (once per
        ``attempt``)."""
        user = await self._current_user()
        if user is None:
            yield self._sign_in_redirect(routes.PREMIUM)
            return
        self.cancelling = True
        yield
        with guarded("Cancelling Premium", messages.FAILED_TO_CANCEL_PREMIUM) as call:
            summary = await run_in_session(service.cancel_subscription, user.id)
        if call.failed:
            self.cancelling = False
            yield call.toast
            return
        self._show(summary)
        self.cancelling, self.cancel_dialog_open = False, False
        yield rx.toast.success(messages.PREMIUM_CANCELLED.format(date=self.renews_on))


async def reload_plan(premium: PremiumState) -> None:
    """The member's plan again, as the server has it (an open dashboard's recheck)."""
    await premium._load_plan()


class LocalCheckoutState(AuthState):
    """/checkout/test: the built-in checkout used when Stripe is not configured."""

    session_id: str = ""
    description: str = ""
    amount: str = ""
    recurring: bool = False
    promo_code: str = ""
    found: bool = False
    loaded: bool = False
    busy: bool = False
    # The attempt ids of the latest presses run (``ui.server_wait``).
    _answered_attempts: list[str] = []
    # A checkout no longer open: the way back to what it was for.
    way_back_label: str = messages.TITLE_PREMIUM
    way_back_path: str = routes.PREMIUM

    @rx.var
    def pay_label(self) -> str:
        return messages.TEST_CHECKOUT_PAY.format(amount=self.amount)

    @rx.var
    def promo_label(self) -> str:
        return messages.PROMO_CODE_APPLIED.format(code=self.promo_code)

    @rx.event
    async def open_page(self):
        """on_load: members only; shows one of their own open test checkouts."""
        self.session_id = self.router.url.query_parameters.get("session", "")
        self.found, self.loaded, self.busy = False, False, False
        self.promo_code = ""
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect(f"{routes.TEST_CHECKOUT}?session={self.session_id}")
        try:
            preview = await run_in_session(
                checkout.describe_test_checkout, user.id, self.session_id
            )
        except DomainError:
            await self._show_way_back(user.id)
            self.loaded = True
            return None
        self.description, self.amount, self.recurring, self.promo_code = (
            preview.description,
            preview.amount,
            preview.recurring,
            preview.promo_code,
        )
        self.found = self.loaded = True
        return None

    async def _finish(self, action):
        user = await self._current_user()
        if user is None:
            yield self._sign_in_redirect(f"{routes.TEST_CHECKOUT}?session={self.session_id}")
            return
        self.busy = True
        yield
        try:
            path = await run_in_session(action, user.id, self.session_id)
        except DomainError as error:
            await self._show_way_back(user.id)
            self.busy, self.found = False, False
            yield rx.toast.error(error.message)
            return
        yield rx.redirect(path)

    async def _show_way_back(self, user_id) -> None:
        way = await run_in_session(checkout.way_back_from, user_id, self.session_id)
        self.way_back_label, self.way_back_path = way.label, way.path

    @rx.event
    @PAY_WAIT.answers
    async def pay(self, attempt: str = ""):
        """Pay: the same fulfilment as a Stripe webhook, then the success page (once per
        ``attempt``)."""
        async for update in self._finish(checkout.pay_test_checkout):
            yield update

    @rx.event
    @LEAVE_WAIT.answers
    async def cancel(self, attempt: str = ""):
        """Cancel: back to where the checkout started (once per ``attempt``)."""
        async for update in self._finish(checkout.cancel_test_checkout):
            yield update
