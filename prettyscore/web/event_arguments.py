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
states (hydration, client storage) are left to Reflex; its frontend error report is
checked like ours (two texts).

The event's name is checked first, before Reflex looks it up. A forged event may name
anything: a private method (``_apply_tokens``), a handler that does not exist, or
``setvar`` (Reflex's generic setter, which every state has and no page of ours sends).
Reflex ended each of those in a traceback in the log, and ``POST /_upload`` naming a
handler that takes no upload answered 500, without sign-in. So an event whose name is
not one a page can send is refused on the event socket (``refuse_events_no_page_sends``:
nothing runs, one warning line with the name escaped, the generic error toast), and an
upload to a handler that takes none is answered 400 before its body is read
(``refuse_uploads_no_handler_takes``).
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
from reflex.state import BaseState, FrontendEventExceptionState, StateUpdate
from reflex_base.event import resolve_upload_chunk_handler_param, resolve_upload_handler_param
from reflex_base.event.processor.base_state_processor import _prepare_event_payload
from reflex_base.registry import RegisteredEventHandler, RegistrationContext
from reflex_base.utils import types as reflex_types
from reflex_base.utils.exceptions import UploadTypeError, UploadValueError
from starlette.responses import JSONResponse

from prettyscore.core import messages
from prettyscore.core.log_text import loggable
from prettyscore.web.socket_budget import budget_socket_events

log = logging.getLogger(__name__)

#: Modules of Reflex's own states: their events are Reflex's business, not ours.
REFLEX_PACKAGE_PREFIX = "reflex"

_CONFIG = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

#: Reflex's generic setter: every state has it as a handler; no page of ours sends it.
GENERIC_SETTER = "setvar"
UPLOAD_PATH = "/_upload"
UPLOAD_HANDLER_HEADER = b"reflex-event-handler"
#: The longest event name a refusal writes to the log.
MAX_LOGGED_NAME_CHARS = 200


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
            arguments = _arguments_of(registered)
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
    """The app's handlers, and Reflex's one that takes a browser's error report: its
    arguments are the sender's too, and a forged one ended in a traceback."""
    if not registered.states:
        return False
    return is_app_state(registered.states[0]) or _is_error_report(registered)


def _is_error_report(registered: RegisteredEventHandler) -> bool:
    report = FrontendEventExceptionState.event_handlers["handle_frontend_exception"]
    return registered.handler.fn is report.fn


def _error_report_arguments() -> HandlerArguments:
    """A browser's error report: its text, and React's component stack, which a browser
    may leave out (Reflex's annotation says text; only the report's text is used)."""
    model = create_model(
        "Arguments of a browser's error report",
        __config__=_CONFIG,
        a0=(str, Field(..., alias="info")),
        a1=(str | None, Field(None, alias="component_stack")),
    )
    return HandlerArguments(
        qualname="FrontendEventExceptionState.handle_frontend_exception",
        model=model,
        fields={"info": "a0", "component_stack": "a1"},
    )


_ERROR_REPORT = _error_report_arguments()


def _arguments_of(registered: RegisteredEventHandler) -> HandlerArguments | None:
    if _is_error_report(registered):
        return _ERROR_REPORT
    return handler_arguments(registered.handler)


def _refusal() -> StateUpdate:
    return StateUpdate(events=Event.from_event_type(rx.toast.error(messages.UNEXPECTED_ERROR)))


def guard_event_arguments(app: rx.App) -> None:
    """Check every event's arguments against its handler's annotations (module docstring)."""
    app.add_middleware(EventArgumentGuard())


def browser_may_send(name: object) -> bool:
    """Whether ``name`` is the full name of a handler a page can send: registered with
    Reflex (private methods never are) and not the generic setter."""
    if not isinstance(name, str) or name.rsplit(".", 1)[-1] == GENERIC_SETTER:
        return False
    return name in RegistrationContext.get().event_handlers


def refuse_events_no_page_sends(app: rx.App) -> None:
    """Refuse, on the event socket, every event whose name no page sends (module docstring).

    Reflex's socket namespace takes each event in ``on_event`` and looks its name up only
    when the event runs; the check goes in front of ``on_event``. In front of both, each
    socket's budget of events (``web/socket_budget``): a socket that floods is closed.
    """
    namespace = app.event_namespace
    budget_socket_events(namespace)
    take_event = namespace.on_event

    async def on_event(sid: str, data: Any) -> None:
        name = data.get("name") if isinstance(data, dict) else None
        if browser_may_send(name):
            await take_event(sid, data)
            return
        log.warning("Refused an event no page sends: %s", loggable(name, MAX_LOGGED_NAME_CHARS))
        if (token := namespace.sid_to_token.get(sid)) is not None:
            await namespace.emit_update(_refusal(), token)

    namespace.on_event = on_event


def takes_upload(name: str) -> bool:
    """Whether the handler called ``name`` may be sent an upload (Reflex's own test: a
    ``list[rx.UploadFile]`` argument, or a background handler's chunk iterator)."""
    if not browser_may_send(name):
        return False
    handler = RegistrationContext.get().event_handlers[name].handler
    resolve = (
        resolve_upload_chunk_handler_param
        if handler.is_background
        else resolve_upload_handler_param
    )
    try:
        resolve(handler)
    except (UploadTypeError, UploadValueError):
        return False
    return True


def refuse_uploads_no_handler_takes(app: Any) -> Any:
    """Wrap the backend so ``POST /_upload`` to a handler that takes no upload is answered
    400, before its body is read (``rx.App(api_transformer=...)``)."""

    async def checked(scope, receive, send) -> None:
        if scope["type"] == "http" and scope["path"] == UPLOAD_PATH:
            names = [value for key, value in scope["headers"] if key == UPLOAD_HANDLER_HEADER]
            name = names[0].decode("latin-1") if names else None
            if name is not None and not takes_upload(name):
                log.warning("Refused an upload to %s", loggable(name, MAX_LOGGED_NAME_CHARS))
                answer = JSONResponse({"detail": messages.UPLOAD_NOT_TAKEN}, status_code=400)
                await answer(scope, receive, send)
                return
        await app(scope, receive, send)

    return checked
