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

import json
import logging
import secrets
from typing import Any
from urllib.parse import quote

import reflex as rx
from reflex.event import Event
from reflex.middleware import Middleware
from reflex.state import BaseState, State, StateUpdate, UpdateVarsInternalState
from reflex_base.registry import RegistrationContext

from prettyscore.accounts import service
from prettyscore.accounts.service import CurrentUser, SessionTokens
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.core.media import MediaOwner
from prettyscore.core.settings import get_settings
from prettyscore.ui.guarded import guarded
from prettyscore.web.browser_key import RENEW_PATH, browser_key_from, replacement
from prettyscore.web.event_arguments import takes_upload
from prettyscore.web.upload_owner import key_of_upload_to

log = logging.getLogger(__name__)

#: The id of the toasts about signing in: the notice that sent a visitor to sign in
#: ("Sign in to save your photos!") is replaced by the one that welcomes them back,
#: instead of both standing over the page they return to.
SESSION_TOAST = "session"

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
    # does not present it is never treated as this tab's member, nor shown the tab.
    _browser_key: str = ""
    # The key this tab's socket presented when signing in or out here replaced it: the
    # socket keeps presenting it until it reconnects, with the new key. Only that socket
    # (``_replaced_on_socket``, its session id, which the server gives) may present it:
    # whoever else holds the old key (a key planted in the browser before the member
    # signed in) opens nothing with it.
    _replaced_browser_key: str = ""
    _replaced_on_socket: str = ""

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
        if not await self._serve_only_own_browser():
            self._clear_tokens()  # a socket without a key of ours gets nobody
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
        (the first event binds the state to its browser's key), or, until the socket
        reconnects, the key that signing in or out in this tab replaced."""
        seen = browser_key_from(self.router.headers.cookie)
        if not seen:
            return False
        if not self._browser_key:
            self._browser_key = seen
        if secrets.compare_digest(self._browser_key, seen):
            self._replaced_browser_key = ""
            return True
        replaced = self._replaced_browser_key
        return (
            bool(replaced)
            and self.router.session.session_id == self._replaced_on_socket
            and secrets.compare_digest(replaced, seen)
        )

    def _upload_from_own_browser(self) -> bool:
        """Whether the upload now running for this tab (``web.upload_owner``) presented the
        key of the browser this state serves. An upload names its tab by the token alone
        and carries no router data of its own, so the socket's cookie says nothing of it;
        only the current key counts (the replaced one stays on its socket)."""
        presented = key_of_upload_to(self.router.session.client_token)
        return bool(presented and self._browser_key) and secrets.compare_digest(
            self._browser_key, presented
        )

    async def _serve_only_own_browser(self) -> bool:
        """Whether this event's socket is the browser this tab's state serves. A state
        serving another browser first drops everything it holds, in every state of the
        tab, and then serves the socket's browser, as a new tab would: the token of a
        closed tab, used from elsewhere, reads nothing of its member."""
        if self._from_own_browser():
            return True
        if self._browser_key:
            await self._forget_tab()
        return self._from_own_browser()

    async def _forget_tab(self, *, keep_browser_storage: bool = False) -> None:
        """Drop what this tab's state holds (the member, photos, results, chats,
        requests...): every state of the tab goes back to its defaults. With
        ``keep_browser_storage``, the values of the browser's own cookies and storage
        (its remembered email, its unsaved photos' key) are kept: it is the same
        browser."""
        tab = self._tab_state()
        await _load_substates(tab)
        kept = _browser_storage(tab) if keep_browser_storage else []
        tab.reset()
        for state, name, value in kept:
            setattr(state, name, value)

    def _tab_state(self) -> AuthState:
        """The tab's ``AuthState``, parent of the states that hold a member's data."""
        state: BaseState = self
        while isinstance(state.parent_state, AuthState):
            state = state.parent_state
        return state  # type: ignore[return-value]

    async def _sign_in(self, tokens: SessionTokens) -> list:
        """Sign this browser in to a new session, under a new key: the refresh token is
        bound to the new key on the server, the key the browser held before opens
        nothing any more, and the access token is kept in the browser. Returns the
        event that hands the new key to the browser. Nothing is applied for a socket
        that does not present the key of the browser this state serves."""
        if not self._from_own_browser():
            return []
        new_key, ticket = replacement(self._browser_key)
        await run_in_session(
            service.sign_in_browser, self._browser_key, new_key, tokens.refresh_token
        )
        self._show_tokens(tokens)
        return [self._hand_over_key(new_key, ticket)]

    def _hand_over_key(self, new_key: str, ticket: str):
        """Serve the browser under ``new_key`` from now on, and have the browser fetch its
        cookie with ``ticket`` (web.browser_key). This tab's socket presents the key it
        replaced until it reconnects."""
        self._replaced_browser_key = browser_key_from(self.router.headers.cookie)
        self._replaced_on_socket = self.router.session.session_id
        self._browser_key = new_key
        return rx.call_script(_fetch_key_script(ticket))

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
        """Sign out this browser's session, drop all this tab holds of the member, give
        the browser a new key and go to /auth."""
        signed_out = [rx.toast.success(messages.SIGNED_OUT), rx.redirect(routes.AUTH)]
        if not await self._serve_only_own_browser():
            await self._forget_tab()
            return signed_out
        new_key, ticket = replacement(self._browser_key)
        with guarded("Sign-out", messages.FAILED_TO_SIGN_OUT, refusals=False) as call:
            await run_in_session(
                service.sign_out_browser, self._browser_key, self.access_token, new_key
            )
        if call.failed:
            return call.toast
        await self._forget_tab(keep_browser_storage=True)
        self._clear_tokens()
        return [self._hand_over_key(new_key, ticket), *signed_out]


def _fetch_key_script(ticket: str) -> str:
    """Script: hand ``ticket`` to the server, whose answer sets the browser's new key."""
    return (
        f"fetch({json.dumps(RENEW_PATH)},{{method:'POST',body:{json.dumps(ticket)},"
        "credentials:'same-origin',keepalive:true}).catch(function(){})"
    )


async def _load_substates(state: BaseState) -> None:
    """Load every state under ``state`` (with Redis, an event loads only its own)."""
    for substate_class in state.get_substates():
        substate = state.substates.get(substate_class.get_name())
        if substate is None:
            substate = await state.get_state(substate_class)
        await _load_substates(substate)


def _browser_storage(state: BaseState) -> list[tuple[BaseState, str, Any]]:
    """The values of the browser's cookies and storage that ``state`` and the states
    under it mirror: (state, var, value)."""
    fields = state.get_fields()
    found = [
        (state, name, getattr(state, name))
        for name in state.base_vars
        if state._is_client_storage(fields[name])
    ]
    for substate in state.substates.values():
        found += _browser_storage(substate)
    return found


def _shows_tab_state(event: Event) -> bool:
    """Whether the event reads or writes the tab's own state: the hydrate (Reflex's
    root state, which sends all of it), the client storage it writes, and the events of
    ``AuthState`` and the states under it."""
    registered = RegistrationContext.get().event_handlers.get(event.name)
    if registered is None or not registered.states:
        return False
    owner = registered.states[0]
    return owner is State or issubclass(owner, AuthState | UpdateVarsInternalState)


class TabsServeTheirBrowser(Middleware):
    """Before any handler runs, a tab's state serves only its own browser
    (``AuthState._serve_only_own_browser``): Reflex answers a hydrate with the whole
    stored state, before any handler of ours could check who is asking."""

    async def preprocess(self, app: Any, state: BaseState, event: Event) -> StateUpdate | None:
        if not _shows_tab_state(event):
            return None
        auth = await state.get_state(AuthState)
        if _is_upload(event):
            if auth._upload_from_own_browser():
                return None
            log.warning("Refused an upload from a browser its tab does not serve")
            return StateUpdate()  # the handler does not run; nothing is sent back
        await auth._serve_only_own_browser()
        return None


def _is_upload(event: Event) -> bool:
    """Whether the event is an upload's (``POST /_upload``): it brings no router data of
    its own, as every event from the socket does, and names a handler that takes files."""
    return not event.router_data and takes_upload(event.name)


def serve_tabs_to_their_browser(app: rx.App) -> None:
    """Show each tab's state only to the browser it serves (``TabsServeTheirBrowser``)."""
    app.add_middleware(TabsServeTheirBrowser())
