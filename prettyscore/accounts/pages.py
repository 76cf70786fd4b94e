"""Pages of the accounts area: /auth (sign in, sign up, forgot password) and /auth/reset."""

from __future__ import annotations

import reflex as rx

from prettyscore.accounts.forms import AuthFormState, ForgotPasswordState, ResetPasswordState
from prettyscore.accounts.state import AuthState
from prettyscore.core import messages
from prettyscore.ui.layout import page_layout


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


def _submit(label: str, busy=AuthFormState.submitting) -> rx.Component:
    # Disabled until the page is live: a form submitted before that would be sent by the
    # browser itself, as a GET with the password in the address.
    return rx.button(
        label,
        type="submit",
        size="3",
        width="100%",
        loading=busy,
        disabled=~rx.State.is_hydrated,
    )


def _sign_in_form() -> rx.Component:
    return rx.form(
        rx.vstack(
            _field(
                "email",
                messages.EMAIL_PLACEHOLDER,
                "email",
                value=AuthFormState.sign_in_email,
                on_change=AuthFormState.set_sign_in_email,
                auto_complete="email",
            ),
            _field(
                "password",
                messages.PASSWORD_PLACEHOLDER,
                "password",
                auto_complete="current-password",
            ),
            _submit(messages.SIGN_IN),
            rx.link(messages.FORGOT_PASSWORD, href="/auth/forgot", size="2"),
            spacing="3",
            width="100%",
        ),
        on_submit=AuthFormState.submit_sign_in,
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
            _submit(messages.SIGN_UP),
            spacing="3",
            width="100%",
        ),
        on_submit=AuthFormState.submit_sign_up,
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
        _card(
            rx.heading(messages.AUTH_HEADING, size="7", text_align="center", width="100%"),
            rx.text(messages.AUTH_SUBTITLE, color_scheme="gray", text_align="center", width="100%"),
            tabs,
        )
    )


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
                    _submit("Send reset link", ForgotPasswordState.submitting),
                    rx.link("Back to sign in", href="/auth", size="2"),
                    spacing="3",
                    width="100%",
                ),
                on_submit=ForgotPasswordState.submit,
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
                    _submit("Save new password", ResetPasswordState.submitting),
                    spacing="3",
                    width="100%",
                ),
                on_submit=ResetPasswordState.submit,
                width="100%",
            ),
        )
    )


def register(app: rx.App) -> None:
    """Add the accounts pages to the app."""
    app.add_page(
        auth_page, route="/auth", title="Sign in | PrettyScore", on_load=AuthFormState.open_page
    )
    app.add_page(
        forgot_page,
        route="/auth/forgot",
        title="Forgot password | PrettyScore",
        on_load=AuthState.load_session,
    )
    app.add_page(
        reset_page,
        route="/auth/reset",
        title="Reset password | PrettyScore",
        on_load=AuthState.load_session,
    )
