"""The contestant inbox: /contestant-requests (and /contact-requests, the other name the
documents use). Paid requests addressed to the member, to approve or deny; approved ones
lead to their chat at /messages/{id}. Below them, Sent requests: the ones the member
paid for, pending, approved (with the chat) or denied and refunded."""

from __future__ import annotations

import reflex as rx

from prettyscore.contact.models import ContactStatus
from prettyscore.contact.service import InboxEntry, SentEntry
from prettyscore.contact.state import APPROVE_WAIT, DENY_WAIT, ContactInboxState
from prettyscore.core import messages, routes
from prettyscore.ui import styles
from prettyscore.ui.components import card, link_button, page_header
from prettyscore.ui.layout import page_layout

INBOX_ROUTES = (routes.CONTESTANT_REQUESTS, routes.CONTACT_REQUESTS)
_READY = rx.State.is_hydrated


def _status_badge(entry: InboxEntry) -> rx.Component:
    return rx.cond(
        entry.status == ContactStatus.APPROVED,
        rx.badge(messages.CONTACT_STATUS_APPROVED, color_scheme="green"),
        rx.badge(messages.CONTACT_STATUS_PENDING, color_scheme="amber"),
    )


def _answering() -> rx.Var:
    """An answer pressed and not yet answered, or under way: the others wait for it."""
    under_way = ContactInboxState.answering != ""
    return ~_READY | APPROVE_WAIT.busy(under_way) | DENY_WAIT.busy(under_way)


def _answer_buttons(entry: InboxEntry) -> rx.Component:
    under_way = ContactInboxState.answering == entry.id
    return rx.hstack(
        rx.button(
            messages.CONTACT_APPROVE,
            on_click=APPROVE_WAIT.send(ContactInboxState.approve, entry.id),
            loading=APPROVE_WAIT.busy_for(entry.id, under_way),
            disabled=_answering(),
            style=styles.GRADIENT_BUTTON,
            type="button",
        ),
        rx.button(
            messages.CONTACT_DENY,
            on_click=DENY_WAIT.send(ContactInboxState.deny, entry.id),
            loading=DENY_WAIT.busy_for(entry.id, under_way),
            disabled=_answering(),
            variant="soft",
            color_scheme="gray",
            type="button",
        ),
        spacing="3",
    )


def _no_answer_notices() -> rx.Component:
    """Said when an Approve or a Deny has gone unanswered; "Try again" sends it again."""
    under_way = ContactInboxState.answering != ""
    state = ContactInboxState
    return rx.fragment(
        APPROVE_WAIT.no_answer_notice(under_way, retry=APPROVE_WAIT.retry(state.approve, 1)),
        DENY_WAIT.no_answer_notice(under_way, retry=DENY_WAIT.retry(state.deny, 1)),
    )


def _request_frame(
    who: rx.Component,
    status: rx.Component,
    message: rx.Component,
    figures: list[rx.Component],
    action: rx.Component,
    test_id: str,
) -> rx.Component:
    """One contact request as a card, the same on both sides: who and its status, the
    message, rank and fee (with the contestant's share where it is theirs), the action."""
    return card(
        rx.vstack(
            rx.hstack(who, status, justify="between", width="100%", wrap="wrap"),
            message,
            rx.hstack(*figures, spacing="3", align="center", wrap="wrap"),
            action,
            spacing="3",
            width="100%",
        ),
        padding="1.25rem",
        width="100%",
        data_testid=test_id,
    )


def _request_card(entry: InboxEntry) -> rx.Component:
    return _request_frame(
        rx.text(
            messages.CONTACT_FROM.format(requester=entry.requester),
            weight="bold",
            data_testid="contact-requester",
        ),
        _status_badge(entry),
        rx.text(entry.message, white_space="pre-wrap", data_testid="contact-request-message"),
        [
            rx.badge(messages.CONTACT_RANK.format(rank=entry.rank)),
            rx.text(messages.CONTACT_FEE.format(fee=entry.fee), size="2"),
            rx.text(
                messages.CONTACT_YOUR_SHARE.format(share=entry.share),
                size="2",
                weight="bold",
                data_testid="contact-request-share",
            ),
        ],
        rx.cond(
            entry.status == ContactStatus.PENDING,
            _answer_buttons(entry),
            link_button(
                messages.CONTACT_OPEN_CHAT, routes.chat(entry.id), "message-circle", size="2"
            ),
        ),
        "contact-request",
    )


def _sent_status(entry: SentEntry) -> rx.Component:
    return rx.hstack(
        rx.match(
            entry.status,
            (
                ContactStatus.APPROVED,
                rx.badge(messages.CONTACT_STATUS_APPROVED, color_scheme="green"),
            ),
            (ContactStatus.DENIED, rx.badge(messages.CONTACT_STATUS_DENIED, color_scheme="red")),
            rx.badge(messages.CONTACT_STATUS_PENDING, color_scheme="amber"),
        ),
        rx.cond(
            entry.refunded,
            rx.badge(messages.CONTACT_STATUS_REFUNDED, color_scheme="gray"),
        ),
        spacing="2",
        data_testid="sent-request-status",
    )


def _sent_card(entry: SentEntry) -> rx.Component:
    return _request_frame(
        rx.text(
            messages.CONTACT_TO.format(contestant=entry.contestant),
            weight="bold",
            data_testid="sent-request-contestant",
        ),
        _sent_status(entry),
        rx.text(entry.message, white_space="pre-wrap", data_testid="sent-request-message"),
        [
            rx.badge(messages.CONTACT_RANK.format(rank=entry.rank)),
            rx.text(messages.CONTACT_FEE.format(fee=entry.fee), size="2"),
        ],
        rx.cond(
            entry.chat_url != "",
            link_button(messages.CONTACT_OPEN_CHAT, entry.chat_url, "message-circle", size="2"),
        ),
        "sent-request",
    )


def _section(title: str, test_id: str, anchor: str) -> rx.Component:
    return rx.heading(title, size="4", id=anchor, data_testid=test_id, width="100%")


def _empty(text: str, test_id: str) -> rx.Component:
    return rx.text(text, color_scheme="gray", align="center", width="100%", data_testid=test_id)


def _received() -> rx.Component:
    return rx.cond(
        ContactInboxState.inbox_entries.length() > 0,
        rx.vstack(
            rx.foreach(ContactInboxState.inbox_entries, _request_card),
            spacing="4",
            width="100%",
        ),
        _empty(messages.NO_CONTACT_REQUESTS, "no-contact-requests"),
    )


def _sent() -> rx.Component:
    return rx.cond(
        ContactInboxState.sent_entries.length() > 0,
        rx.vstack(
            rx.foreach(ContactInboxState.sent_entries, _sent_card),
            spacing="4",
            width="100%",
        ),
        _empty(messages.NO_SENT_CONTACT_REQUESTS, "no-sent-requests"),
    )


def inbox() -> rx.Component:
    """The member's paid pending and approved contact requests, then the ones they sent."""
    return page_layout(
        page_header(messages.TITLE_CONTACT_REQUESTS, messages.CONTACT_INBOX_SUBTITLE, "mail"),
        rx.cond(
            ContactInboxState.loaded,
            rx.vstack(
                _section(messages.CONTACT_RECEIVED_TITLE, "received-requests-title", "received"),
                _no_answer_notices(),
                _received(),
                _section(messages.CONTACT_SENT_TITLE, "sent-requests-title", "sent"),
                _sent(),
                spacing="4",
                width="100%",
            ),
            rx.center(rx.spinner(size="3"), width="100%"),
        ),
        max_width="760px",
    )


def register(app: rx.App) -> None:
    """Add the contestant inbox under both of its names."""
    for route in INBOX_ROUTES:
        app.add_page(
            inbox,
            route=route,
            title=messages.page_title(messages.TITLE_CONTACT_REQUESTS),
            on_load=ContactInboxState.load_inbox,
        )
