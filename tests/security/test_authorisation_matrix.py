"""The authorisation matrix of the pages' event handlers and on_load guards.

Every Reflex event handler and every page the app registers is found by walking the app
(not listed by hand) and must appear in ``authorisation_table``; each is then called in
process, as a forged websocket event would call it, by the actors the table refuses
(visitor, member, stranger, requester, partner, premium member) and by one it allows.
A refused call gets the documented refusal and changes no product data.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
import reflex as rx
from reflex.event import EventHandler
from reflex.istate.data import PageData, RouterData, SessionData
from reflex.state import BaseState

import prettyscore.prettyscore as prettyscore_app
from prettyscore.accounts.state import AuthState
from prettyscore.core.media import LocalMediaStore
from tests.fixtures.handlers import Reply, _reply, a_browser, hold_session, run_handler
from tests.security.authorisation_table import (
    ADMINS,
    CONTESTANT,
    EVERYONE,
    HANDLERS,
    MEMBERS,
    OWNER,
    PAGES,
    QUIET,
    SIGN_IN,
    Rule,
)
from tests.security.authorisation_world import World, build_world, changed_tables, snapshot

#: Reflex's own internal states (hydration, frontend error reports): not ours to classify.
REFLEX_INTERNAL_MODULE = "reflex."
#: Members who are not admins: each is refused the admin handlers.
NON_ADMINS = ("member", "contestant", "partner", "premium")


# ---------------------------------------------------------------------------
# Enumeration
# ---------------------------------------------------------------------------
def _states(parent: type[BaseState]):
    for child in parent.get_substates():
        yield child
        yield from _states(child)


def our_states() -> list[type[BaseState]]:
    return [
        state
        for state in _states(rx.State)
        if not state.__module__.startswith(REFLEX_INTERNAL_MODULE)
    ]


def handler_key(state: type[BaseState], name: str) -> str:
    """``DefiningClass.name``: an inherited handler is classified once, where it is written."""
    if name == "setvar":
        return "State.setvar"
    return f"{state.event_handlers[name].fn.__qualname__.split('.')[0]}.{name}"


def enumerated_handlers() -> dict[str, type[BaseState]]:
    """Every handler key and a state class that has it (the defining class when ours)."""
    found: dict[str, type[BaseState]] = {}
    for state in our_states():
        for name in state.event_handlers:
            key = handler_key(state, name)
            if key.split(".")[0] == state.__name__ or key not in found:
                found[key] = state
    return found


def enumerated_pages() -> set[str]:
    return set(prettyscore_app.app._unevaluated_pages)


STATES = enumerated_handlers()
STATES["State.setvar"] = AuthState  # forged: a client setting the admin flag it is shown


def test_every_event_handler_is_in_the_access_table():
    found, table = set(STATES), set(HANDLERS)
    assert sorted(found - table) == [], "classify these handlers in authorisation_table.py"
    assert sorted(table - found) == [], "these handlers no longer exist"
    assert len(found) > 150


def test_every_page_is_in_the_access_table():
    found, table = enumerated_pages(), set(PAGES)
    assert sorted(found - table) == [], "classify these pages in authorisation_table.py"
    assert sorted(table - found) == [], "these pages no longer exist"


# ---------------------------------------------------------------------------
# The harness
# ---------------------------------------------------------------------------
@pytest.fixture
def world(api, api_server, db) -> World:
    world = build_world(db, LocalMediaStore(api_server.media_dir))
    return world


def state_for(state_class: type[BaseState], world: World, actor: str, rule: Rule) -> BaseState:
    """A fresh state of ``state_class`` in the actor's browser, on the rule's page, with the
    public vars a forged client may set."""
    state = state_class()
    url, params = rule.route(world)
    state.router = RouterData(
        session=SessionData(client_ip="127.0.0.1"),
        headers=a_browser(),
        _page=PageData(path=urlsplit(url).path, params=params),
        url=rx.istate.data.ReflexURL(f"http://localhost{url}") if url else state.router.url,
    )
    tokens = world.actor(actor).tokens
    if tokens is not None:
        hold_session(state, tokens)
    for name, value in rule.vars(world).items():
        setattr(state, name, value)
    return state


def call(state: BaseState, handler: str, *args) -> Reply:
    """Run ``handler`` to its end (tests/fixtures/handlers.py); chained events (an
    EventHandler returned to run next) are left out of the reply."""
    sent = run_handler(state, handler, *args)
    return _reply([item for item in sent if not isinstance(item, EventHandler)])


def run(key: str, world: World, actor: str) -> Reply:
    rule = HANDLERS[key]
    state = state_for(STATES[key], world, actor, rule)
    return call(state, key.split(".")[1], *rule.args(world))


def sent_to_sign_in(reply: Reply) -> bool:
    return any(urlsplit(path).path == "/auth" for path in reply.redirects)


def successes(reply: Reply) -> list[str]:
    return [text for kind, text in reply.toasts if kind == "success"]


def assert_unchanged(db, before, what: str) -> None:
    assert changed_tables(before, snapshot(db)) == [], what


# ---------------------------------------------------------------------------
# Cells: (handler, actor, expectation)
# ---------------------------------------------------------------------------
def cells_of(key: str, rule: Rule) -> list[tuple[str, str]]:
    """The refused actors first, then one allowed actor (it may change the world)."""
    if rule.access == EVERYONE:
        return [("visitor", "open")]
    if rule.access == MEMBERS:
        return [("visitor", "sign_in"), ("member", "allowed")]
    if rule.access == ADMINS:
        refused = [("visitor", "sign_in")] + [(name, "denied") for name in NON_ADMINS]
        return refused + [("admin", "allowed")]
    if rule.access == OWNER:
        return [("visitor", "sign_in"), ("stranger", "not_yours"), ("member", "allowed")]
    if rule.access == CONTESTANT:
        refused = [("visitor", "sign_in"), ("member", "not_yours"), ("stranger", "not_yours")]
        return refused + [("contestant", "allowed")]
    raise AssertionError(f"unknown access {rule.access!r} for {key}")


HANDLER_CASES = [
    pytest.param(key, marks=pytest.mark.skip(reason=rule.skip)) if rule.skip else key
    for key, rule in sorted(HANDLERS.items())
]


def check_cell(db, world: World, key: str, actor: str, expectation: str) -> None:
    rule = HANDLERS[key]
    before = snapshot(db)
    if rule.raises is not None:
        with pytest.raises(rule.raises):
            run(key, world, actor)
        assert_unchanged(db, before, key)
        return
    reply = run(key, world, actor)
    where = f"{key} as {actor}: {reply}"
    if expectation == "open":
        if not rule.writes:
            assert_unchanged(db, before, where)
        return
    if expectation == "sign_in":
        if rule.visitor == SIGN_IN:
            assert sent_to_sign_in(reply), where
        elif rule.visitor != QUIET:
            assert ("error", rule.visitor) in reply.toasts, where
        assert successes(reply) == [], where
        assert_unchanged(db, before, where)
    elif expectation == "denied":
        if rule.refusal == QUIET:
            assert reply.toasts == [] and reply.redirects == [], where
        else:
            assert ("error", rule.refusal) in reply.toasts, where
            assert ("/" in reply.redirects) == rule.home, where
        assert_unchanged(db, before, where)
    elif expectation == "not_yours":
        assert successes(reply) == [], where
        assert not any(path.startswith("/messages/") for path in reply.redirects), where
        assert_unchanged(db, before, where)
    elif expectation == "allowed":
        assert not sent_to_sign_in(reply), where
        assert not any(text in (rule.refusal,) for _, text in reply.toasts if rule.refusal), where


@pytest.mark.parametrize("key", HANDLER_CASES)
def test_handler_refuses_whom_the_documents_refuse_and_changes_nothing(db, world, key):
    for actor, expectation in cells_of(key, HANDLERS[key]):
        check_cell(db, world, key, actor, expectation)


# ---------------------------------------------------------------------------
# Pages: the on_load guard of each protected page
# ---------------------------------------------------------------------------
def on_load_handlers(route: str) -> list:
    found = prettyscore_app.app._unevaluated_pages[route].on_load
    found = found if isinstance(found, list) else [found]
    return [
        getattr(item, "handler", item)
        for item in found
        if hasattr(item, "fn") or hasattr(item, "handler")
    ]


def guard_reply(route: str, world: World, actor: str) -> Reply:
    """The first on_load handler of ``route`` run for ``actor`` (it is the page's guard)."""
    handler = on_load_handlers(route)[0]
    state_class = handler.state if getattr(handler, "state", None) else AuthState
    name = handler.fn.__name__
    owner = next(
        s
        for s in our_states()
        if name in s.event_handlers and handler.fn is s.event_handlers[name].fn
    )
    state = state_for(owner, world, actor, Rule(EVERYONE))
    args = {"feet-upload": ("feet",)}.get(route, ())
    del state_class
    return call(state, name, *args)


PROTECTED_PAGES = sorted(route for route, page in PAGES.items() if page.access != EVERYONE)


@pytest.mark.parametrize("route", PROTECTED_PAGES)
def test_a_protected_page_sends_a_visitor_to_sign_in_and_admin_pages_turn_members_away(
    db, world, route
):
    page = PAGES[route]
    before = snapshot(db)
    assert sent_to_sign_in(guard_reply(route, world, "visitor")), route
    if page.access == ADMINS:
        for actor in NON_ADMINS:
            reply = guard_reply(route, world, actor)
            assert ("error", page.refusal) in reply.toasts and "/" in reply.redirects, route
        assert guard_reply(route, world, "admin") == Reply([], [])
    else:
        assert not sent_to_sign_in(guard_reply(route, world, "member")), route
    assert_unchanged(db, before, route)


def test_identity_helpers_of_the_pages_cannot_be_called_from_the_browser():
    """Reflex turns every public method of a state into an event a browser may send;
    the helpers that read or change who is signed in are private, so none of them is."""
    from prettyscore.accounts.state import AuthState

    exposed = set(AuthState.event_handlers)

    assert exposed == {
        "load_session",
        "require_user",
        "require_admin",
        "require_verification_admin",
        "sign_out",
        "setvar",
    }
