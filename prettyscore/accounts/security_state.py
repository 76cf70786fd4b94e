"""Reflex state behind /account/security: add an authenticator app, list and remove them.

The secret and its QR code are public vars only while an enrolment is open: the member
must see them to add the account to their app, and they are cleared as soon as the
first code is verified or the enrolment is cancelled. Everything else is the mfa service.
"""

from __future__ import annotations

from urllib.parse import quote

import reflex as rx

from prettyscore.accounts import mfa
from prettyscore.accounts.state import AuthState
from prettyscore.core import messages
from prettyscore.core.db import run_in_session
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import FormWait, ServerWait

# The enrolment's two forms are busy from the press and run each submission once.
ADD_FACTOR_WAIT = FormWait("add_factor")
CONFIRM_FACTOR_WAIT = FormWait("confirm_factor")
# A factor's Remove: busy from the press; a retry never reads as "not found".
REMOVE_FACTOR_WAIT = ServerWait("remove_factor")


def svg_data_uri(svg: str) -> str:
    """An SVG as an <img> source, percent-encoded so any character is safe in it."""
    return "data:image/svg+xml;charset=utf-8," + quote(svg, safe="")


def _factor_rows(db, user_id) -> list[dict[str, str]]:
    return [
        {
            "id": str(factor.id),
            "name": factor.friendly_name or messages.SECURITY_UNNAMED_FACTOR,
            "status": factor.status,
            "label": messages.SECURITY_STATUS_LABELS.get(factor.status, factor.status),
        }
        for factor in mfa.list_factors(db, user_id)
        if factor.factor_type == mfa.TOTP
    ]


class SecurityState(AuthState):
    """The member's authenticator apps and the enrolment in progress, if any."""

    factors: list[dict[str, str]] = []
    enrolment_factor_id: str = ""
    enrolment_secret: str = ""
    enrolment_qr_src: str = ""
    working: bool = False
    # The attempt ids of the latest submissions and presses run (``ui.server_wait``).
    _answered_attempts: list[str] = []

    @rx.var
    def enrolling(self) -> bool:
        return bool(self.enrolment_factor_id)

    @rx.event
    async def open_page(self):
        """on_load: members only; show their factors."""
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        self.factors = await run_in_session(_factor_rows, user.id)
        return None

    @rx.event
    @ADD_FACTOR_WAIT.answers
    async def start_enrolment(self, form: dict[str, str]):
        """A new authenticator: show its QR code and secret, and ask for its first code."""
        enrolment, refusal = await self._member_call(mfa.enroll_totp, form.get("name") or None)
        if enrolment is None:
            return refusal
        self.enrolment_factor_id = str(enrolment.factor_id)
        self.enrolment_secret = enrolment.secret
        self.enrolment_qr_src = svg_data_uri(enrolment.qr_svg)
        return await self._reload_factors()

    @rx.event
    @CONFIRM_FACTOR_WAIT.answers
    async def confirm_enrolment(self, form: dict[str, str]):
        """The first code: the authenticator is on, and this session is now aal2."""
        tokens, refusal = await self._member_call(
            mfa.challenge_and_verify,
            self.enrolment_factor_id,
            form.get("code", ""),
            self.router.session.client_ip,
        )
        if tokens is None:
            return refusal
        await self._apply_tokens(tokens)
        self._close_enrolment()
        await self._reload_factors()
        return rx.toast.success(messages.SECURITY_FACTOR_ADDED)

    @rx.event
    async def cancel_enrolment(self):
        """Give up the enrolment in progress; its unverified factor goes too."""
        factor_id = self.enrolment_factor_id
        self._close_enrolment()
        if factor_id:
            await self._member_call(mfa.unenroll, factor_id)
        return await self._reload_factors()

    @rx.event
    @REMOVE_FACTOR_WAIT.answers
    async def remove_factor(self, factor_id: str, attempt: str = ""):
        """Remove an authenticator (a verified one needs this session at aal2), once per
        ``attempt``: run again, the factor already gone would read as not found."""
        removed, refusal = await self._member_call(mfa.unenroll, factor_id)
        if removed is None:
            return refusal
        if factor_id == self.enrolment_factor_id:
            self._close_enrolment()
        redirect = await self._reload_factors()
        return redirect or rx.toast.success(messages.SECURITY_FACTOR_REMOVED)

    # -- helpers -----------------------------------------------------------
    async def _member_call(self, action, *args):
        """Run ``action(db, user, *args)`` for the signed-in member, one at a time:
        (result, None), or (None, what to show: a toast, or the way to sign in)."""
        if self.working:
            return None, None
        user = await self._current_user()
        if user is None:
            return None, self._sign_in_redirect()
        self.working = True
        try:
            with guarded(str(getattr(action, "__name__", action))) as call:
                return await run_in_session(action, user, *args), None
            return None, call.toast
        finally:
            self.working = False

    async def _reload_factors(self):
        """Refresh the list; a session that lost its second factor is signed out of it."""
        user = await self._current_user()
        if user is None:
            self.factors = []
            return self._sign_in_redirect()
        self.factors = await run_in_session(_factor_rows, user.id)
        return None

    def _close_enrolment(self) -> None:
        self.enrolment_factor_id = ""
        self.enrolment_secret = ""
        self.enrolment_qr_src = ""
