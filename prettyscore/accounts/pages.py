"""Pages of the accounts area: /auth (sign in with its second step, sign up, forgot
password), /auth/reset, and /account/security (authenticator apps)."""

from __future__ import annotations

import json

import reflex as rx

from prettyscore.accounts.form_state import (
    FORGOT_WAIT,
    LAST_LOGIN_EMAIL_KEY,
    RESET_WAIT,
    SECOND_STEP_WAIT,
    SIGN_IN_WAIT,
    SIGN_UP_WAIT,
    AuthFormState,
    ForgotPasswordState,
    ResetPasswordState,
)
from prettyscore.accounts.models import MfaFactorStatus
from prettyscore.accounts.security_state import (
    ADD_FACTOR_WAIT,
    CONFIRM_FACTOR_WAIT,
    REMOVE_FACTOR_WAIT,
    SecurityState,
)
from prettyscore.accounts.state import AuthState
from prettyscore.core import messages, routes
from prettyscore.ui.forms import waiting_submit
from prettyscore.ui.layout import page_layout
from prettyscore.ui.server_wait import FormWait


def _field(name: str, placeholder: str, kind: str = "text", **props) -> rx.Component:
    return rx.input(
        name=name,
        placeholder=placeholder,
        type=kind,
        required=True,
        size="3",
        width="100%",
        aria_label=placeholder,
        **props,
    )


def _submit(label: str, wait: FormWait, busy=AuthFormState.submitting) -> rx.Component:
    """The form's submit button, busy from the press. Disabled until the page is live:
    a form submitted before that would be sent by the browser itself, as a GET with the
    password in the address."""
    return waiting_submit(label, wait, busy, size="3", width="100%")


SIGN_IN_EMAIL_ID = "sign-in-email"
# The last email this browser signed in with, put in the empty Sign In field by the
# browser itself. A value sent by the server would arrive while the visitor may already
# be typing, and land in the middle of what they typed.
_PREFILL_SIGN_IN_EMAIL = rx.call_script(
    f"(function(){{var f=document.getElementById({json.dumps(SIGN_IN_EMAIL_ID)}),v=null;"
    "if(!f||f.value||document.activeElement===f)return;"
    f"try{{v=localStorage.getItem({json.dumps(LAST_LOGIN_EMAIL_KEY)})}}catch(e){{}}"
    "if(v)f.value=v})()"
)


def _sign_in_form() -> rx.Component:
    return rx.form(
        rx.vstack(
            _field(
                "email",
                messages.EMAIL_PLACEHOLDER,
                "email",
                id=SIGN_IN_EMAIL_ID,
                auto_complete="email",
                on_mount=_PREFILL_SIGN_IN_EMAIL,
            ),
            _field(
                "password",
                messages.PASSWORD_PLACEHOLDER,
                "password",
                auto_complete="current-password",
            ),
            _submit(messages.SIGN_IN, SIGN_IN_WAIT),
            rx.link(messages.FORGOT_PASSWORD, href=routes.AUTH_FORGOT, size="2"),
            spacing="3",
            width="100%",
        ),
        on_submit=SIGN_IN_WAIT.submit(AuthFormState.submit_sign_in),
        reset_on_submit=False,
        width="100%",
    )


def _sign_up_form() -> rx.Component:
    return rx.form(
        rx.vstack(
            _field("email", messages.EMAIL_PLACEHOLDER, "email", auto_complete="email"),
            _field(
                "password",
                messages.SIGNUP_PASSWORD_PLACEHOLDER,
                "password",
                min_length=6,
                auto_complete="new-password",
            ),
            _submit(messages.SIGN_UP, SIGN_UP_WAIT),
            spacing="3",
            width="100%",
        ),
        on_submit=SIGN_UP_WAIT.submit(AuthFormState.submit_sign_up),
        reset_on_submit=False,
        width="100%",
    )


def _card(*children) -> rx.Component:
    return rx.center(
        rx.card(
            rx.vstack(*children, spacing="4", width="100%"),
            width="100%",
            max_width="420px",
            size="4",
        ),
        width="100%",
        padding_y="2em",
    )


def auth_page() -> rx.Component:
    """/auth: 'Welcome', the subtitle, Sign In / Sign Up tabs, and password recovery."""
    tabs = rx.tabs.root(
        rx.tabs.list(
            rx.tabs.trigger(messages.SIGN_IN, value="sign_in", flex="1"),
            rx.tabs.trigger(messages.SIGN_UP, value="sign_up", flex="1"),
            width="100%",
        ),
        rx.tabs.content(_sign_in_form(), value="sign_in", padding_top="1em"),
        rx.tabs.content(_sign_up_form(), value="sign_up", padding_top="1em"),
        # Uncontrolled: switching tabs is the browser's business, so a page load or a
        # slow server can never swap the form under someone who is typing.
        default_value="sign_in",
        width="100%",
    )
    return page_layout(
        rx.cond(
            AuthFormState.second_step,
            _card(*_second_step()),
            _card(
                rx.heading(messages.AUTH_HEADING, size="7", text_align="center", width="100%"),
                rx.text(
                    messages.AUTH_SUBTITLE, color_scheme="gray", text_align="center", width="100%"
                ),
                tabs,
            ),
        )
    )


def _code_field() -> rx.Component:
    """Six digits from the authenticator app: the phone's numeric keypad, and the
    browser may fill it from a one-time-code source."""
    return _field(
        "code",
        messages.MFA_CODE_LABEL,
        auto_complete="one-time-code",
        input_mode="numeric",
        max_length=10,
    )


def _factor_choice() -> rx.Component:
    """Which authenticator, for a member who has more than one."""
    return rx.cond(
        AuthFormState.second_step_factors.length() > 1,
        rx.select.root(
            rx.select.trigger(aria_label=messages.MFA_CHOOSE_FACTOR, width="100%"),
            rx.select.content(
                rx.foreach(
                    AuthFormState.second_step_factors,
                    lambda factor: rx.select.item(factor["name"], value=factor["id"]),
                )
            ),
            name="factor_id",
            default_value=AuthFormState.second_step_factors[0]["id"],
            size="3",
        ),
    )


def _code_form(*leading: rx.Component, busy, wait: FormWait, on_submit, on_cancel) -> rx.Component:
    """An authenticator code with Verify and Cancel (sign-in's second step, enrolment)."""
    return rx.form(
        rx.vstack(
            *leading,
            _code_field(),
            _submit(messages.MFA_VERIFY, wait, busy),
            rx.button(
                messages.MFA_CANCEL, type="button", variant="ghost", size="2", on_click=on_cancel
            ),
            spacing="3",
            width="100%",
        ),
        on_submit=wait.submit(on_submit),
        reset_on_submit=True,
        width="100%",
    )


def _second_step() -> list[rx.Component]:
    """After a correct password, for a member with an authenticator: its code."""
    return [
        rx.heading(messages.MFA_STEP_HEADING, size="6", text_align="center", width="100%"),
        rx.text(messages.MFA_STEP_PROMPT, color_scheme="gray", text_align="center", width="100%"),
        _code_form(
            _factor_choice(),
            busy=AuthFormState.submitting,
            wait=SECOND_STEP_WAIT,
            on_submit=AuthFormState.submit_second_step,
            on_cancel=AuthFormState.cancel_second_step,
        ),
    ]


def forgot_page() -> rx.Component:
    """/auth/forgot: ask for a single-use link to choose a new password."""
    return page_layout(
        _card(
            rx.heading(messages.FORGOT_PASSWORD, size="6"),
            rx.text(
                "Enter your email and we'll send you a link to choose a new password.",
                size="2",
                color_scheme="gray",
            ),
            rx.form(
                rx.vstack(
                    _field("email", messages.EMAIL_PLACEHOLDER, "email", auto_complete="email"),
                    _submit("Send reset link", FORGOT_WAIT, ForgotPasswordState.submitting),
                    rx.link("Back to sign in", href=routes.AUTH, size="2"),
                    spacing="3",
                    width="100%",
                ),
                on_submit=FORGOT_WAIT.submit(ForgotPasswordState.submit),
                reset_on_submit=True,
                width="100%",
            ),
        )
    )


def reset_page() -> rx.Component:
    """/auth/reset?token=...: the page a recovery link opens."""
    return page_layout(
        _card(
            rx.heading(messages.RESET_PASSWORD_HEADING, size="6"),
            rx.form(
                rx.vstack(
                    _field(
                        "password",
                        messages.SIGNUP_PASSWORD_PLACEHOLDER,
                        "password",
                        min_length=6,
                        auto_complete="new-password",
                    ),
                    _submit("Save new password", RESET_WAIT, ResetPasswordState.submitting),
                    spacing="3",
                    width="100%",
                ),
                on_submit=RESET_WAIT.submit(ResetPasswordState.submit),
                width="100%",
            ),
        )
    )


def _factor_row(factor) -> rx.Component:
    return rx.hstack(
        rx.icon("smartphone", size=18),
        rx.text(factor["name"], weight="medium"),
        rx.badge(
            factor["label"],
            color_scheme=rx.cond(
                factor["status"] == MfaFactorStatus.VERIFIED.value, "green", "gray"
            ),
        ),
        rx.spacer(),
        rx.button(
            messages.SECURITY_REMOVE,
            variant="soft",
            color_scheme="red",
            size="2",
            loading=REMOVE_FACTOR_WAIT.busy_for(factor["id"], SecurityState.working),
            disabled=REMOVE_FACTOR_WAIT.pending.value,
            on_click=REMOVE_FACTOR_WAIT.send(SecurityState.remove_factor, factor["id"]),
            aria_label=f"{messages.SECURITY_REMOVE} " + factor["name"].to(str),
        ),
        align="center",
        width="100%",
        data_testid="security-factor",
    )


def _factor_list() -> rx.Component:
    state = SecurityState
    return rx.fragment(
        REMOVE_FACTOR_WAIT.no_answer_notice(
            state.working, retry=REMOVE_FACTOR_WAIT.retry(state.remove_factor, 1)
        ),
        rx.cond(
            state.factors.length() > 0,
            rx.vstack(rx.foreach(state.factors, _factor_row), spacing="3", width="100%"),
            rx.text(messages.SECURITY_NO_FACTORS, size="2", color_scheme="gray"),
        ),
    )


def _enrolment_start() -> rx.Component:
    return rx.form(
        rx.vstack(
            rx.input(
                name="name",
                placeholder=messages.SECURITY_FACTOR_NAME_LABEL,
                aria_label=messages.SECURITY_FACTOR_NAME_LABEL,
                max_length=100,
                size="3",
                width="100%",
            ),
            _submit(messages.SECURITY_ADD_FACTOR, ADD_FACTOR_WAIT, SecurityState.working),
            spacing="3",
            width="100%",
        ),
        on_submit=ADD_FACTOR_WAIT.submit(SecurityState.start_enrolment),
        reset_on_submit=True,
        width="100%",
    )


def _enrolment_in_progress() -> rx.Component:
    """The QR code and the secret, then the first code from the app."""
    return rx.vstack(
        rx.text(messages.SECURITY_SCAN_PROMPT, size="2"),
        rx.center(
            rx.image(
                src=SecurityState.enrolment_qr_src,
                alt=messages.SECURITY_QR_ALT,
                width="180px",
                height="180px",
            ),
            width="100%",
        ),
        rx.text(messages.SECURITY_SECRET_LABEL, size="2", color_scheme="gray"),
        rx.code(
            SecurityState.enrolment_secret,
            data_testid="totp-secret",
            style={"word_break": "break-all", "user_select": "all"},
        ),
        _code_form(
            busy=SecurityState.working,
            wait=CONFIRM_FACTOR_WAIT,
            on_submit=SecurityState.confirm_enrolment,
            on_cancel=SecurityState.cancel_enrolment,
        ),
        spacing="3",
        width="100%",
    )


def security_page() -> rx.Component:
    """/account/security: the member's authenticator apps."""
    return page_layout(
        _card(
            rx.heading(messages.TITLE_SECURITY, size="7"),
            rx.text(messages.SECURITY_SUBTITLE, color_scheme="gray"),
            rx.heading(messages.SECURITY_FACTORS_HEADING, size="4"),
            _factor_list(),
            rx.cond(SecurityState.enrolling, _enrolment_in_progress(), _enrolment_start()),
        )
    )


def register(app: rx.App) -> None:
    """Add the accounts pages to the app."""
    app.add_page(
        auth_page,
        route=routes.AUTH,
        title=messages.page_title(messages.TITLE_SIGN_IN),
        on_load=AuthFormState.open_page,
    )
    app.add_page(
        forgot_page,
        route=routes.AUTH_FORGOT,
        title=messages.page_title(messages.TITLE_FORGOT_PASSWORD),
        on_load=AuthState.load_session,
    )
    app.add_page(
        reset_page,
        route=routes.AUTH_RESET,
        title=messages.page_title(messages.TITLE_RESET_PASSWORD),
        on_load=AuthState.load_session,
    )
    app.add_page(
        security_page,
        route=routes.ACCOUNT_SECURITY,
        title=messages.page_title(messages.TITLE_SECURITY),
        on_load=SecurityState.open_page,
    )
