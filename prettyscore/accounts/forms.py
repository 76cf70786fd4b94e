"""Reflex state behind the /auth and /auth/reset forms.

Thin by design: read the form, call the accounts service on a worker thread, keep the
returned tokens, toast the documents' text and redirect. The rules live in the service.
"""

from __future__ import annotations

import logging

import reflex as rx

from prettyscore.accounts import service
from prettyscore.accounts.state import AuthState, safe_next_path
from prettyscore.core import messages
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import DomainError
from prettyscore.core.mail import get_mailer
from prettyscore.partners import referrals

log = logging.getLogger(__name__)


def _request_recovery(db, email: str | None) -> bool:
    """The recovery request through the configured mailer; True once handled."""
    service.request_password_recovery(db, email, get_mailer())
    return True


class FormState(AuthState):
    """What the account forms share: one submission at a time, and how a failure shows."""

    submitting: bool = False

    async def _call(self, action, *args, fallback: str, **kwargs):
        """Run a service call unless one is running; returns (result, None) or (None, the
        toast to show: the service's own message, or ``fallback`` for the unexpected)."""
        if self.submitting:
            return None, []
        self.submitting = True
        try:
            return await run_in_session(action, *args, **kwargs), None
        except DomainError as error:
            return None, rx.toast.error(error.message)
        except Exception:
            log.exception("%s failed unexpectedly", getattr(action, "__name__", action))
            return None, rx.toast.error(fallback)
        finally:
            self.submitting = False


class AuthFormState(FormState):
    """The sign-in / sign-up card."""

    sign_in_email: str = ""
    last_login_email: str = rx.LocalStorage("", name="lastLoginEmail")

    def _next_path(self) -> str:
        return safe_next_path(self.router.url.query_parameters.get("next"))

    @rx.event
    async def open_page(self):
        """on_load of /auth: a session goes straight on; otherwise prefill the last email."""
        if await self.current_user() is not None:
            return rx.redirect(self._next_path())
        # The visitor may already be typing (or have switched tabs) when this arrives:
        # fill only what is still empty, never undo what they did.
        if not self.sign_in_email:
            self.sign_in_email = self.last_login_email

    @rx.event
    def set_sign_in_email(self, value: str):
        self.sign_in_email = value

    @rx.event
    async def submit_sign_in(self, form: dict):
        """Sign in; remember the email in this browser for next time."""
        return await self._authenticate(service.sign_in, form, messages.WELCOME_BACK)

    @rx.event
    async def submit_sign_up(self, form: dict):
        """Create the account and sign in; a partner's referral cookie (sent with this
        browser's connection, never through the form) credits that partner."""
        return await self._authenticate(
            referrals.sign_up_with_referral,
            form,
            messages.ACCOUNT_CREATED,
            referral_code=referrals.referral_code_from_cookies(self.router.headers.cookie),
        )

    async def _authenticate(self, action, form: dict, success_text: str, **options):
        tokens, refusal = await self._call(
            action,
            form.get("email", ""),
            form.get("password", ""),
            user_agent=self.router.headers.user_agent,
            fallback=messages.SIGNUP_ERROR_FALLBACK,
            **options,
        )
        if tokens is None:
            return refusal
        self.apply_tokens(tokens)
        self.last_login_email = tokens.email
        self.sign_in_email = tokens.email
        return [rx.toast.success(success_text), rx.redirect(self._next_path())]


class ForgotPasswordState(FormState):
    """/auth/forgot: ask for a reset link."""

    @rx.event
    async def submit(self, form: dict):
        """Mail a reset link; the answer is the same whether the email is known or not."""
        done, refusal = await self._call(
            _request_recovery, form.get("email"), fallback=messages.UNEXPECTED_ERROR
        )
        if not done:
            return refusal
        return [rx.toast.success(messages.RECOVERY_EMAIL_SENT), rx.redirect("/auth")]


class ResetPasswordState(FormState):
    """The page a recovery link opens: choose a new password, then you are signed in."""

    @rx.event
    async def submit(self, form: dict):
        tokens, refusal = await self._call(
            service.reset_password,
            self.router.url.query_parameters.get("token", ""),
            form.get("password", ""),
            user_agent=self.router.headers.user_agent,
            fallback=messages.UNEXPECTED_ERROR,
        )
        if tokens is None:
            return refusal
        self.apply_tokens(tokens)
        return [rx.toast.success(messages.PASSWORD_UPDATED), rx.redirect("/dashboard")]
