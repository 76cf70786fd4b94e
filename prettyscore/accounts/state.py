"""Reflex state for the signed-in user: tokens in the browser, identity on the server.

The browser keeps the session's access and refresh tokens in cookies (so they survive a
reload, a new tab, or a restarted backend worker); every page load and every protected
action resolves the user from them on the server, renewing the pair when the access
token is near expiry. Nothing the browser sends besides those tokens decides who it is.

Pages use ``signed_in``, ``user_email``, ``email_short``, ``is_admin``, the on_load
events ``load_session`` / ``require_user``, and ``sign_out``. Other states call
``await self.get_state(AuthState)`` and then ``await auth._current_user()``.
"""

from __future__ import annotations

import logging
import secrets
from urllib.parse import quote

import reflex as rx

from prettyscore.accounts import service
from prettyscore.accounts.service import CurrentUser, SessionTokens
from prettyscore.core import messages
from prettyscore.core.browser_key import browser_key_from
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import DomainError
from prettyscore.core.settings import get_settings

log = logging.getLogger(__name__)

_COOKIE_OPTIONS = {
    "path": "/",
    "same_site": "lax",
    "max_age": get_settings().refresh_token_ttl_seconds,
    "secure": get_settings().secure_cookies,
}


def safe_next_path(raw: str | None, default: str = "/dashboard") -> str:
    """A same-site path to return to after sign-in; anything else falls back to default."""
    if not raw or not raw.startswith("/") or raw.startswith("//") or "\\" in raw:
        return default
    if raw.startswith("/auth"):
        return default
    return raw


class AuthState(rx.State):
    """Who is using this browser tab, resolved on the server from the session tokens."""

    access_token: str = rx.Cookie("", name="ps_access_token", **_COOKIE_OPTIONS)
    refresh_token: str = rx.Cookie("", name="ps_refresh_token", **_COOKIE_OPTIONS)
    signed_in: bool = False
    user_email: str = ""
    is_admin: bool = False
    session_checked: bool = False
    # The key of the browser this tab's state serves (core.browser_key): a socket that
    # does not present it is never treated as this tab's member.
    _browser_key: str = ""

    @rx.var
    def email_short(self) -> str:
        """The email as the account menu shows it: truncated to fit."""
        email = self.user_email
        return email if len(email) <= 24 else email[:21] + "..."

    # -- resolving the user ------------------------------------------------
    async def _current_user(self) -> CurrentUser | None:
        """The signed-in user, renewing the tokens when needed; None when signed out, or
        when this event did not come from the browser this state serves."""
        if not self._from_own_browser():
            self._clear_tokens()  # whoever borrowed the tab's token gets nothing from it
            self._browser_key = ""
            self.session_checked = True
            return None
        user, is_admin = await run_in_session(service.resolve_member_with_role, self.access_token)
        if (user is None or service.needs_refresh(user)) and self.refresh_token:
            try:
                fresh = await run_in_session(service.refresh_session, self.refresh_token)
            except DomainError:
                fresh = None
            if fresh is not None:
                self._apply_tokens(fresh)
                user, is_admin = await run_in_session(
                    service.resolve_member_with_role, fresh.access_token
                )
        if user is None:
            self._forget_session()
        else:
            self.signed_in, self.user_email, self.is_admin = True, user.email, is_admin
        self.session_checked = True
        return user

    def _from_own_browser(self) -> bool:
        """Whether this event's socket carries the key of the browser this state serves
        (the first event binds the state to its browser's key)."""
        seen = browser_key_from(self.router.headers.cookie)
        if not seen:
            return False
        if not self._browser_key:
            self._browser_key = seen
        return secrets.compare_digest(self._browser_key, seen)

    def _apply_tokens(self, tokens: SessionTokens) -> None:
        """Keep a new session's tokens in the browser and show the user as signed in."""
        self.access_token = tokens.access_token
        self.refresh_token = tokens.refresh_token
        self.signed_in = True
        self.user_email = tokens.email

    def _forget_session(self) -> None:
        """Show no user; clear the browser's tokens only if this state held some.

        A state without tokens may simply never have received this browser's cookies:
        Reflex makes a new one when Redis lost or expired the old (a restart, an idle
        hour), then runs the page's on_load before the browser sends its cookies again.
        Writing empty cookies there would sign out a member whose session is valid; left
        alone, the browser sends them on its next navigation (/auth sends a member with a
        session straight back).
        """
        if self.access_token or self.refresh_token:
            self._clear_tokens()
        else:
            self.signed_in, self.user_email, self.is_admin = False, "", False

    def _clear_tokens(self) -> None:
        """Forget the session in this browser."""
        self.access_token = ""
        self.refresh_token = ""
        self.signed_in = False
        self.user_email = ""
        self.is_admin = False

    def _sign_in_redirect(self, path: str | None = None):
        """Send a signed-out visitor to /auth, coming back to ``path`` afterwards."""
        target = (path or self.router.url.path or "/").rstrip("/") or "/"
        return rx.redirect(f"/auth?next={quote(target, safe='/')}")

    # -- events --------------------------------------------------------------
    @rx.event
    async def load_session(self):
        """on_load of every page: resolve the user from the tokens (renewing them)."""
        await self._current_user()

    @rx.event
    async def require_user(self):
        """on_load of pages that need sign-in: go to /auth (and back) without a user."""
        if await self._current_user() is None:
            return self._sign_in_redirect()

    async def _admin_user(self) -> CurrentUser | None:
        """The signed-in user if they are an admin (checked in the database), else None."""
        user = await self._current_user()
        return user if user is not None and self.is_admin else None

    async def _guard_admin(self, denied_text: str):
        user = await self._current_user()
        if user is None:
            return self._sign_in_redirect()
        if not self.is_admin:
            return [rx.toast.error(denied_text), rx.redirect("/")]
        return None

    @rx.event
    async def require_admin(self):
        """on_load of /admin/partners and /admin/payouts: admins only."""
        return await self._guard_admin(messages.ACCESS_DENIED_ADMIN_ONLY)

    @rx.event
    async def require_verification_admin(self):
        """on_load of /admin/verification: admins only, with that page's own message."""
        return await self._guard_admin(messages.ADMIN_ACCESS_REQUIRED)

    @rx.event
    async def sign_out(self):
        """Sign out this session and go to /auth."""
        try:
            await run_in_session(service.sign_out, self.access_token, "local")
        except Exception:
            log.exception("Sign-out failed")
            return rx.toast.error(messages.FAILED_TO_SIGN_OUT)
        self._clear_tokens()
        return [rx.toast.success(messages.SIGNED_OUT), rx.redirect("/auth")]
