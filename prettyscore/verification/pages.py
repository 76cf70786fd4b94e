"""/request-verification (document 001 §2): loading, then one of the member's views.

Verified already ('You're Verified!'); the status of their request (status, submitted
date, admin notes, and for a rejected one the documents' note); or the form. The form's
length hints only help the typing: the server checks every rule.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.core import messages, routes
from prettyscore.ui.components import card, link_button, page_header
from prettyscore.ui.forms import (
    FieldErrors,
    labelled_field,
    server_checked_form,
    text_field,
)
from prettyscore.ui.layout import page_layout
from prettyscore.verification import service
from prettyscore.verification.models import VerificationStatus
from prettyscore.verification.state import (
    VERIFICATION_WAIT,
    VIEW_FORM,
    VIEW_REQUEST,
    VIEW_VERIFIED,
    VerificationState,
)

FORM_WIDTH = "640px"
ERRORS = FieldErrors(VerificationState.error_field, VerificationState.error_message)
STATUS_COLOURS = (
    (VerificationStatus.PENDING, "yellow"),
    (VerificationStatus.APPROVED, "green"),
    (VerificationStatus.REJECTED, "red"),
)


def _form() -> rx.Component:
    """The request: full name and reason required, the two socials optional."""
    return server_checked_form(
        text_field(
            ERRORS,
            "full_name",
            messages.VERIFICATION_FULL_NAME,
            service.MAX_FULL_NAME,
            auto_complete="name",
        ),
        labelled_field(
            ERRORS,
            "reason",
            messages.VERIFICATION_REASON,
            rx.text_area(
                name="reason",
                aria_label=messages.VERIFICATION_REASON,
                placeholder=messages.VERIFICATION_REASON_PLACEHOLDER,
                max_length=service.MAX_REASON,
                rows="4",
                width="100%",
            ),
        ),
        text_field(
            ERRORS,
            "instagram_handle",
            messages.VERIFICATION_INSTAGRAM,
            service.MAX_INSTAGRAM + 1,
            placeholder=messages.VERIFICATION_INSTAGRAM_PLACEHOLDER,
        ),
        text_field(
            ERRORS,
            "other_social",
            messages.VERIFICATION_OTHER_SOCIAL,
            service.MAX_OTHER_SOCIAL,
            placeholder=messages.VERIFICATION_OTHER_SOCIAL_PLACEHOLDER,
        ),
        submit_label=messages.VERIFICATION_SUBMIT,
        submitting=VerificationState.submitting,
        on_submit=VerificationState.submit,
        wait=VERIFICATION_WAIT,
        test_id="verification-form",
    )


def _verified() -> rx.Component:
    return card(
        rx.vstack(
            rx.icon("badge-check", size=48, color="var(--blue-9)"),
            rx.heading(messages.YOU_ARE_VERIFIED, as_="h2", size="6", align="center"),
            rx.text(messages.VERIFIED_BODY, size="3", align="center"),
            link_button(messages.NAV_LEADERBOARD, routes.LEADERBOARD, "trophy"),
            align="center",
            spacing="3",
        ),
        data_testid="verification-verified",
        width="100%",
    )


def _line(label: str, value: rx.Component | rx.Var) -> rx.Component:
    return rx.hstack(
        rx.text(label, size="2", weight="medium", min_width="7rem"),
        value,
        spacing="2",
        align="start",
        width="100%",
    )


def _status() -> rx.Component:
    request = VerificationState.request
    return card(
        rx.vstack(
            rx.heading(messages.VERIFICATION_STATUS_TITLE, as_="h2", size="5"),
            _line(
                messages.VERIFICATION_STATUS_LABEL,
                rx.badge(
                    request.status_label,
                    color_scheme=rx.match(request.status, *STATUS_COLOURS, "gray"),
                    variant="soft",
                    data_testid="verification-status",
                ),
            ),
            _line(messages.VERIFICATION_SUBMITTED_LABEL, rx.text(request.submitted, size="2")),
            rx.cond(
                request.admin_notes != "",
                _line(
                    messages.VERIFICATION_NOTES_LABEL,
                    rx.text(request.admin_notes, size="2", white_space="pre-wrap"),
                ),
            ),
            rx.match(
                request.status,
                (VerificationStatus.PENDING, rx.text(messages.VERIFICATION_PENDING_NOTE, size="2")),
                (
                    VerificationStatus.REJECTED,
                    rx.callout(
                        messages.VERIFICATION_REJECTED_CONTACT,
                        icon="circle-alert",
                        color_scheme="red",
                    ),
                ),
                rx.fragment(),
            ),
            spacing="3",
            width="100%",
        ),
        data_testid="verification-request-status",
        width="100%",
    )


def request_verification_page() -> rx.Component:
    return page_layout(
        page_header(
            messages.TITLE_REQUEST_VERIFICATION, messages.VERIFICATION_SUBTITLE, "badge-check"
        ),
        rx.box(
            rx.match(
                VerificationState.view,
                (VIEW_VERIFIED, _verified()),
                (VIEW_REQUEST, _status()),
                (VIEW_FORM, card(_form(), width="100%")),
                rx.center(rx.spinner(size="3"), padding="3rem"),
            ),
            width="100%",
            max_width=FORM_WIDTH,
            margin_x="auto",
        ),
    )


def register(app: rx.App) -> None:
    """Add /request-verification to the app."""
    app.add_page(
        request_verification_page,
        route=routes.REQUEST_VERIFICATION,
        title=messages.page_title(messages.TITLE_REQUEST_VERIFICATION),
        on_load=VerificationState.open_page,
    )
