"""The contact dialog: rendered once on /leaderboard, opened for an entry with
``ContactState.open_contact(photo_id)`` from its Contact button; with it, the notice
shown on /leaderboard?contact=sent once the server knows the member's request is paid."""

from __future__ import annotations

import reflex as rx

from prettyscore.billing.components import promo_code_field
from prettyscore.contact.state import SEND_REQUEST_WAIT, ContactState
from prettyscore.core import messages, routes
from prettyscore.ui import styles
from prettyscore.ui.signed_in_as import signed_in_as


def _price_line() -> rx.Component:
    return rx.hstack(
        rx.badge(ContactState.contact_rank_text, size="2", data_testid="contact-rank"),
        rx.text(
            ContactState.contact_fee_text,
            weight="bold",
            style=styles.GRADIENT_TEXT,
            data_testid="contact-fee",
        ),
        align="center",
        spacing="3",
    )


def _message_box() -> rx.Component:
    return rx.vstack(
        rx.text_area(
            value=ContactState.contact_message,
            on_change=ContactState.set_contact_message,
            placeholder=messages.CONTACT_MESSAGE_PLACEHOLDER,
            rows="6",
            width="100%",
            data_testid="contact-message",
        ),
        rx.text(
            ContactState.message_count_text,
            size="1",
            color_scheme="gray",
            align="right",
            width="100%",
            data_testid="contact-message-count",
        ),
        spacing="1",
        width="100%",
    )


def _actions() -> rx.Component:
    return rx.vstack(
        _buttons(),
        SEND_REQUEST_WAIT.no_answer_notice(
            ContactState.sending, retry=SEND_REQUEST_WAIT.retry(ContactState.send_contact, 0)
        ),
        spacing="2",
        width="100%",
    )


def _buttons() -> rx.Component:
    return rx.hstack(
        rx.dialog.close(
            rx.button(messages.CONTACT_CANCEL, variant="soft", color_scheme="gray", type="button")
        ),
        rx.button(
            messages.CONTACT_SEND,
            on_click=SEND_REQUEST_WAIT.send(ContactState.send_contact),
            loading=SEND_REQUEST_WAIT.busy(ContactState.sending),
            disabled=SEND_REQUEST_WAIT.busy(ContactState.sending)
            | ContactState.message_empty
            | ~rx.State.is_hydrated,
            style=styles.GRADIENT_BUTTON,
            type="button",
        ),
        justify="end",
        spacing="3",
        width="100%",
    )


def sent_notice() -> rx.Component:
    """After paying a contact fee: that the request was sent, with the way to follow it.
    In the page's flow above its heading, on a solid background, so it covers nothing."""
    return rx.box(
        rx.cond(
            ContactState.sent_notice != "",
            rx.callout.root(
                rx.callout.icon(rx.icon("circle-check")),
                rx.hstack(
                    rx.callout.text(ContactState.sent_notice, data_testid="contact-sent-text"),
                    rx.link(
                        messages.CONTACT_SEE_SENT,
                        href=f"{routes.CONTESTANT_REQUESTS}#sent",
                        weight="bold",
                        white_space="nowrap",
                    ),
                    rx.icon_button(
                        rx.icon("x", size=14),
                        on_click=ContactState.dismiss_sent_notice,
                        variant="ghost",
                        color_scheme="gray",
                        size="1",
                        aria_label="Close",
                        type="button",
                    ),
                    align="center",
                    spacing="3",
                    wrap="wrap",
                ),
                color_scheme="green",
                variant="surface",
                role="status",
                background="var(--color-panel-solid)",
                data_testid="contact-sent-notice",
            ),
        ),
        width="100%",
        max_width="760px",
        margin_x="auto",
        on_mount=ContactState.check_sent,
    )


def contact_dialog() -> rx.Component:
    """The dialog to pay for contacting a contestant (name, rank, fee, message, Send)."""
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(ContactState.contact_title, data_testid="contact-title"),
            rx.vstack(
                _price_line(),
                _message_box(),
                promo_code_field(ContactState.promo_code, ContactState.set_promo_code),
                signed_in_as(),
                _actions(),
                spacing="4",
                width="100%",
            ),
            max_width="480px",
            data_testid="contact-dialog",
        ),
        open=ContactState.contact_open,
        on_open_change=ContactState.set_contact_open,
    )
