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

log = logging.getLogger(__name__)


class AuthFormState(AuthState):
    """The sign-in / sign-up / forgot-password card."""

    sign_in_email: str = ""
    last_login_email: str = rx.LocalStorage("", name="lastLoginEmail")
    submitting: bool = False

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
        """Create the account and sign in."""
        return await self._authenticate(service.sign_up, form, messages.ACCOUNT_CREATED)

    async def _authenticate(self, action, form: dict, success_text: str):
        if self.submitting:
            return None
        self.submitting = True
        try:
            tokens = await run_in_session(
                action,
                form.get("email", ""),
                form.get("password", ""),
                user_agent=self.router.headers.user_agent,
            )
        except DomainError as error:
            return rx.toast.error(error.message)
        except Exception:
            log.exception("Authentication failed unexpectedly")
            return rx.toast.error(messages.SIGNUP_ERROR_FALLBACK)
        finally:
            self.submitting = False
        self.apply_tokens(tokens)
        self.last_login_email = tokens.email
        self.sign_in_email = tokens.email
        return [rx.toast.success(success_text), rx.redirect(self._next_path())]


class ForgotPasswordState(AuthState):
    """/auth/forgot: ask for a reset link."""

    submitting: bool = False

    @rx.event
    async def submit(self, form: dict):
        """Mail a reset link; the answer is the same whether the email is known or not."""
        if self.submitting:
            return None
        self.submitting = True
        try:
            await run_in_session(service.request_password_recovery, form.get("email"), get_mailer())
        except DomainError as error:
            return rx.toast.error(error.message)
        except Exception:
            log.exception("Password recovery failed")
            return rx.toast.error(messages.UNEXPECTED_ERROR)
        finally:
            self.submitting = False
        return [rx.toast.success(messages.RECOVERY_EMAIL_SENT), rx.redirect("/auth")]


class ResetPasswordState(AuthState):
    """The page a recovery link opens: choose a new password, then you are signed in."""

    submitting: bool = False

    @rx.event
    async def submit(self, form: dict):
        if self.submitting:
            return None
        self.submitting = True
        token = self.router.url.query_parameters.get("token", "")
        try:
            tokens = await run_in_session(
                service.reset_password,
                token,
                form.get("password", ""),
                user_agent=self.router.headers.user_agent,
            )
        except DomainError as error:
            return rx.toast.error(error.message)
        except Exception:
            log.exception("Password reset failed")
            return rx.toast.error(messages.UNEXPECTED_ERROR)
        finally:
            self.submitting = False
        self.apply_tokens(tokens)
        return [rx.toast.success(messages.PASSWORD_UPDATED), rx.redirect("/dashboard")]
