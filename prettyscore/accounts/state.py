"""Reflex state for the signed-in user: identity on the server, bound to the browser.

The browser keeps the session's short-lived access token in a cookie; its refresh token
never reaches the browser. The server keeps it bound to the browser's HttpOnly key
(``web.browser_key``, which no script can read) and renews the access token when the
tab's event socket presents that key, so the session survives a reload, a new tab, or a
restarted backend worker. Every page load and every protected action resolves the user
on the server; nothing the browser sends besides its key and its access token decides
who it is.

Pages use ``signed_in``, ``user_email``, ``email_short``, ``is_admin``, the on_load
events ``load_session`` / ``require_user``, and ``sign_out``. Other states call
``await self.get_state(AuthState)`` and then ``await auth._current_user()``.
"""

from __future__ import annotations

import secrets
from urllib.parse import quote

import reflex as rx

from prettyscore.accounts import service
from prettyscore.accounts.service import CurrentUser, SessionTokens
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.core.media import MediaOwner
from prettyscore.core.settings import get_settings
from prettyscore.ui.guarded import guarded
from prettyscore.web.browser_key import browser_key_from

_COOKIE_OPTIONS = {
    "path": "/",
    "same_site": "lax",
    "secure": get_settings().secure_cookies,
}


def safe_next_path(raw: str | None, default: str = routes.DASHBOARD) -> str:
    """A same-site path to return to after sign-in; anything else falls back to default."""
    if not raw or not raw.startswith("/") or raw.startswith("//") or "\\" in raw:
        return default
    if raw.startswith(routes.AUTH):
        return default
    return raw


class AuthState(rx.State):
    """Who is using this browser tab, resolved on the server from the session tokens."""

    access_token: str = rx.Cookie(
        "",
        name="ps_access_token",
        max_age=get_settings().access_token_ttl_seconds,
        **_COOKIE_OPTIONS,
    )
    # Earlier versions kept the refresh token in this cookie, where scripts could read it.
    # A browser that still holds one sends it here once: its session moves to the server
    # (the token is spent) and the cookie is removed (Max-Age=0 whenever it is written).
    retired_refresh_token: str = rx.Cookie(
        "", name="ps_refresh_token", max_age=0, **_COOKIE_OPTIONS
    )
    # The browser as a visitor: its key names the folder of the photos it has not saved
    # and counts its free edits when signed out. A session cookie: the browser forgets
    # it, and with it the folder, at the end of the session; the files themselves are
    # purged within the hour.
    visitor_secret: str = rx.Cookie("", name="ps_visitor", **_COOKIE_OPTIONS)
    signed_in: bool = False
    user_email: str = ""
    is_admin: bool = False
    session_checked: bool = False
    # The key of the browser this tab's state serves (web.browser_key): a socket that
    # does not present it is never treated as this tab's member.
    _browser_key: str = ""

    @rx.var
    def email_short(self) -> str:
        """The email as the account menu shows it: truncated to fit."""
        email = self.user_email
        return email if len(email) <= 24 else email[:21] + "..."

    def _visitor_owner(self) -> MediaOwner:
        """This browser's own media folder (its key is made on first use)."""
        if not self.visitor_secret:
            self.visitor_secret = secrets.token_urlsafe(32)
        return MediaOwner.visitor(self.visitor_secret)

    # -- resolving the user ------------------------------------------------
    async def _current_user(self) -> CurrentUser | None:
        """The signed-in user, renewing the tokens when needed; None when signed out, or
        when this event did not come from the browser this state serves."""
        if not self._from_own_browser():
            self._clear_tokens()  # whoever borrowed the tab's token gets nothing from it
            self._browser_key = ""
            self.session_checked = True
            return None
        if self.retired_refresh_token:
            await self._adopt_retired_refresh_token()
        user, is_admin = await run_in_session(service.resolve_member_with_role, self.access_token)
        if user is None or service.needs_refresh(user):
            fresh = await run_in_session(service.renew_browser_session, self._browser_key)
            if fresh is not None:
                self._show_tokens(fresh)
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

    async def _apply_tokens(self, tokens: SessionTokens) -> None:
        """Sign this browser in to a new session: its refresh token is bound to the
        browser's key on the server, its access token kept in the browser. Nothing is
        applied for a socket that does not present the key of the browser this state
        serves (a borrowed tab token signs nobody in)."""
        if not self._from_own_browser():
            return
        await run_in_session(service.bind_browser, self._browser_key, tokens.refresh_token)
        self._show_tokens(tokens)

    def _show_tokens(self, tokens: SessionTokens) -> None:
        """Keep the access token in the browser and show the user as signed in."""
        self.access_token = tokens.access_token
        self.signed_in = True
        self.user_email = tokens.email

    async def _adopt_retired_refresh_token(self) -> None:
        """Move the session of a refresh token an earlier version left in a cookie to the
        server, and remove the cookie."""
        retired, self.retired_refresh_token = self.retired_refresh_token, ""
        fresh = await run_in_session(
            service.adopt_browser_refresh_token, self._browser_key, retired
        )
        if fresh is not None:
            self._show_tokens(fresh)

    def _forget_session(self) -> None:
        """Show no user; clear the browser's access token only if this state held one.

        A state without one may simply never have received this browser's cookies:
        Reflex makes a new one when Redis lost or expired the old (a restart, an idle
        hour), then runs the page's on_load before the browser sends its cookies again.
        There is nothing of the browser's to clear then.
        """
        if self.access_token:
            self._clear_tokens()
        else:
            self.signed_in, self.user_email, self.is_admin = False, "", False

    def _clear_tokens(self) -> None:
        """Forget the session in this tab and the browser's access token (the binding of
        the browser's key, on the server, is ended by signing out)."""
        self.access_token = ""
        self.signed_in = False
        self.user_email = ""
        self.is_admin = False

    def _sign_in_redirect(self, path: str | None = None):
        """Send a signed-out visitor to /auth, coming back to ``path`` afterwards."""
        target = (path or self.router.url.path or "/").rstrip("/") or "/"
        return rx.redirect(f"{routes.AUTH}?next={quote(target, safe='/')}")

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
            return [rx.toast.error(denied_text), rx.redirect(routes.HOME)]
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
        """Sign out this browser's session and go to /auth."""
        if self._from_own_browser():
            with guarded("Sign-out", messages.FAILED_TO_SIGN_OUT, refusals=False) as call:
                await run_in_session(service.sign_out_browser, self._browser_key, self.access_token)
            if call.failed:
                return call.toast
        self._clear_tokens()
        return [rx.toast.success(messages.SIGNED_OUT), rx.redirect(routes.AUTH)]
