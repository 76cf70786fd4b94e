"""The detailed analysis offered for the member's latest result outside the test (the
dashboard's Personality tab), not only right after finishing the quiz.

Which result is on offer, whether it is still for sale and its price are decided on the
server when the offer mounts and again when Get Detailed Analysis is clicked: the browser
names nothing, so it cannot buy the analysis of another member's result.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.billing.checkout import CheckoutFailed
from prettyscore.billing.components import as_typed
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.personality import service
from prettyscore.ui.guarded import Guarded, guarded
from prettyscore.ui.server_wait import ServerWait

#: Get Detailed Analysis is busy from the press and runs once per press.
OFFER_WAIT = ServerWait("personality_offer")


def purchase_refused(call: Guarded):
    """The toast when no checkout address came back: the service's refusal, except a
    checkout that failed, which reads as the documented failure (as does the unexpected)."""
    if call.refusal is not None and not isinstance(call.refusal, CheckoutFailed):
        return call.toast
    return rx.toast.error(messages.FAILED_TO_GET_DETAILED_ANALYSIS)


class DetailedOfferState(AuthState):
    """The offer of the detailed analysis of the member's latest basic result."""

    offer_type: str = ""  # the latest result's personality type; "" when nothing is on offer
    offer_price: str = ""
    buying_offer: bool = False
    promo_code: str = ""
    _answered_attempts: list[str] = []  # the latest presses run (``ui.server_wait``)

    @rx.event
    async def load_offer(self):
        """on_mount: the latest basic result, while its detailed analysis is unpaid."""
        self.buying_offer = False
        user = await self._current_user()
        if user is None:
            self.offer_type = ""
            return
        offer = None
        with guarded("Loading the detailed analysis offer", fallback=None, refusals=False):
            offer = await run_in_session(service.latest_detailed_offer, user.id)
        self.offer_type = offer.personality_type if offer is not None else ""
        self.offer_price = service.detailed_price()

    @rx.event
    def set_promo_code(self, value: str):
        """The Promo code field, as typed (the checkout's service decides it)."""
        self.promo_code = as_typed(value)

    @rx.event
    @OFFER_WAIT.answers
    async def buy_offer(self, attempt: str = ""):
        """Get Detailed Analysis: off to the checkout for the latest result (or to its
        report, if it was paid for meanwhile)."""
        user = await self._current_user()
        if user is None:
            yield [
                rx.toast.error(messages.LOG_IN_FOR_PERSONALITY),
                self._sign_in_redirect(routes.DASHBOARD),
            ]
            return
        self.buying_offer = True
        yield
        url = ""
        with guarded(
            "Starting a detailed analysis purchase from the dashboard",
            messages.FAILED_TO_GET_DETAILED_ANALYSIS,
        ) as call:
            url = await run_in_session(service.buy_latest_detailed, user, self.promo_code)
        self.buying_offer = False
        yield rx.redirect(url) if url else purchase_refused(call)
