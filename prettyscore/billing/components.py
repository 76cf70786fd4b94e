"""The Promo code field beside each checkout button: Premium on /premium, the contact
fee in the leaderboard's contact dialog, the detailed analysis on /personality-test and
on the dashboard.

The browser only sends the text typed (each page's state keeps it in ``promo_code``);
the handler that starts the checkout passes it to the service, which decides it
(``billing.checkout``): an unknown code, or the member's own, is refused with a message
and no checkout starts.
"""

from __future__ import annotations

from collections.abc import Callable

import reflex as rx

from prettyscore.billing.checkout import PROMO_CODE_MAX_LENGTH
from prettyscore.core import messages


def as_typed(value: object) -> str:
    """What a Promo code field keeps of the text typed: upper case, at most as long as a
    stored code (anything but text, from a forged event, counts as empty)."""
    return (value if isinstance(value, str) else "").upper()[:PROMO_CODE_MAX_LENGTH]


def promo_code_field(value: rx.Var[str], on_change: Callable) -> rx.Component:
    """A labelled, optional Promo code input that fits a 390 px phone."""
    return rx.vstack(
        rx.text(messages.PROMO_CODE_FIELD, size="2", weight="medium"),
        rx.input(
            value=value,
            on_change=on_change,
            placeholder=messages.PROMO_CODE_PLACEHOLDER,
            aria_label=messages.PROMO_CODE_FIELD,
            max_length=PROMO_CODE_MAX_LENGTH,
            auto_complete="off",
            spell_check=False,
            size="3",
            width="100%",
            min_width="0",
            data_testid="promo-code-input",
        ),
        spacing="1",
        width="100%",
        min_width="0",
        data_testid="promo-code-field",
    )
