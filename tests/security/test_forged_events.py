"""Forged event payloads: every event handler, sent arguments of the wrong type.

A browser may send any event over the websocket with any JSON in its arguments. Each
event here goes through Reflex's real event processing (its event processor, with the
app's middleware, state manager and conversions of the payload, as the websocket hands
it over), as the member with the most access (an admin) in a browser holding the tab's
key. For every handler of every app state (found by walking the app, not listed by
hand), each argument in turn gets the values None, 7, [], {}, "x" and a form with a
number in a text field that do not fit its annotation; a handler also gets an argument
it does not take, or none of those it needs. The event must be refused cleanly: no
exception, the generic error toast, no change to the tab's state, and no row changed in
the database.

A few correct events, shaped as the browser sends them (a form's wrapped entries, an
upload's files, a TypedDict form, slider values), still reach their handlers.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import json
import re
import types
import typing
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
import reflex as rx
from PIL import Image
from reflex.event import Event
from reflex.istate.manager.memory import StateManagerMemory
from reflex.istate.manager.token import BaseStateToken
from reflex.state import BaseState, State
from reflex_base.event.processor import BaseStateEventProcessor
from reflex_base.utils.form import FORM_DATA_ENTRIES_KEY
from reflex_base.utils.format import format_event_handler
from reflex_base.utils.types import get_type_hints
from sqlmodel import select
from typing_extensions import is_typeddict

import prettyscore.prettyscore as prettyscore_app
from prettyscore.accounts.form_state import AuthFormState
from prettyscore.accounts.models import User
from prettyscore.accounts.service import SessionTokens
from prettyscore.accounts.state import AuthState
from prettyscore.core import messages
from prettyscore.core.media import LocalMediaStore
from prettyscore.editor.state import EditorState
from prettyscore.partners.models import PartnerAccount
from prettyscore.partners.state import PartnerApplyState
from prettyscore.scoring.state import ScoreState
from prettyscore.web.browser_key import BROWSER_COOKIE, issue_browser_key
from prettyscore.web.event_arguments import handler_arguments
from tests.security.authorisation_world import (
    PASSWORD,
    World,
    build_world,
    changed_tables,
    snapshot,
)

#: The values a forged event puts where they do not belong.
# The last: a form whose field holds a number where its text belongs.
FORGED: list[Any] = [None, 7, [], {}, "x", {"email": 7}]

_TOAST = re.compile(r'\["(error|success|info|warning)"\]\(("(?:[^"\\]|\\.)*")')


# ---------------------------------------------------------------------------
# Which handlers, and what does not fit them
# ---------------------------------------------------------------------------
def _states(parent: type[BaseState]):
    for child in parent.get_substates():
        yield child
        yield from _states(child)


def app_states() -> list[type[BaseState]]:
    return [state for state in _states(rx.State) if not state.__module__.startswith("reflex")]


def parameters(state: type[BaseState], name: str) -> dict[str, Any]:
    """The handler's arguments (after the state) and their annotations."""
    fn = state.event_handlers[name].fn
    hints = get_type_hints(fn)
    found = list(inspect.signature(fn).parameters.values())[1:]
    return {parameter.name: hints.get(parameter.name, Any) for parameter in found}


def handler_required(state: type[BaseState], name: str) -> list[str]:
    """The arguments without a default."""
    found = list(inspect.signature(state.event_handlers[name].fn).parameters.values())[1:]
    return [parameter.name for parameter in found if parameter.default is parameter.empty]


def fits(value: Any, annotation: Any) -> bool:
    """Whether a JSON value is of the kind the annotation asks for (judged here, not by
    the app's guard: None, a number, text, a list or an object)."""
    if annotation is Any:
        return True
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(fits(value, option) for option in typing.get_args(annotation))
    if annotation is type(None):
        return value is None
    kind = origin or annotation
    if is_typeddict(annotation):
        return isinstance(value, dict)
    if isinstance(kind, type) and issubclass(kind, Mapping):
        entries = typing.get_args(annotation)
        return isinstance(value, dict) and (
            len(entries) != 2 or all(fits(entry, entries[1]) for entry in value.values())
        )
    if isinstance(kind, type) and issubclass(kind, Sequence) and kind is not str:
        return isinstance(value, list)
    if annotation is str:
        return isinstance(value, str)
    if annotation is bool:
        return isinstance(value, bool)
    if annotation in (int, float):
        return isinstance(value, int | float) and not isinstance(value, bool)
    raise AssertionError(f"teach fits() about {annotation!r}")


def fitting(annotation: Any) -> Any:
    """A value that fits ``annotation``, for the arguments not being forged."""
    return next(value for value in ["x", {}, [], True, 1, None] if fits(value, annotation))


def forged_events() -> list[tuple[type[BaseState], str, dict[str, Any]]]:
    """(state, handler, payload) with one argument forged, for every handler and argument."""
    cases, seen = [], set()
    for state in app_states():
        for name in sorted(state.event_handlers):
            handler = state.event_handlers[name]
            if handler.fn in seen:
                continue  # an inherited handler is swept once, on its first state
            seen.add(handler.fn)
            arguments = parameters(state, name)
            if not arguments:  # an argument it does not take
                cases.append((state, name, {"forged": 7}))
            elif any(handler_required(state, name)):  # none of those it needs
                cases.append((state, name, {}))
            for forged_name, annotation in arguments.items():
                for value in FORGED:
                    if fits(value, annotation):
                        continue
                    payload = {
                        other: fitting(other_annotation)
                        for other, other_annotation in arguments.items()
                        if other != forged_name
                    }
                    cases.append((state, name, {**payload, forged_name: value}))
    return cases


# ---------------------------------------------------------------------------
# Reflex's event processing, in process
# ---------------------------------------------------------------------------
@dataclass
class Browser:
    """Stands in for Reflex's websocket namespace: what the server sends to a tab."""

    updates: list = field(default_factory=list)

    async def emit_update(self, update, token: str) -> None:
        self.updates.append(update)

    def toasts(self) -> list[tuple[str, str]]:
        found = []
        for update in self.updates:
            for event in update.events:
                for value in event.payload.values():
                    match = _TOAST.search(str(value))
                    if match:
                        found.append((match.group(1), json.loads(match.group(2))))
        return found

    def deltas(self) -> list:
        return [update.delta for update in self.updates if update.delta]

    def frontend_events(self) -> list[str]:
        return [event.name for update in self.updates for event in update.events]


@dataclass
class Tab:
    """One browser tab of a signed-in member, whose events go through Reflex's processor."""

    processor: BaseStateEventProcessor
    browser: Browser
    failures: list[BaseException]
    token: str
    router_data: dict

    async def send(self, state: type[BaseState], name: str, payload: dict) -> None:
        """Send the event as the websocket would and wait for it (and what it chains)."""
        self.browser.updates.clear()
        event = Event(
            name=format_event_handler(state.event_handlers[name]),
            router_data=dict(self.router_data),
            payload=payload,
        )
        future = await self.processor.enqueue(self.token, event)
        try:
            await asyncio.wait_for(future.wait_all(), timeout=60)
        except Exception as error:
            self.failures.append(error)
        await asyncio.sleep(0)  # let the backend exception handler's task run


def router_data(token: str, path: str = "/") -> dict:
    return {
        "pathname": path,
        "query": {},
        "token": token,
        "sid": f"sid-{token}",
        "headers": {"cookie": f"{BROWSER_COOKIE}={issue_browser_key()}", "user-agent": "pytest"},
        "ip": "127.0.0.1",
    }


async def open_tab(
    processor: BaseStateEventProcessor,
    browser: Browser,
    failures: list,
    tokens: SessionTokens | None,
) -> Tab:
    """A tab whose state already holds the route and, if given, the member's session."""
    token = str(uuid.uuid4())
    data = router_data(token)
    async with processor._root_context.state_manager.modify_state(
        BaseStateToken(ident=token, cls=State)
    ) as root:
        root.router_data = data
        root.router = rx.istate.data.RouterData.from_router_data(data)
        auth = await root.get_state(AuthState)
        if tokens is not None:  # signed in (the access token is fresh: no renewal)
            auth.access_token = tokens.access_token
        root._clean()
    return Tab(processor, browser, failures, token, data)


class Reflex:
    """The app's event processing (its middleware and exception handler), running."""

    def __init__(self):
        self.browser = Browser()
        self.failures: list[BaseException] = []

        def backend_exception_handler(exception: Exception):
            self.failures.append(exception)
            return prettyscore_app.app.backend_exception_handler(exception)

        self.processor = BaseStateEventProcessor(
            middleware=prettyscore_app.app,
            backend_exception_handler=backend_exception_handler,
        )
        self.processor.configure(state_manager=StateManagerMemory(), event_namespace=self.browser)

    async def __aenter__(self) -> Reflex:
        await self.processor.start()
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.processor.stop()

    async def tab(self, tokens: SessionTokens | None) -> Tab:
        return await open_tab(self.processor, self.browser, self.failures, tokens)


@pytest.fixture
def world(api, api_server, db) -> World:
    return build_world(db, LocalMediaStore(api_server.media_dir))


# ---------------------------------------------------------------------------
# The sweep
# ---------------------------------------------------------------------------
CASES = forged_events()


def test_the_sweep_covers_the_handlers_named_in_the_report():
    swept = {(state.__name__, name) for state, name, _ in CASES}
    for named in [
        ("AuthFormState", "submit_sign_in"),
        ("AuthFormState", "submit_sign_up"),
        ("ForgotPasswordState", "submit"),
        ("ScoreState", "join_leaderboard"),
        ("ScoreState", "submit_custom_edit"),
        ("ScoreState", "reject_drop"),
        ("EditorState", "upload"),
        ("EditorState", "apply_sliders"),
        ("EditorState", "download"),
        ("VerificationAdminState", "set_note"),
        ("ChatState", "send"),
    ]:
        assert named in swept, named
    assert len(CASES) > 250


def test_the_text_forms_are_swept_with_a_number_in_a_field():
    """Forms of text fields are annotated so: a number where an email belongs is refused
    like any other forgery, not handed to the handler."""
    number_in_a_field = {
        (state.__name__, name)
        for state, name, payload in CASES
        if any(value == FORGED[-1] for value in payload.values())
    }
    for form in [
        ("AuthFormState", "submit_sign_in"),
        ("AuthFormState", "submit_sign_up"),
        ("AuthFormState", "submit_second_step"),
        ("ForgotPasswordState", "submit"),
        ("ResetPasswordState", "submit"),
        ("SecurityState", "start_enrolment"),
        ("SecurityState", "confirm_enrolment"),
        ("ScoreState", "join_leaderboard"),
        ("ScoreState", "submit_custom_edit"),
        ("PhotoEditorState", "submit_custom_edit"),
    ]:
        assert form in number_in_a_field, form


def test_every_handler_s_annotations_can_be_checked():
    """An annotation pydantic cannot read would refuse every event of its handler."""
    unreadable = []
    for state in app_states():
        for name, handler in state.event_handlers.items():
            try:
                handler_arguments(handler)
            except Exception as error:
                unreadable.append(f"{state.__name__}.{name}: {error}")
    assert unreadable == []


def test_every_handler_refuses_arguments_of_the_wrong_type_and_changes_nothing(db, world):
    before = snapshot(db)
    problems: list[str] = []

    async def sweep() -> None:
        async with Reflex() as reflex:
            for state, name, payload in CASES:
                tab = await reflex.tab(world.admin.tokens)
                await tab.send(state, name, payload)
                what = f"{state.__name__}.{name}({payload!r})"
                if reflex.failures:
                    problems.append(f"{what} raised {reflex.failures!r}")
                    reflex.failures.clear()
                elif ("error", messages.UNEXPECTED_ERROR) not in reflex.browser.toasts():
                    problems.append(f"{what} ran: {reflex.browser.toasts()}")
                elif reflex.browser.deltas():
                    problems.append(f"{what} changed the tab's state")

    asyncio.run(sweep())
    assert problems == [], "\n".join(problems)
    assert changed_tables(before, snapshot(db)) == []


def test_a_forged_chat_message_stores_nothing(db, world):
    """The reported case: a null (or any non-text) message is refused, not stored."""
    from prettyscore.chat.models import Message
    from prettyscore.chat.state import ChatState

    async def forge() -> list:
        async with Reflex() as reflex:
            tab = await reflex.tab(world.member.tokens)
            for value in (None, 7, [], "x"):
                await tab.send(ChatState, "send", {"form_data": value})
            return reflex.failures

    assert asyncio.run(forge()) == []
    assert db.exec(select(Message)).all() == []


def test_a_refusal_is_logged_by_handler_and_problem_without_the_values(db, world, caplog):
    """What a forged event carried may be a password: the log says where it was wrong."""
    secret = "hunter2-not-for-the-log"

    async def forge() -> list:
        async with Reflex() as reflex:
            tab = await reflex.tab(None)
            await tab.send(AuthFormState, "submit_sign_in", {"form": secret})
            return reflex.failures

    with caplog.at_level("WARNING", logger="prettyscore.web.event_arguments"):
        assert asyncio.run(forge()) == []
    (record,) = [r for r in caplog.records if r.name == "prettyscore.web.event_arguments"]
    assert record.levelname == "WARNING"
    assert "AuthFormState.submit_sign_in" in record.getMessage()
    assert "form: dict_type" in record.getMessage()
    assert secret not in caplog.text


# ---------------------------------------------------------------------------
# Real events still pass
# ---------------------------------------------------------------------------
def form(**fields: str) -> dict:
    """A form's fields as the browser's ``getFormData`` sends them."""
    return {FORM_DATA_ENTRIES_KEY: [[name, value] for name, value in fields.items()]}


def jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (96, 96), (200, 120, 140)).save(buffer, format="JPEG")
    return buffer.getvalue()


def test_correct_events_still_reach_their_handlers(db, world):
    email = db.get(User, world.member.user_id).email

    async def browse() -> dict:
        seen = {}
        async with Reflex() as reflex:
            visitor = await reflex.tab(None)
            await visitor.send(
                AuthFormState, "submit_sign_in", {"form": form(email=email, password=PASSWORD)}
            )
            seen["sign_in"] = (reflex.browser.toasts(), reflex.browser.frontend_events())

            member = await reflex.tab(world.member.tokens)
            await member.send(ScoreState, "reject_drop", {"error_codes": ["file-too-large"]})
            seen["reject_drop"] = reflex.browser.toasts()

            await member.send(
                EditorState,
                "apply_sliders",
                {"adjustments": {"brightness": 120.5, "contrast": 100, "blur": 0.5}},
            )
            seen["apply_sliders"] = reflex.browser.toasts()

            upload = rx.UploadFile(file=io.BytesIO(jpeg()), path=None, size=None)
            await member.send(EditorState, "upload", {"files": [upload]})
            seen["upload"] = (reflex.browser.toasts(), reflex.browser.deltas())

            stranger = await reflex.tab(world.stranger.tokens)
            await stranger.send(
                PartnerApplyState,
                "submit",
                {"form_data": form(display_name="Stranger Things", short_code="STRANGE1")},
            )
            seen["partner"] = reflex.browser.toasts()
            seen["failures"] = list(reflex.failures)
        return seen

    seen = asyncio.run(browse())
    generic = ("error", messages.UNEXPECTED_ERROR)
    assert seen["failures"] == []

    toasts, frontend = seen["sign_in"]
    assert generic not in toasts and ("success", messages.WELCOME_BACK) in toasts, seen

    assert seen["reject_drop"] == [("error", messages.FILE_TOO_LARGE)]
    # No photo yet: the handler itself answers, so the slider values (floats) passed.
    assert seen["apply_sliders"] == [("error", messages.PLEASE_UPLOAD_IMAGE_FIRST)]

    toasts, deltas = seen["upload"]
    assert generic not in toasts and deltas, seen["upload"]

    assert generic not in seen["partner"]
    db.rollback()
    applied = db.exec(
        select(PartnerAccount).where(PartnerAccount.user_id == world.stranger.user_id)
    ).one()
    assert applied.display_name == "Stranger Things"
