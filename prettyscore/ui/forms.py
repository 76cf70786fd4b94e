"""Form fields that name their own problem: a label, the control, and the message the
server gave for that field on the last submission (shown only beside that field).

The state behind a form keeps the first problem as two vars, the field's name and its
message; ``FieldErrors`` points at them so every field of the form can ask "is it me?".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import reflex as rx

from prettyscore.ui import styles
from prettyscore.ui.server_wait import FormWait


@dataclass(frozen=True)
class FieldErrors:
    """A form state's ``error_field`` and ``error_message`` vars."""

    field: Any
    message: Any


def field_error(errors: FieldErrors, name: str) -> rx.Component:
    """The last submission's problem, beside the field ``name`` it concerns."""
    return rx.cond(
        errors.field == name,
        rx.text(
            errors.message,
            size="2",
            color_scheme="red",
            role="alert",
            data_testid=f"error-{name}",
        ),
    )


def labelled_field(
    errors: FieldErrors, name: str, label: str, control: rx.Component
) -> rx.Component:
    """A label above ``control``, and the field's problem below it."""
    return rx.vstack(
        rx.text(label, size="2", weight="medium"),
        control,
        field_error(errors, name),
        spacing="1",
        width="100%",
    )


def text_field(
    errors: FieldErrors, name: str, label: str, max_length: int, **props: Any
) -> rx.Component:
    """A full-width text input named ``name``; ``max_length`` only helps the typing."""
    return labelled_field(
        errors,
        name,
        label,
        rx.input(
            name=name,
            aria_label=label,
            max_length=max_length,
            size="3",
            width="100%",
            **props,
        ),
    )


def waiting_submit(label: Any, wait: FormWait, busy: Any, **props: Any) -> rx.Component:
    """A form's submit button with its wait: the attempt's hidden field, the button (busy
    from the press or while ``busy``; disabled until the page is live, when the browser
    would otherwise send the form itself) and the notice for a press left unanswered."""
    return rx.fragment(
        wait.attempt_field(),
        rx.button(
            label,
            type="submit",
            loading=wait.busy(busy),
            disabled=wait.busy(busy) | ~rx.State.is_hydrated,
            **props,
        ),
        wait.no_answer_notice(busy),
    )


def server_checked_form(
    *fields: rx.Component,
    submit_label: str,
    submitting: Any,
    on_submit: Any,
    wait: FormWait,
    test_id: str,
) -> rx.Component:
    """A form whose rules the server checks. Uncontrolled: the values travel only on
    submit and stay in place after a refused submission, so the member can fix the
    field that is named. The button works only on a live page: the browser would
    otherwise send the form itself. It is busy from the press (``wait``), and says so
    when the server does not answer."""
    return rx.form(
        rx.vstack(
            *fields,
            waiting_submit(
                submit_label,
                wait,
                submitting,
                size="3",
                radius="full",
                width="100%",
                style=styles.GRADIENT_BUTTON,
            ),
            spacing="4",
            width="100%",
        ),
        on_submit=wait.submit(on_submit),
        reset_on_submit=False,
        no_validate=True,
        width="100%",
        data_testid=test_id,
    )
