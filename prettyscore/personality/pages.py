"""/personality-test (document 001 §2): behind the personality_test gate, one question at
a time with Previous and Next (Finish on the last); then the result with Retake and the
detailed-analysis purchase view, and after paying the detailed report."""

from __future__ import annotations

import reflex as rx

from prettyscore.billing.components import promo_code_field
from prettyscore.core import messages, routes
from prettyscore.gates import service as gates
from prettyscore.gates.components import feature_gate
from prettyscore.personality.service import TraitReading
from prettyscore.personality.state import (
    BUY_WAIT,
    CONFIRMING,
    DETAILED,
    FINISH_WAIT,
    PURCHASE,
    RESULT,
    UNCONFIRMED,
    ChoiceRow,
    PersonalityState,
)
from prettyscore.ui import styles
from prettyscore.ui.components import card, icon_button, link_button, page_header
from prettyscore.ui.layout import page_layout
from prettyscore.ui.signed_in_as import signed_in_as

State = PersonalityState
_READY = rx.State.is_hydrated


def _frame(*children: rx.Component, testid: str) -> rx.Component:
    return card(
        rx.vstack(*children, spacing="5", width="100%"),
        width="100%",
        padding=rx.breakpoints(initial="1.25rem", sm="2rem"),
        data_testid=testid,
    )


# ---------------------------------------------------------------------------
# The questions
# ---------------------------------------------------------------------------
def _choice(choice: ChoiceRow) -> rx.Component:
    return rx.radio_cards.item(
        rx.text(choice.label, size="3", width="100%"),
        value=choice.value,
        data_testid="quiz-choice",
    )


def _quiz_buttons() -> rx.Component:
    return rx.vstack(
        _quiz_row(),
        FINISH_WAIT.no_answer_notice(State.finishing, retry=FINISH_WAIT.retry(State.finish, 0)),
        width="100%",
    )


def _quiz_row() -> rx.Component:
    return rx.hstack(
        icon_button(
            "arrow-left",
            messages.PERSONALITY_PREVIOUS,
            on_click=State.previous_question,
            disabled=(State.current == 0) | ~_READY,
            variant="soft",
            color_scheme="gray",
            radius="full",
            size="3",
        ),
        rx.spacer(),
        rx.cond(
            State.on_last_question,
            icon_button(
                "sparkles",
                messages.PERSONALITY_FINISH,
                on_click=FINISH_WAIT.send(State.finish),
                loading=FINISH_WAIT.busy(State.finishing),
                disabled=~_READY | FINISH_WAIT.busy(State.finishing),
                radius="full",
                size="3",
                style=styles.GRADIENT_BUTTON,
            ),
            rx.button(
                messages.PERSONALITY_NEXT,
                rx.icon("arrow-right", size=16),
                on_click=State.next_question,
                disabled=~_READY,
                radius="full",
                size="3",
                style=styles.GRADIENT_BUTTON,
            ),
        ),
        width="100%",
        align="center",
    )


def _quiz() -> rx.Component:
    return _frame(
        rx.vstack(
            rx.hstack(
                rx.text(
                    State.progress_text, size="2", weight="medium", data_testid="quiz-progress"
                ),
                rx.spacer(),
                rx.text(f"{State.progress_percent}%", size="2", color_scheme="gray"),
                width="100%",
            ),
            rx.progress(
                value=State.progress_percent,
                max=100,
                width="100%",
                aria_label=State.progress_text,
            ),
            spacing="2",
            width="100%",
        ),
        rx.heading(State.question_text, size="6", data_testid="quiz-question"),
        rx.radio_cards.root(
            rx.foreach(State.choices, _choice),
            value=State.selected,
            on_value_change=State.choose,
            columns="1",
            gap="3",
            width="100%",
        ),
        _quiz_buttons(),
        testid="personality-quiz",
    )


def _quiz_for_members() -> rx.Component:
    """The gate asks the server only once the visitor is known to be signed in; signed-out
    visitors are sent to sign in by the page's on_load."""
    return rx.cond(
        State.signed_in,
        feature_gate(gates.PERSONALITY_TEST, _quiz()),
        rx.center(rx.spinner(size="3"), padding="3rem", width="100%"),
    )


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------
def _type_and_score() -> rx.Component:
    return rx.vstack(
        rx.text(messages.PERSONALITY_YOUR_TYPE, size="2", color_scheme="gray"),
        rx.heading(
            State.result_type,
            size="8",
            align="center",
            style=styles.GRADIENT_TEXT,
            data_testid="personality-type",
        ),
        rx.center(
            rx.vstack(
                rx.text(
                    State.result_score,
                    size="8",
                    weight="bold",
                    color="white",
                    data_testid="personality-score",
                ),
                rx.text(messages.PERSONALITY_SCORE_OUT_OF, size="1", color="white"),
                spacing="0",
                align="center",
            ),
            width="112px",
            height="112px",
            border_radius="50%",
            background=styles.BRAND_GRADIENT,
            aria_describedby="personality-score-means",
        ),
        rx.text(
            messages.PERSONALITY_SCORE_MEANS,
            id="personality-score-means",
            size="2",
            color_scheme="gray",
            align="center",
        ),
        align="center",
        spacing="3",
        width="100%",
    )


def _paragraphs(testid: str) -> rx.Component:
    return rx.vstack(
        rx.foreach(
            State.result_paragraphs,
            lambda text: rx.text(text, size="3", data_testid="analysis-paragraph"),
        ),
        spacing="3",
        width="100%",
        data_testid=testid,
    )


def _retake_button() -> rx.Component:
    return icon_button(
        "rotate-ccw",
        messages.PERSONALITY_RETAKE,
        on_click=State.retake,
        variant="soft",
        color_scheme="gray",
        radius="full",
        size="3",
    )


def _result() -> rx.Component:
    return _frame(
        _type_and_score(),
        _paragraphs("personality-analysis"),
        rx.hstack(
            _retake_button(),
            icon_button(
                "file-text",
                messages.PERSONALITY_GET_DETAILED,
                on_click=State.open_purchase,
                radius="full",
                size="3",
                style=styles.GRADIENT_BUTTON,
            ),
            justify="center",
            spacing="3",
            wrap="wrap",
            width="100%",
        ),
        testid="personality-result",
    )


def _includes_line(text: str) -> rx.Component:
    return rx.hstack(
        rx.icon("circle-check", size=18, color=styles.PINK, flex_shrink="0"),
        rx.text(text, size="3"),
        align="start",
        spacing="2",
    )


def _purchase() -> rx.Component:
    return _frame(
        rx.vstack(
            rx.heading(messages.PERSONALITY_DETAILED_TITLE, size="6", align="center"),
            rx.text(
                State.price,
                size="9",
                weight="bold",
                style=styles.GRADIENT_TEXT,
                data_testid="detailed-price",
            ),
            rx.text(messages.PERSONALITY_ONE_TIME_PAYMENT, size="2", color_scheme="gray"),
            align="center",
            spacing="2",
            width="100%",
        ),
        rx.vstack(
            *[_includes_line(text) for text in messages.PERSONALITY_DETAILED_INCLUDES],
            spacing="2",
            width="100%",
        ),
        promo_code_field(State.promo_code, State.set_promo_code),
        signed_in_as(),
        icon_button(
            "shopping-cart",
            messages.PERSONALITY_BUY,
            on_click=BUY_WAIT.send(State.buy),
            loading=BUY_WAIT.busy(State.buying),
            disabled=~_READY | BUY_WAIT.busy(State.buying),
            radius="full",
            size="4",
            width="100%",
            style=styles.GRADIENT_BUTTON,
        ),
        BUY_WAIT.no_answer_notice(State.buying, retry=BUY_WAIT.retry(State.buy, 0)),
        icon_button(
            "arrow-left",
            messages.PERSONALITY_BACK_TO_RESULT,
            on_click=State.back_to_result,
            variant="ghost",
            color_scheme="gray",
            width="100%",
        ),
        testid="detailed-purchase",
    )


def _trait(trait: TraitReading) -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.text(trait.label, weight="medium", size="3"),
            rx.spacer(),
            rx.text(f"{trait.score}/100", size="2", color_scheme="gray"),
            width="100%",
        ),
        rx.progress(value=trait.score, max=100, width="100%", aria_label=trait.label),
        spacing="1",
        width="100%",
        data_testid="detailed-trait",
    )


def _detailed() -> rx.Component:
    return _frame(
        rx.center(
            rx.badge(
                rx.icon("sparkles", size=14),
                messages.PERSONALITY_DETAILED_TITLE,
                size="2",
                radius="full",
            ),
            width="100%",
        ),
        _type_and_score(),
        rx.heading(messages.PERSONALITY_TRAITS_HEADING, size="4"),
        rx.vstack(rx.foreach(State.result_traits, _trait), spacing="3", width="100%"),
        _paragraphs("detailed-analysis"),
        rx.hstack(
            _retake_button(),
            link_button(
                messages.PERSONALITY_GO_TO_DASHBOARD,
                f"{routes.DASHBOARD}?tab=personality",
                "layout-grid",
            ),
            justify="center",
            spacing="3",
            wrap="wrap",
            width="100%",
        ),
        testid="detailed-report",
    )


def _waiting(text: str, busy: bool, testid: str) -> rx.Component:
    return _frame(
        rx.vstack(
            rx.spinner(size="3") if busy else rx.icon("hourglass", size=32, color=styles.PINK),
            rx.text(text, size="3", align="center"),
            *(
                []
                if busy
                else [link_button(messages.PERSONALITY_GO_TO_DASHBOARD, routes.DASHBOARD)]
            ),
            align="center",
            spacing="3",
            width="100%",
        ),
        testid=testid,
    )


def personality_test() -> rx.Component:
    """The page body: which view shows is the state's ``view``."""
    return page_layout(
        page_header(messages.TITLE_PERSONALITY_TEST, messages.PERSONALITY_SUBTITLE, icon="brain"),
        rx.match(
            State.view,
            (RESULT, _result()),
            (PURCHASE, _purchase()),
            (DETAILED, _detailed()),
            (CONFIRMING, _waiting(messages.PERSONALITY_CONFIRMING, True, "detailed-confirming")),
            (
                UNCONFIRMED,
                _waiting(messages.PERSONALITY_NOT_CONFIRMED, False, "detailed-unconfirmed"),
            ),
            _quiz_for_members(),
        ),
        max_width="760px",
    )


def register(app: rx.App) -> None:
    """Add /personality-test to the app."""
    app.add_page(
        personality_test,
        route=routes.PERSONALITY_TEST,
        title=messages.page_title(messages.TITLE_PERSONALITY_TEST),
        on_load=PersonalityState.open_page,
    )
