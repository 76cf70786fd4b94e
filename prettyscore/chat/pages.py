"""/messages (the member's conversations) and /messages/{requestId} (one live chat).

Messages are rendered as text, never as HTML: what a person typed is what the other
sees, tags included. Enter sends and Shift+Enter starts a new line (a small key handler
submits the form; the server decides whether the message may be sent).
"""

from __future__ import annotations

import reflex as rx

from prettyscore.chat.state import ROUTE_ARG, SEND_WAIT, ChatLine, ChatState, ConversationRow
from prettyscore.core import messages, routes
from prettyscore.ui.components import ENTER_SUBMITS, card, page_header
from prettyscore.ui.layout import page_layout

CHAT_BOX_HEIGHT = "600px"
FORM_ID = "chat-form"


def _bubble(line: ChatLine) -> rx.Component:
    return rx.flex(
        rx.box(
            rx.text(
                line.content,
                white_space="pre-wrap",
                word_break="break-word",
                size="3",
                data_testid="message-text",
            ),
            rx.text(line.time, size="1", color_scheme="gray", align="right"),
            background=rx.cond(line.mine, "var(--pink-a4)", "var(--gray-a3)"),
            padding="0.5rem 0.85rem",
            border_radius="14px",
            max_width="75%",
            data_testid=rx.cond(line.mine, "message-mine", "message-theirs"),
        ),
        justify=rx.cond(line.mine, "end", "start"),
        width="100%",
    )


def _chat_box() -> rx.Component:
    # column-reverse keeps the newest message in view as messages arrive.
    return rx.box(
        rx.vstack(
            rx.cond(
                ChatState.lines.length() == 0,
                rx.text(messages.CHAT_NO_MESSAGES, color_scheme="gray", align="center"),
            ),
            rx.foreach(ChatState.lines, _bubble),
            spacing="2",
            width="100%",
        ),
        height=CHAT_BOX_HEIGHT,
        overflow_y="auto",
        display="flex",
        flex_direction="column-reverse",
        padding="1rem",
        border="1px solid var(--gray-a5)",
        border_radius="16px",
        background="var(--color-panel-solid)",
        width="100%",
        data_testid="chat-box",
    )


def _composer() -> rx.Component:
    return rx.form(
        rx.hstack(
            rx.text_area(
                name="content",
                value=ChatState.draft,
                on_change=ChatState.set_draft,
                placeholder=messages.CHAT_PLACEHOLDER,
                rows="2",
                resize="vertical",
                width="100%",
                custom_attrs={"onKeyDown": ENTER_SUBMITS},
                data_testid="chat-input",
            ),
            rx.button(
                rx.icon("send", size=16),
                messages.CHAT_SEND,
                type="submit",
                high_contrast=True,
                loading=SEND_WAIT.pending.value,
                disabled=SEND_WAIT.pending.value | ~(ChatState.can_send & rx.State.is_hydrated),
                size="3",
            ),
            SEND_WAIT.attempt_field(),
            align="end",
            width="100%",
        ),
        SEND_WAIT.no_answer_notice(rx.Var.create(False)),
        id=FORM_ID,
        on_submit=SEND_WAIT.submit(ChatState.send),
        width="100%",
    )


def chat() -> rx.Component:
    """One conversation: the other party's name, the messages, and the composer."""
    return page_layout(
        rx.vstack(
            rx.link(messages.CHAT_BACK, href=routes.MESSAGES, size="2"),
            rx.heading(
                messages.CHAT_WITH.format(name="") + ChatState.other_name,
                size="6",
                data_testid="chat-with",
            ),
            _chat_box(),
            _composer(),
            spacing="4",
            width="100%",
        ),
        max_width="820px",
    )


def _conversation(row: ConversationRow) -> rx.Component:
    return rx.link(
        card(
            rx.hstack(
                rx.icon("message-circle", size=22),
                rx.vstack(
                    rx.text(row.other_name, weight="bold"),
                    rx.text(row.last_message, size="2", color_scheme="gray"),
                    spacing="1",
                ),
                rx.spacer(),
                rx.text(row.last_at, size="1", color_scheme="gray"),
                align="center",
                width="100%",
            ),
            padding="1rem",
        ),
        href=row.href,
        underline="none",
        color="inherit",
        width="100%",
        data_testid="conversation",
    )


def conversation_list() -> rx.Component:
    """The member's conversations, the most recently active first."""
    return page_layout(
        page_header(messages.CHAT_TITLE, messages.CHAT_SUBTITLE, icon="messages-square"),
        rx.cond(
            ChatState.conversations.length() == 0,
            rx.text(messages.CHAT_NO_CONVERSATIONS, color_scheme="gray", align="center"),
            rx.vstack(rx.foreach(ChatState.conversations, _conversation), spacing="3"),
        ),
        max_width="820px",
    )


def register(app: rx.App) -> None:
    """Add /messages and /messages/{requestId} to the app."""
    app.add_page(
        conversation_list,
        route=routes.MESSAGES,
        title=messages.page_title(messages.CHAT_TITLE),
        on_load=ChatState.open_list,
    )
    app.add_page(
        chat,
        route=routes.chat(f"[{ROUTE_ARG}]"),
        title=messages.page_title(messages.CHAT_TITLE),
        on_load=ChatState.open_chat,
    )
