"""The detailed analysis offered for the member's latest result outside the test (the
dashboard's Personality tab), not only right after finishing the quiz.

Which result is on offer, whether it is still for sale and its price are decided on the
server when the offer mounts and again when Get Detailed Analysis is clicked: the browser
names nothing, so it cannot buy the analysis of another member's result.
"""

from __future__ import annotations

import logging

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.billing.checkout import CheckoutFailed
from prettyscore.billing.components import as_typed
from prettyscore.core import messages
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import DomainError
from prettyscore.personality import service

log = logging.getLogger(__name__)


class DetailedOfferState(AuthState):
    """The offer of the detailed analysis of the member's latest basic result."""

    offer_type: str = ""  # the latest result's personality type; "" when nothing is on offer
    offer_price: str = ""
    buying_offer: bool = False
    promo_code: str = ""

    @rx.event
    async def load_offer(self):
        """on_mount: the latest basic result, while its detailed analysis is unpaid."""
        self.buying_offer = False
        user = await self._current_user()
        if user is None:
            self.offer_type = ""
            return
        try:
            offer = await run_in_session(service.latest_detailed_offer, user.id)
        except Exception:
            log.exception("Loading the detailed analysis offer failed")
            offer = None
        self.offer_type = offer.personality_type if offer is not None else ""
        self.offer_price = service.detailed_price()

    @rx.event
    def set_promo_code(self, value: str):
        """The Promo code field, as typed (the checkout's service decides it)."""
        self.promo_code = as_typed(value)

    @rx.event
    async def buy_offer(self):
        """Get Detailed Analysis: off to the checkout for the latest result (or to its
        report, if it was paid for meanwhile)."""
        user = await self._current_user()
        if user is None:
            yield [
                rx.toast.error(messages.LOG_IN_FOR_PERSONALITY),
                self._sign_in_redirect("/dashboard"),
            ]
            return
        self.buying_offer = True
        yield
        url, text = "", messages.FAILED_TO_GET_DETAILED_ANALYSIS
        try:
            url = await run_in_session(service.buy_latest_detailed, user, self.promo_code)
        except CheckoutFailed:
            pass
        except DomainError as error:
            text = error.message
        except Exception:
            log.exception("Starting a detailed analysis purchase from the dashboard failed")
        self.buying_offer = False
        yield rx.redirect(url) if url else rx.toast.error(text)
