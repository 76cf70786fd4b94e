"""The personality area's shared pieces: the dashboard's offer of the detailed analysis
(its state: ``offer_state``)."""

from __future__ import annotations

import reflex as rx

from prettyscore.billing.components import promo_code_field
from prettyscore.core import messages
from prettyscore.personality.offer_state import OFFER_WAIT, DetailedOfferState
from prettyscore.ui import styles
from prettyscore.ui.components import card, icon_button
from prettyscore.ui.signed_in_as import signed_in_as


def detailed_analysis_offer() -> rx.Component:
    """The offer card: the latest result's type, the price and Get Detailed Analysis;
    nothing when there is no basic result or its detailed analysis is paid for."""
    state = DetailedOfferState
    return rx.box(
        rx.cond(
            state.offer_type != "",
            card(
                rx.vstack(
                    rx.heading(messages.PERSONALITY_DETAILED_TITLE, size="5"),
                    rx.text(
                        messages.PERSONALITY_YOUR_TYPE,
                        ": ",
                        rx.text.strong(state.offer_type),
                        size="2",
                    ),
                    rx.hstack(
                        rx.text(
                            state.offer_price,
                            size="6",
                            weight="bold",
                            style=styles.GRADIENT_TEXT,
                            data_testid="offer-price",
                        ),
                        rx.text(
                            messages.PERSONALITY_ONE_TIME_PAYMENT, size="2", color_scheme="gray"
                        ),
                        align="baseline",
                        spacing="2",
                    ),
                    promo_code_field(state.promo_code, state.set_promo_code),
                    signed_in_as(),
                    icon_button(
                        "file-text",
                        messages.PERSONALITY_GET_DETAILED,
                        on_click=OFFER_WAIT.send(state.buy_offer),
                        loading=OFFER_WAIT.busy(state.buying_offer),
                        disabled=~rx.State.is_hydrated | OFFER_WAIT.busy(state.buying_offer),
                        radius="full",
                        style=styles.GRADIENT_BUTTON,
                    ),
                    OFFER_WAIT.no_answer_notice(
                        state.buying_offer, retry=OFFER_WAIT.retry(state.buy_offer, 0)
                    ),
                    spacing="3",
                    width="100%",
                ),
                width="100%",
                data_testid="detailed-offer",
            ),
        ),
        width="100%",
        on_mount=state.load_offer,
    )
