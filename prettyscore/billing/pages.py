"""The payment pages: /premium (the plan, subscribing, the member's status) and the
built-in test checkout /checkout/test, used when no Stripe keys are configured."""

from __future__ import annotations

import reflex as rx

from prettyscore.billing.components import promo_code_field
from prettyscore.billing.state import (
    CANCEL_PLAN_WAIT,
    LEAVE_WAIT,
    PAY_WAIT,
    SUBSCRIBE_WAIT,
    LocalCheckoutState,
    PremiumState,
)
from prettyscore.core import messages, routes
from prettyscore.ui import styles
from prettyscore.ui.components import card, icon_button, link_button, page_header
from prettyscore.ui.layout import page_layout
from prettyscore.ui.signed_in_as import signed_in_as

_READY = rx.State.is_hydrated


# ---------------------------------------------------------------------------
# /premium
# ---------------------------------------------------------------------------
def _benefit(text: str) -> rx.Component:
    return rx.hstack(
        rx.icon("circle-check", size=20, color=styles.PINK),
        rx.text(text, size="3"),
        align="center",
        spacing="2",
    )


def _price() -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.text(
                PremiumState.price,
                size="9",
                weight="bold",
                style=styles.GRADIENT_TEXT,
                data_testid="premium-price",
            ),
            rx.text(messages.PREMIUM_PRICE_SUFFIX, size="3", color_scheme="gray"),
            align="end",
            spacing="2",
        ),
        rx.text(messages.PREMIUM_CANCEL_ANYTIME, size="2", color_scheme="gray"),
        spacing="1",
        align="center",
    )


def _subscribe_button() -> rx.Component:
    return rx.vstack(
        promo_code_field(PremiumState.promo_code, PremiumState.set_promo_code),
        signed_in_as(),
        icon_button(
            "crown",
            messages.PREMIUM_SUBSCRIBE,
            on_click=SUBSCRIBE_WAIT.send(PremiumState.subscribe),
            loading=SUBSCRIBE_WAIT.busy(PremiumState.starting),
            disabled=SUBSCRIBE_WAIT.busy(PremiumState.starting) | ~_READY,
            size="4",
            radius="full",
            width="100%",
            style=styles.GRADIENT_BUTTON,
        ),
        SUBSCRIBE_WAIT.no_answer_notice(
            PremiumState.starting, retry=SUBSCRIBE_WAIT.retry(PremiumState.subscribe, 0)
        ),
        spacing="4",
        width="100%",
    )


def _cancel_dialog() -> rx.Component:
    """Cancel at period end, only after confirming."""
    return rx.alert_dialog.root(
        rx.alert_dialog.trigger(
            rx.button(messages.PREMIUM_CANCEL, variant="soft", color_scheme="gray", radius="full"),
        ),
        rx.alert_dialog.content(
            rx.alert_dialog.title(messages.PREMIUM_CANCEL_CONFIRM_TITLE),
            rx.alert_dialog.description(messages.PREMIUM_CANCEL_CONFIRM_BODY),
            rx.hstack(
                rx.alert_dialog.cancel(
                    rx.button(messages.PREMIUM_KEEP, variant="soft", color_scheme="gray"),
                ),
                rx.button(
                    messages.PREMIUM_CANCEL_CONFIRM,
                    color_scheme="red",
                    high_contrast=True,
                    on_click=CANCEL_PLAN_WAIT.send(PremiumState.confirm_cancel),
                    loading=CANCEL_PLAN_WAIT.busy(PremiumState.cancelling),
                    disabled=CANCEL_PLAN_WAIT.busy(PremiumState.cancelling),
                ),
                justify="end",
                spacing="3",
                margin_top="1rem",
            ),
            rx.box(
                CANCEL_PLAN_WAIT.no_answer_notice(
                    PremiumState.cancelling,
                    retry=CANCEL_PLAN_WAIT.retry(PremiumState.confirm_cancel, 0),
                ),
                margin_top="0.75rem",
            ),
        ),
        open=PremiumState.cancel_dialog_open,
        on_open_change=PremiumState.set_cancel_dialog_open,
    )


def member_status() -> rx.Component:
    """A member with Premium: their status, renewal (or end) date and a way to cancel."""
    return rx.vstack(
        rx.badge(
            rx.icon("crown", size=14),
            messages.PREMIUM_ACTIVE,
            size="3",
            radius="full",
            color_scheme="pink",
        ),
        rx.text(PremiumState.status_line, size="3", weight="medium", data_testid="premium-status"),
        rx.cond(~PremiumState.cancel_pending, _cancel_dialog()),
        align="center",
        spacing="3",
        width="100%",
        data_testid="premium-member",
    )


def _plan_card() -> rx.Component:
    return card(
        rx.vstack(
            rx.heading(messages.PREMIUM_PLAN_NAME, size="6"),
            _price(),
            rx.divider(),
            rx.vstack(*[_benefit(text) for text in messages.PREMIUM_BENEFITS], spacing="3"),
            rx.divider(),
            rx.cond(PremiumState.is_premium, member_status(), _subscribe_button()),
            align="center",
            spacing="5",
            width="100%",
        ),
        max_width="440px",
        width="100%",
        margin_x="auto",
        padding="2rem",
        data_testid="premium-plan",
    )


def _going_on() -> rx.Component:
    return rx.hstack(
        rx.spinner(size="2"),
        rx.text(messages.PREMIUM_GOING_TO_DASHBOARD, size="2", color_scheme="gray"),
        align="center",
        spacing="2",
    )


def _confirmed() -> rx.Component:
    """Premium is active: the thanks, while the plan is rechecked and the dashboard comes."""
    return rx.vstack(
        rx.icon("party-popper", size=40, color=styles.PINK),
        rx.heading(messages.PREMIUM_WELCOME_TITLE, size="6", align="center"),
        rx.text(messages.PREMIUM_WELCOME_BODY, align="center", color_scheme="gray"),
        _going_on(),
        align="center",
        spacing="4",
        data_testid="premium-success",
    )


def _processing() -> rx.Component:
    """Back from the checkout, but the payment event has not arrived yet."""
    return rx.vstack(
        rx.icon("clock", size=40, color=styles.PINK),
        rx.text(messages.PREMIUM_PAYMENT_PROCESSING, align="center"),
        _going_on(),
        align="center",
        spacing="4",
        data_testid="premium-processing",
    )


def _checking() -> rx.Component:
    return rx.hstack(
        rx.spinner(size="3"),
        rx.text(messages.PREMIUM_CHECKING_PAYMENT, color_scheme="gray"),
        align="center",
        justify="center",
        spacing="3",
        width="100%",
        data_testid="premium-checking",
    )


def _confirmation() -> rx.Component:
    """Back from the checkout (members only): checking, then what the server knows."""
    return card(
        rx.match(
            PremiumState.payment_check,
            ("confirmed", _confirmed()),
            ("processing", _processing()),
            _checking(),
        ),
        max_width="440px",
        width="100%",
        margin_x="auto",
        padding="2rem",
    )


def premium() -> rx.Component:
    """/premium (document 001 §2): the plan, or the confirmation after paying."""
    return page_layout(
        page_header(messages.TITLE_PREMIUM, messages.PREMIUM_PAGE_SUBTITLE, icon="crown"),
        rx.cond(PremiumState.success, _confirmation(), _plan_card()),
    )


# ---------------------------------------------------------------------------
# /checkout/test
# ---------------------------------------------------------------------------
def _test_checkout_form() -> rx.Component:
    state = LocalCheckoutState
    return rx.vstack(
        rx.text(state.description, size="4", weight="medium", data_testid="checkout-item"),
        rx.hstack(
            rx.text(messages.TEST_CHECKOUT_TOTAL, size="3", color_scheme="gray"),
            rx.spacer(),
            rx.text(state.amount, size="6", weight="bold", data_testid="checkout-amount"),
            rx.cond(
                state.recurring,
                rx.text(messages.TEST_CHECKOUT_MONTHLY, size="2", color_scheme="gray"),
            ),
            align="end",
            spacing="2",
            width="100%",
        ),
        rx.cond(
            state.promo_code != "",
            rx.badge(
                rx.icon("tag", size=14),
                state.promo_label,
                color_scheme="green",
                variant="soft",
                high_contrast=True,
                size="2",
                radius="full",
                data_testid="checkout-promo-code",
            ),
        ),
        rx.hstack(
            rx.button(
                messages.TEST_CHECKOUT_CANCEL,
                on_click=LEAVE_WAIT.send(state.cancel),
                disabled=~_READY | _checkout_busy(state),
                loading=LEAVE_WAIT.pending.value & ~state.busy,
                variant="soft",
                color_scheme="gray",
                size="3",
                radius="full",
            ),
            rx.button(
                state.pay_label,
                on_click=PAY_WAIT.send(state.pay),
                disabled=~_READY | _checkout_busy(state),
                loading=PAY_WAIT.busy(state.busy),
                size="3",
                radius="full",
                style=styles.GRADIENT_BUTTON,
            ),
            justify="end",
            spacing="3",
            width="100%",
        ),
        PAY_WAIT.no_answer_notice(state.busy, retry=PAY_WAIT.retry(state.pay, 0)),
        LEAVE_WAIT.no_answer_notice(state.busy, retry=LEAVE_WAIT.retry(state.cancel, 0)),
        spacing="5",
        width="100%",
    )


def _checkout_busy(state: type[LocalCheckoutState]) -> rx.Var:
    """Either button pressed and not yet answered, or the server at work on it."""
    return PAY_WAIT.busy(state.busy) | LEAVE_WAIT.pending.value


def _checkout_gone() -> rx.Component:
    return rx.vstack(
        rx.text(messages.CHECKOUT_NOT_FOUND, size="3"),
        link_button(
            LocalCheckoutState.way_back_label,
            LocalCheckoutState.way_back_path,
            "arrow-left",
            primary=False,
            data_testid="checkout-way-back",
        ),
        align="center",
        spacing="4",
        width="100%",
    )


def test_checkout() -> rx.Component:
    """The built-in checkout: clearly test mode, what is bought, its amount, Pay / Cancel."""
    return page_layout(
        card(
            rx.vstack(
                rx.heading(messages.TEST_CHECKOUT_TITLE, size="6"),
                rx.callout(
                    messages.TEST_MODE_NOTICE,
                    icon="flask-conical",
                    color_scheme="orange",
                    high_contrast=True,  # Radix's orange on its soft background: 4.0:1
                    width="100%",
                    data_testid="test-mode-notice",
                ),
                rx.cond(
                    LocalCheckoutState.loaded,
                    rx.cond(LocalCheckoutState.found, _test_checkout_form(), _checkout_gone()),
                    rx.center(rx.spinner(size="3"), width="100%", padding="1rem"),
                ),
                spacing="5",
                width="100%",
            ),
            max_width="480px",
            width="100%",
            margin_x="auto",
            padding="2rem",
            data_testid="test-checkout",
        ),
    )


def register(app: rx.App) -> None:
    """Add the payment pages to the app."""
    app.add_page(
        premium,
        route=routes.PREMIUM,
        title=messages.page_title(messages.TITLE_PREMIUM),
        on_load=PremiumState.open_page,
    )
    app.add_page(
        test_checkout,
        route=routes.TEST_CHECKOUT,
        title=messages.page_title(messages.TEST_CHECKOUT_TITLE),
        on_load=LocalCheckoutState.open_page,
    )
