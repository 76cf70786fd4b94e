"""/claim-opportunities: apply for modeling and brand work (document 001 §2, §5).

Visitors see a sign-in prompt; members see the form, or, once they have applied, what
they applied for and when the team will be in touch. The form's length hints only
help the typing: the server checks every rule and names the first problem.
"""

from __future__ import annotations

from urllib.parse import quote

import reflex as rx

from prettyscore.core import messages, routes
from prettyscore.opportunities import service
from prettyscore.opportunities.state import OPPORTUNITY_WAIT, OpportunityState
from prettyscore.ui import styles
from prettyscore.ui.components import TERMS_HREF, card, link_button, page_header
from prettyscore.ui.forms import (
    FieldErrors,
    field_error,
    labelled_field,
    server_checked_form,
    text_field,
)
from prettyscore.ui.layout import page_layout

SIGN_IN_HREF = f"{routes.AUTH}?next={quote(routes.CLAIM_OPPORTUNITIES, safe='/')}"
FORM_WIDTH = "640px"
ERRORS = FieldErrors(OpportunityState.error_field, OpportunityState.error_message)


def _interests() -> rx.Component:
    return labelled_field(
        ERRORS,
        "interests",
        messages.OPPORTUNITY_INTERESTS_LABEL,
        rx.grid(
            *[
                rx.checkbox(option, name="interests", value=option, size="2")
                for option in service.INTEREST_OPTIONS
            ],
            columns=rx.breakpoints(initial="1", sm="2"),
            spacing="3",
            width="100%",
            role="group",
            aria_label=messages.OPPORTUNITY_INTERESTS_LABEL,
        ),
    )


def _agree_to_terms() -> rx.Component:
    agreement = f"{messages.OPPORTUNITY_AGREE_TO} {messages.TERMS_OF_USE}"
    return rx.vstack(
        rx.flex(
            rx.text(
                rx.flex(
                    rx.checkbox(name="agree_terms", aria_label=agreement),
                    messages.OPPORTUNITY_AGREE_TO,
                    spacing="2",
                    align="center",
                ),
                as_="label",
                size="2",
            ),
            rx.link(messages.TERMS_OF_USE, href=TERMS_HREF, size="2"),
            spacing="1",
            align="center",
            wrap="wrap",
        ),
        field_error(ERRORS, "agree_terms"),
        spacing="1",
        width="100%",
    )


def _form() -> rx.Component:
    """The application form. Uncontrolled: the values travel only on submit, and stay in
    place after a rejected submission so the member can fix the field that is named."""
    return server_checked_form(
        text_field(ERRORS, "full_name", messages.OPPORTUNITY_FULL_NAME, service.MAX_FULL_NAME),
        text_field(
            ERRORS,
            "email",
            messages.OPPORTUNITY_EMAIL,
            service.MAX_EMAIL,
            type="email",
            default_value=OpportunityState.account_email,
            auto_complete="email",
        ),
        text_field(
            ERRORS,
            "phone",
            messages.OPPORTUNITY_PHONE,
            16,
            type="tel",
            placeholder=messages.OPPORTUNITY_PHONE_PLACEHOLDER,
            auto_complete="tel",
        ),
        text_field(
            ERRORS,
            "instagram",
            messages.OPPORTUNITY_INSTAGRAM,
            service.MAX_INSTAGRAM + 1,
            placeholder=messages.OPPORTUNITY_INSTAGRAM_PLACEHOLDER,
        ),
        text_field(
            ERRORS,
            "location",
            messages.OPPORTUNITY_LOCATION,
            service.MAX_LOCATION,
            placeholder=messages.OPPORTUNITY_LOCATION_PLACEHOLDER,
        ),
        labelled_field(
            ERRORS,
            "bio",
            messages.OPPORTUNITY_BIO,
            rx.text_area(
                name="bio",
                aria_label=messages.OPPORTUNITY_BIO,
                placeholder=messages.OPPORTUNITY_BIO_PLACEHOLDER,
                max_length=service.MAX_BIO,
                rows="4",
                width="100%",
            ),
        ),
        _interests(),
        _agree_to_terms(),
        submit_label=messages.OPPORTUNITY_SUBMIT,
        submitting=OpportunityState.submitting,
        on_submit=OpportunityState.submit,
        wait=OPPORTUNITY_WAIT,
        test_id="opportunity-form",
    )


def _confirmation() -> rx.Component:
    """What the member applied for, and the team's 48-hour promise."""
    claim = OpportunityState.claim
    return card(
        rx.vstack(
            rx.icon("circle-check", size=44, color=styles.PINK),
            rx.heading(messages.OPPORTUNITY_APPLIED_TITLE, as_="h2", size="6", align="center"),
            rx.text(messages.OPPORTUNITY_CONTACT_PROMISE, size="3", align="center"),
            rx.text(messages.OPPORTUNITY_APPLIED_FOR, size="2", weight="medium"),
            rx.cond(
                claim.interests.length() > 0,
                rx.flex(
                    rx.foreach(
                        claim.interests,
                        lambda interest: rx.badge(interest, size="2", variant="soft"),
                    ),
                    wrap="wrap",
                    spacing="2",
                    justify="center",
                    data_testid="applied-interests",
                ),
                rx.badge(messages.OPPORTUNITY_ANY_INTEREST, size="2", variant="soft"),
            ),
            rx.text(messages.OPPORTUNITY_WE_WILL_REACH, size="2", weight="medium"),
            rx.text(claim.full_name, size="2"),
            rx.text(claim.email, " · ", claim.phone, size="2", color_scheme="gray"),
            rx.text(claim.location, size="2", color_scheme="gray"),
            align="center",
            spacing="3",
        ),
        data_testid="opportunity-confirmation",
        width="100%",
    )


def _sign_in_prompt() -> rx.Component:
    return card(
        rx.vstack(
            rx.icon("lock", size=36, color=styles.PINK),
            rx.heading(messages.OPPORTUNITY_SIGN_IN_TITLE, as_="h2", size="5", align="center"),
            rx.text(messages.OPPORTUNITY_SIGN_IN_BODY, size="3", align="center"),
            link_button(messages.SIGN_IN, SIGN_IN_HREF, "log-in"),
            align="center",
            spacing="3",
        ),
        data_testid="opportunity-sign-in",
        width="100%",
    )


def claim_opportunities_page() -> rx.Component:
    return page_layout(
        page_header(
            messages.TITLE_CLAIM_OPPORTUNITIES, messages.OPPORTUNITIES_SUBTITLE, icon="sparkles"
        ),
        rx.box(
            rx.cond(
                OpportunityState.loaded,
                rx.cond(
                    OpportunityState.signed_in,
                    rx.cond(OpportunityState.applied, _confirmation(), card(_form())),
                    _sign_in_prompt(),
                ),
                rx.center(rx.spinner(size="3"), padding="3rem"),
            ),
            width="100%",
            max_width=FORM_WIDTH,
            margin_x="auto",
        ),
    )


def register(app: rx.App) -> None:
    """Add /claim-opportunities to the app."""
    app.add_page(
        claim_opportunities_page,
        route=routes.CLAIM_OPPORTUNITIES,
        title=messages.page_title(messages.TITLE_CLAIM_OPPORTUNITIES),
        on_load=OpportunityState.open_page,
    )
