"""Calling Reflex event handlers directly, as a forged websocket event would, and
reading what they send back: toasts and redirects."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import secrets
from dataclasses import dataclass

from reflex.istate.data import HeaderData, RouterData
from reflex.state import BaseState
from sqlalchemy import delete

from prettyscore.accounts import service, tokens
from prettyscore.accounts.models import BrowserSession
from prettyscore.accounts.service import SessionTokens
from prettyscore.core.db import session_scope
from prettyscore.web.browser_key import BROWSER_COOKIE, browser_key_from

_TOAST = re.compile(r'\["(error|success|info)"\]\(("(?:[^"\\]|\\.)*")')


@dataclass(frozen=True)
class Reply:
    """What a handler sent back to the browser."""

    toasts: list[tuple[str, str]]  # (kind, text)
    redirects: list[str]


def flatten(items) -> list:
    flat = []
    for item in items:
        if isinstance(item, list | tuple):
            flat.extend(flatten(item))
        elif item is not None:
            flat.append(item)
    return flat


def _reply(events) -> Reply:
    toasts, redirects = [], []
    for event in flatten(events):
        named = {str(name): value for name, value in event.args}
        if "path" in named and "external" in named:  # rx.redirect
            redirects.append(named["path"]._var_value)
        else:
            for arg in event.args:
                match = _TOAST.search(str(arg[1]))
                if match:
                    toasts.append((match.group(1), json.loads(match.group(2))))
    return Reply(toasts=toasts, redirects=redirects)


#: The browser key the test browser's socket presents (web.browser_key).
BROWSER_HEADERS = HeaderData(cookie=f"{BROWSER_COOKIE}=the-test-browser")


def a_browser() -> HeaderData:
    """The socket headers of a browser of its own: a new key, signed in to nothing."""
    return HeaderData(cookie=f"{BROWSER_COOKIE}=test-browser-{secrets.token_urlsafe(12)}")


def hold_session(state: BaseState, session: SessionTokens | None) -> BaseState:
    """The state's browser holds ``session`` as after signing in (None: signed out): the
    access token in its cookie, the refresh token bound on the server to the browser's
    key. Uses the app's own database (the ``app_database`` fixture)."""
    key = browser_key_from(state.router.headers.cookie)
    with session_scope() as db:
        if session is None:
            key_hash = tokens.hash_secret(key)
            db.execute(delete(BrowserSession).where(BrowserSession.key_hash == key_hash))
        else:
            service.bind_browser(db, key, session.refresh_token)
    state.access_token = session.access_token if session is not None else ""
    return state


def as_user(state_class: type[BaseState], session: SessionTokens | None) -> BaseState:
    """A fresh state of ``state_class`` in a browser of its own, signed in to ``session``
    (None: signed out)."""
    state = state_class()
    state.router = RouterData(headers=a_browser())
    return hold_session(state, session) if session is not None else state


def run_handler(state: BaseState, handler: str, *args) -> list:
    """Run the event handler ``handler`` of ``state`` with ``args`` to its end; what it
    returned or yielded, flattened (None left out)."""
    result = getattr(type(state), handler).fn(state, *args)

    async def drive() -> list:
        if inspect.isasyncgen(result):
            return [item async for item in result]
        if inspect.isawaitable(result):
            return [await result]
        return [result]

    return flatten(asyncio.run(drive()))


def call(state: BaseState, handler: str, *args) -> Reply:
    """Run the event handler ``handler`` of ``state`` with ``args`` to its end."""
    return _reply(run_handler(state, handler, *args))
