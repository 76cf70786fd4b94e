"""Every event handler's arguments are checked against its annotations before it runs.

Why: Reflex turns every public method of a state into an event a browser may send, and
a forged websocket event can put any JSON value in any argument. Reflex converts a few
of them for the handler's annotations (a form's entries into a dict, a numeric string
into an int, an upload's parts into ``rx.UploadFile`` objects) and passes everything
else on as it came. So a ``None`` where the sign-in form's dict belongs crashed the
handler halfway, a number where the editor's file list belongs crashed the upload, and a
null chat message was once stored as the text 'None'. A check written into each handler
is forgotten in the next one; this module checks every handler of every app state in
one place, against the annotations the handler already has, with pydantic (which Reflex
itself depends on).

How: one Reflex app middleware (``app.add_middleware``; ``guard_event_arguments``).
Reflex runs a middleware's ``preprocess`` for every event before the handler is called
(foreground, background, upload and chained events alike), with the state locked. The
guard rebuilds the arguments exactly as Reflex is about to hand them over (with Reflex's
own conversion of the payload, ``_prepare_event_payload``: private, so a Reflex upgrade
that moves it fails at import, not quietly), validates them with a pydantic model made
once per handler from its signature, and then:

* good arguments: the validated values replace the payload's, so the handler receives
  its annotated types (pydantic's lax mode: an integral float for an ``int`` becomes
  that int, ``"true"`` for a ``bool`` becomes True); nothing else changes;
* a bad one (the wrong type, ``None`` where ``None`` is not allowed, a missing required
  argument, an argument the handler does not have): the handler does not run and no
  state changes; a warning names the handler and what was wrong (types and places,
  never the values, which may be a password), and the browser gets the generic error
  toast, as for any other failed event.

Lax mode never turns a number or a list into text, text into a list or a dict, or
``None`` into anything: those are the forgeries that crashed handlers.

So annotations are the contract. Annotate a form of text fields ``dict[str, str]`` (a
number or a list in a field is then refused too); a form whose controls with an ``id``
contribute their own values (a checkbox's bool, or null) a TypedDict or ``dict``;
``... | None = None`` when the same handler is also called without one; an
upload's ``list[rx.UploadFile]``; a drop zone's refusals ``list[str]``. A TypedDict form
comes from ``typing_extensions`` (pydantic cannot read ``typing.TypedDict`` before
Python 3.12). An argument without an annotation is not checked. Reflex's own internal
states (hydration, client storage, frontend error reports) are left to Reflex.
"""

from __future__ import annotations

import functools
import inspect
import logging
from dataclasses import dataclass
from typing import Any

import reflex as rx
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from reflex.event import Event
from reflex.middleware import Middleware
from reflex.state import BaseState, StateUpdate
from reflex_base.event.processor.base_state_processor import _prepare_event_payload
from reflex_base.registry import RegisteredEventHandler, RegistrationContext
from reflex_base.utils import types as reflex_types

from prettyscore.core import messages

log = logging.getLogger(__name__)

#: Modules of Reflex's own states: their events are Reflex's business, not ours.
REFLEX_PACKAGE_PREFIX = "reflex"

_CONFIG = ConfigDict(arbitrary_types_allowed=True, extra="forbid")


class RefusedArguments(Exception):
    """An event's arguments do not match its handler's annotations."""

    def __init__(self, handler: str, problems: list[str]):
        super().__init__(f"{handler}: {'; '.join(problems)}")
        self.handler = handler
        self.problems = problems


@dataclass(frozen=True)
class HandlerArguments:
    """The arguments one handler takes, as a pydantic model (one field per argument)."""

    qualname: str
    model: type[BaseModel]
    #: argument name -> the model's field name (an argument may be called ``json``,
    #: ``copy`` or ``_x``; the model's fields are ``a0, a1, ...`` aliased to them).
    fields: dict[str, str]

    def check(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The validated arguments (only those given), or ``RefusedArguments``."""
        try:
            checked = self.model.model_validate(arguments)
        except ValidationError as error:
            raise RefusedArguments(self.qualname, _problems(error)) from None
        return {name: getattr(checked, self.fields[name]) for name in arguments}


def _problems(error: ValidationError) -> list[str]:
    """What was wrong, without the values: ``form: dict_type``."""
    return [
        f"{'.'.join(str(part) for part in item['loc']) or '(arguments)'}: {item['type']}"
        for item in error.errors(include_input=False, include_url=False)
    ]


def handler_arguments(handler: Any) -> HandlerArguments | None:
    """The argument model of an ``rx.event`` handler (None when it takes no arguments).

    Raises pydantic's error for an annotation it cannot check: fix the annotation.
    """
    return _handler_arguments(handler.fn)


@functools.cache
def _handler_arguments(fn: Any) -> HandlerArguments | None:
    parameters = list(inspect.signature(fn).parameters.values())[1:]  # after the state
    if not parameters:
        return None
    target = fn.func if isinstance(fn, functools.partial) else fn
    hints = reflex_types.get_type_hints(target)
    definitions: dict[str, Any] = {}
    fields: dict[str, str] = {}
    extra = "forbid"
    for index, parameter in enumerate(parameters):
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            extra = "allow"
            continue
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        field = f"a{index}"
        fields[parameter.name] = field
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        definitions[field] = (
            hints.get(parameter.name, Any),
            Field(default, alias=parameter.name),
        )
    qualname = getattr(target, "__qualname__", repr(target))
    model = create_model(
        f"Arguments of {qualname}",
        __config__=ConfigDict(**{**_CONFIG, "extra": extra}),
        **definitions,
    )
    return HandlerArguments(qualname=qualname, model=model, fields=fields)


def is_app_state(state: type[BaseState]) -> bool:
    """True for the app's states (not Reflex's own internal ones)."""
    return not state.__module__.startswith(REFLEX_PACKAGE_PREFIX)


class EventArgumentGuard(Middleware):
    """Refuses an event whose arguments do not match its handler's annotations."""

    async def preprocess(self, app: Any, state: BaseState, event: Event) -> StateUpdate | None:
        registered = RegistrationContext.get().event_handlers.get(event.name)
        if registered is None or not _guarded(registered):
            return None
        handler = registered.handler
        try:
            arguments = handler_arguments(handler)
            if arguments is None:
                if event.payload:
                    raise RefusedArguments(
                        handler.fn.__qualname__, [f"{name}: unexpected" for name in event.payload]
                    )
                return None
            # What Reflex is about to pass (its form and string conversions), checked.
            checked = arguments.check(_prepare_event_payload(handler, event.payload))
        except RefusedArguments as refused:
            log.warning("Refused an event with bad arguments: %s", refused)
            return _refusal()
        except Exception:
            log.exception("Could not check the arguments of %s", event.name)
            return _refusal()
        event.payload.update(checked)
        return None


def _guarded(registered: RegisteredEventHandler) -> bool:
    return bool(registered.states) and is_app_state(registered.states[0])


def _refusal() -> StateUpdate:
    return StateUpdate(events=Event.from_event_type(rx.toast.error(messages.UNEXPECTED_ERROR)))


def guard_event_arguments(app: rx.App) -> None:
    """Check every event's arguments against its handler's annotations (module docstring)."""
    app.add_middleware(EventArgumentGuard())
