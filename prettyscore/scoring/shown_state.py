"""A tab's side of ``shown``: the tab and browser a state speaks for, so each results
page (the face's, and each of feet, hands and pets) keeps what it shows where a lost
tab state finds it again."""

from __future__ import annotations

from prettyscore.accounts.state import AuthState
from prettyscore.core.db import run_in_session
from prettyscore.scoring import shown
from prettyscore.ui.guarded import guarded
from prettyscore.web.browser_key import browser_key_from


def _tab(state: AuthState, page: str) -> str:
    """The key of one results page of this tab (the face's has no suffix)."""
    token = state.router.session.client_token
    return f"{token}#{page}" if token and page else token


def _socket_browser_key(state: AuthState) -> str:
    return browser_key_from(state.router.headers.cookie)


async def keep(state: AuthState, shown_value: dict, page: str = "") -> None:
    """Keep ``shown_value`` for this tab's ``page``, to be opened with the socket's
    browser key or the one a sign-in in this tab moved the browser to."""
    keys = (_socket_browser_key(state), state._browser_key)
    with guarded("Keeping a shown result", refusals=False):
        await run_in_session(shown.keep, _tab(state, page), keys, shown_value)


async def find(state: AuthState, page: str = "") -> dict | None:
    """What this tab's ``page`` showed, if its state was lost since; else None."""
    with guarded("Finding a shown result", refusals=False):
        return await run_in_session(shown.find, _tab(state, page), _socket_browser_key(state))
    return None
