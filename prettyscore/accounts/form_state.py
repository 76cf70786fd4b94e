"""Reflex state behind the /auth and /auth/reset forms (``ui.form_state`` forms).

Thin by design: read the form, call the accounts service on a worker thread, keep the
returned tokens, toast the documents' text and redirect. The rules live in the service.

The sign-in, sign-up and recovery forms keep the API's rate limits (``throttle``), in the
same budgets; a refused attempt shows when to try again and does nothing else.

A member with a verified authenticator signs in in two steps: the password opens an aal1
session whose tokens stay on the server (backend-only vars, never sent to the browser),
and only a correct code from the authenticator turns it into the signed-in session.
"""

from __future__ import annotations

from collections.abc import Callable

import reflex as rx

from prettyscore.accounts import mfa, service, throttle
from prettyscore.accounts.service import SessionTokens
from prettyscore.accounts.state import SESSION_TOAST, AuthState, safe_next_path
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.core.mail import after_answer
from prettyscore.ui.form_state import FormState
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import FormWait

# Each form is busy from the press and runs each submission once (``FormWait``).
SIGN_IN_WAIT = FormWait("sign_in")
SIGN_UP_WAIT = FormWait("sign_up")
SECOND_STEP_WAIT = FormWait("second_step")
FORGOT_WAIT = FormWait("forgot_password")
RESET_WAIT = FormWait("reset_password")
#: Where this browser keeps the last email it signed in with.
LAST_LOGIN_EMAIL_KEY = "lastLoginEmail"


def _second_step_choices(db, user_id) -> list[dict[str, str]]:
    """The authenticators a sign-in may be completed with (none: no second step)."""
    return [
        {"id": str(factor.id), "name": factor.friendly_name or messages.SECURITY_UNNAMED_FACTOR}
        for factor in mfa.verified_totp_factors(db, user_id)
    ]


def _request_recovery(db, email: str | None, client: str) -> Callable[[], None]:
    """The recovery request within the API's mail limits (checked before the email is
    looked up: known and unknown alike); the link is written and mailed once the answer
    has gone out (``after_answer``), so a known address takes no longer to answer than
    an unknown one. What starts that work."""
    address = service.normalize_email(email)
    throttle.before_mail(address, client)
    return after_answer(service.request_password_recovery, address)


class AccountFormState(FormState, AuthState):
    """What the account forms share: the browser's address, and one guarded service call."""

    def _client_address(self) -> str:
        """The browser's address, as the rate limits count it (the API's "unknown" when
        the connection did not tell)."""
        return self.router.session.client_ip or "unknown"

    async def _call(self, action, *args, fallback: str, **kwargs):
        """Run a service call unless one is running; returns (result, None) or (None, the
        toast to show: the service's own message, or ``fallback`` for the unexpected)."""
        if self.submitting:
            return None, []
        self.submitting = True
        name = getattr(action, "__name__", action)
        with self._submission(str(name), fallback, rate_limits=True) as call:
            return await run_in_session(action, *args, **kwargs), None
        return None, call.toast


class AuthFormState(AccountFormState):
    """The sign-in / sign-up card, and the sign-in's second step."""

    # Kept in this browser; the Sign In field reads it there (pages.py).
    last_login_email: str = rx.LocalStorage("", name=LAST_LOGIN_EMAIL_KEY)
    # The second step: shown while a password session waits for its authenticator code.
    second_step: bool = False
    second_step_factors: list[dict[str, str]] = []
    _pending_access_token: str = ""
    _pending_refresh_token: str = ""

    def _next_path(self) -> str:
        return safe_next_path(self.router.url.query_parameters.get("next"))

    @rx.event
    async def open_page(self):
        """on_load of /auth: a session goes straight on."""
        if await self._current_user() is not None:
            return rx.redirect(self._next_path())
        return None

    @rx.event
    @SIGN_IN_WAIT.answers
    async def submit_sign_in(self, form: dict[str, str]):
        """Sign in; remember the email in this browser for next time. A member with an
        authenticator is asked for its code before the session is theirs."""
        return await self._authenticate(
            throttle.password_sign_in,
            form,
            messages.WELCOME_BACK,
            client=self._client_address(),
        )

    @rx.event
    @SECOND_STEP_WAIT.answers
    async def submit_second_step(self, form: dict[str, str]):
        """Check the authenticator's code; a correct one completes the sign-in."""
        if self.submitting or not self._pending_access_token:
            return None
        self.submitting = True
        # The browser's key, when the socket presents it: a browser that has signed in to
        # this account before is not locked out by strangers' wrong codes (``mfa``).
        browser_key = self._browser_key if self._from_own_browser() else None
        with self._submission("The sign-in's second step") as call:
            tokens = await run_in_session(
                mfa.complete_sign_in,
                self._pending_access_token,
                self._pending_refresh_token,
                form.get("code", ""),
                self.router.session.client_ip,
                form.get("factor_id") or None,
                browser_key,
            )
        if call.failed:
            if call.refusal is not None and call.refusal.status == 401:
                self._forget_second_step()  # the password session ended meanwhile: start over
            return call.toast
        self._forget_second_step()
        return await self._signed_in(tokens, messages.WELCOME_BACK)

    @rx.event
    async def cancel_second_step(self):
        """Back to the password: the half-open session is closed, not left behind."""
        pending = self._pending_access_token
        self._forget_second_step()
        if pending:
            with guarded("Closing a half-open session", fallback=None, refusals=False):
                await run_in_session(service.sign_out, pending, "local")

    def _forget_second_step(self) -> None:
        self.second_step = False
        self.second_step_factors = []
        self._pending_access_token = ""
        self._pending_refresh_token = ""

    @rx.event
    @SIGN_UP_WAIT.answers
    async def submit_sign_up(self, form: dict[str, str]):
        """Create the account and sign in; a partner's referral cookie (sent with this
        browser's connection, never through the form) credits that partner."""
        return await self._authenticate(
            throttle.sign_up,
            form,
            messages.ACCOUNT_CREATED,
            client=self._client_address(),
            cookies=self.router.headers.cookie,
        )

    async def _authenticate(self, action, form: dict[str, str], success_text: str, **options):
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
        self.last_login_email = tokens.email
        choices = await run_in_session(_second_step_choices, tokens.user_id)
        if choices:
            self._pending_access_token = tokens.access_token
            self._pending_refresh_token = tokens.refresh_token
            self.second_step_factors = choices
            self.second_step = True
            return None
        return await self._signed_in(tokens, success_text)

    async def _signed_in(self, tokens: SessionTokens, success_text: str):
        new_key = await self._sign_in(tokens)
        welcome = rx.toast.success(success_text, id=SESSION_TOAST)
        return [*new_key, welcome, rx.redirect(self._next_path())]


class ForgotPasswordState(AccountFormState):
    """/auth/forgot: ask for a reset link."""

    @rx.event
    @FORGOT_WAIT.answers
    async def submit(self, form: dict[str, str]):
        """Mail a reset link; the answer is the same whether the email is known or not,
        and the link is looked for only once the answer has gone."""
        start, refusal = await self._call(
            _request_recovery,
            form.get("email"),
            self._client_address(),
            fallback=messages.UNEXPECTED_ERROR,
        )
        if start is None:
            yield refusal
            return
        yield [rx.toast.success(messages.RECOVERY_EMAIL_SENT), rx.redirect(routes.AUTH)]
        start()


class ResetPasswordState(AccountFormState):
    """The page a recovery link opens: choose a new password, then you are signed in."""

    @rx.event
    @RESET_WAIT.answers
    async def submit(self, form: dict[str, str]):
        tokens, refusal = await self._call(
            service.reset_password,
            self.router.url.query_parameters.get("token", ""),
            form.get("password", ""),
            user_agent=self.router.headers.user_agent,
            fallback=messages.UNEXPECTED_ERROR,
        )
        if tokens is None:
            return refusal
        new_key = await self._sign_in(tokens)
        return [
            *new_key,
            rx.toast.success(messages.PASSWORD_UPDATED),
            rx.redirect(routes.DASHBOARD),
        ]
