"""A button whose action waits on the server: busy from the click, and a way out in
words when no answer comes.

Why: a click travels to the server and the page shows progress only once the server
has answered (``analyzing`` set, an overlay drawn). When that answer is late (the
connection dropped, a worker restarted, the tab's state held elsewhere) the button sat
idle as if the click had been lost, and people click again or leave.

How: the click first sets a flag in the browser (``pending``), so the button turns busy
at once without a round trip. While the flag is set and the server has not yet
acknowledged the work, a notice is mounted that stays invisible for
``NO_ANSWER_SECONDS`` (a setting, 8 s by default; a CSS animation's delay, compiled
into the page: no timer to leak) and then says that the server has not answered, with
"Try again" sending the same action again. The server's handler must make a repeat
harmless, and clears the flag with every outcome (``answered``).

A repeat is harmless by its attempt id: each press carries the page's current id (a
form's hidden field, or the event's ``attempt`` argument), "Try again" before an
answer sends the same id, and the first answer gives the page a new one. The
``answers`` decorator runs an attempt at most once, keeping a digest of the attempts a
state has run in its ``_answered_attempts`` backend var.

A press that went to a worker that died, or over a socket that dropped, is sent again
by the page itself once its socket is back: the reconnect hydrates the page afresh
(``is_hydrated`` goes false, then true), and a wait still unanswered across that sends
its press again with the same attempt id, as "Try again" would. Nobody has to notice
the outage, and a press the server did run is not run twice. Only a press made on a
live page counts: one made while the page was still loading was queued by the page and
goes in its turn, so sending it again would only repeat it.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

import reflex as rx
from reflex.experimental.client_state import ClientStateVar
from reflex.istate.proxy import StateProxy

from prettyscore.core import messages
from prettyscore.core.settings import get_settings

_APPEAR = "ps-no-answer-appear"
_KEYFRAMES = f"@keyframes {_APPEAR} {{ to {{ visibility: visible; opacity: 1; }} }}"


#: The hidden field, and the event argument, that carry a press's attempt id.
ATTEMPT_FIELD = "attempt"
_NEW_ATTEMPT = rx.Var("Math.random().toString(36).slice(2)")
#: How many attempts a state remembers having run (a retry comes within seconds).
REMEMBERED_ATTEMPTS = 8


class ServerWait:
    """The browser's side of one action that waits on the server."""

    def __init__(self, name: str):
        self.name = name
        self.pending = ClientStateVar.create(f"awaiting_{name}", False)
        self.attempt = ClientStateVar.create(f"attempt_{name}", _NEW_ATTEMPT)
        # The arguments of the last press, for "Try again" (``send`` and ``retry``).
        self.sent = ClientStateVar.create(f"sent_{name}", [])
        # Where an unanswered press stands with the page's connection: "" (not yet
        # seen live), "live", or "cut" (the page went back to hydrating since).
        self.link = ClientStateVar.create(f"link_{name}", "")

    def start(self) -> Any:
        """The client-side event that marks the action as sent (put before the action)."""
        return self.pending.set_value(True)

    def send(self, handler: Any, *args: Any) -> list:
        """A button's events: busy at once, then ``handler(*args, attempt)``, the
        arguments kept for ``retry``."""
        return [self.start(), self.sent.set_value(list(args)), handler(*args, self.attempt.value)]

    def retry(self, handler: Any, count: int) -> Any:
        """``handler`` with the last press's ``count`` arguments and its attempt id."""
        kept = [self.sent.value.to(list)[index] for index in range(count)]
        return handler(*kept, self.attempt.value)

    def answered(self) -> list:
        """The server-side events that end the wait and give the page a new attempt."""
        return [
            self.pending.push(False),
            self.link.push(""),
            self.attempt.push(secrets.token_urlsafe(9)),
        ]

    def answering(self, outcome: Any) -> list:
        """A handler's outcome (None, an event or a list of them) with the wait ended."""
        return [*self.answered(), *_as_list(outcome)]

    def answers(self, handler: Callable) -> Callable:
        """Decorate an event handler (plain, async, a generator, or a background task):
        its first update, or its end if it has none, also ends the browser's wait, and
        a press whose attempt was run already is answered without running again."""
        attempt_of = self._attempt_reader(handler)

        @functools.wraps(handler)
        async def run(state, *args, **kwargs):
            attempt, values = attempt_of(args, kwargs)
            if isinstance(attempt, str) and not await _first_run(state, attempt, values):
                # A retry of a press already run (its answer may have been lost on the
                # way): end the wait, and the first run's outcome stands.
                yield self.answered()
                return
            async for update in _first_answers(self, handler(state, *args, **kwargs)):
                yield update

        return run

    def _attempt_reader(self, handler: Callable) -> Callable[[tuple, dict], tuple[Any, Any]]:
        """How a call of ``handler`` carries its attempt: (the id, the values it was
        pressed with). A button's handler takes it as its ``attempt`` argument."""
        return lambda args, kwargs: (kwargs.get(ATTEMPT_FIELD) or "", [args, kwargs])

    def reset(self) -> Any:
        """The client-side events that forget an earlier wait (a page opened afresh)."""
        return [
            self.pending.set_value(False),
            self.link.set_value(""),
            self.attempt.set_value(_NEW_ATTEMPT),
        ]

    def busy(self, acknowledged: rx.Var) -> rx.Var:
        """Whether the button shows it is busy: sent, or under way on the server."""
        return self.pending.value | acknowledged

    def busy_for(self, first_arg: Any, acknowledged: rx.Var) -> rx.Var:
        """Whether one row's button is busy, when every row shares this wait: sent with
        ``first_arg`` (the row's id) as its first argument, or under way on the server."""
        sent_for_row = self.sent.value.to(list)[0].to(str) == first_arg
        return (self.pending.value & sent_for_row) | acknowledged

    def no_answer_notice(self, acknowledged: rx.Var, retry: Any = None) -> rx.Component:
        """Said when the click has gone ``NO_ANSWER_SECONDS`` without an answer. Its
        "Try again" sends ``retry``; without one it submits the form it is in again.
        Either is also sent by itself after a reconnect (``resend_after_reconnect``)."""
        return rx.fragment(
            self._notice(acknowledged, retry),
            self.resend_after_reconnect(acknowledged, retry),
        )

    def resend_after_reconnect(self, acknowledged: rx.Var, retry: Any = None) -> rx.Component:
        """Hidden markers that follow an unanswered press through the page's
        connection: seen on a live page, then back to hydrating (its socket dropped and
        connected again), then live again, when the press is sent again: ``retry``, or
        the submission of the form it is in."""
        unanswered = self.pending.value & ~acknowledged
        live = rx.State.is_hydrated
        resend = retry if retry is not None else rx.call_script(_submit_form_of(self.name))
        return rx.fragment(
            self._marker(unanswered & live & (self.link.value == ""), "live"),
            self._marker(unanswered & ~live & (self.link.value == "live"), "cut"),
            self._marker(unanswered & live & (self.link.value == "cut"), "live", resend),
        )

    def _marker(self, shown: rx.Var, link: str, *then: Any) -> rx.Component:
        """Mounted while ``shown``: moves the press's ``link`` on, then runs ``then``."""
        return rx.cond(
            shown,
            rx.el.span(hidden=True, on_mount=[self.link.set_value(link), *then]),
        )

    def _notice(self, acknowledged: rx.Var, retry: Any) -> rx.Component:
        again = {"on_click": retry} if retry is not None else {"type": "submit"}
        return rx.cond(
            self.pending.value & ~acknowledged,
            rx.hstack(
                rx.el.style(_KEYFRAMES),
                rx.icon("wifi-off", size=18, flex_shrink="0"),
                rx.text(messages.NO_ANSWER_YET, size="2"),
                rx.button(
                    messages.TRY_AGAIN,
                    size="2",
                    variant="soft",
                    flex_shrink="0",
                    **again,
                ),
                align="center",
                spacing="2",
                width="100%",
                padding="0.5rem 0.75rem",
                border_radius="12px",
                background="var(--amber-3)",
                color="var(--amber-11)",
                role="status",
                data_testid=f"no-answer-{self.name}",
                style={
                    "visibility": "hidden",
                    "opacity": "0",
                    "animation": f"{_APPEAR} 0.2s ease-out {_no_answer_seconds()}s forwards",
                },
            ),
        )


def _no_answer_seconds() -> str:
    """The setting as CSS writes seconds: "8", "2.5"."""
    return f"{get_settings().no_answer_seconds:g}"


class FormWait(ServerWait):
    """The wait of a form: its attempt id travels in a hidden field, and "Try again"
    submits the form again. Values changed meanwhile (the next chat message) make a new
    attempt."""

    def attempt_field(self) -> rx.Component:
        """The hidden field with this form's attempt id (new each time it is shown)."""
        return rx.el.input(
            type="hidden", name=ATTEMPT_FIELD, value=self.attempt.value, on_mount=self.reset()
        )

    def submit(self, handler: Any) -> list:
        """A form's ``on_submit``: busy at once, then the handler."""
        return [self.start(), handler]

    def _attempt_reader(self, handler: Callable) -> Callable[[tuple, dict], tuple[Any, Any]]:
        """A form's handler takes the form's data first; the attempt id is taken out of
        it, and the rest are the values."""
        form_argument = list(inspect.signature(handler).parameters)[1]

        def attempt_of(args: tuple, kwargs: dict) -> tuple[Any, Any]:
            form_data = args[0] if args else kwargs.get(form_argument)
            if not isinstance(form_data, dict):
                return "", form_data
            return form_data.pop(ATTEMPT_FIELD, ""), form_data

        return attempt_of


def _submit_form_of(name: str) -> str:
    """The script that submits the form of the wait ``name``: the one its no-answer
    notice is in (mounted, though not yet visible, while a press is unanswered)."""
    marker = json.dumps(f'[data-testid="no-answer-{name}"]')
    return f"document.querySelector({marker})?.closest('form')?.requestSubmit()"


async def _first_run(state, attempt: str, values: Any) -> bool:
    """Record the attempt ``attempt`` with ``values`` (its arguments) as run; False if it
    was run already. No attempt id: always a first run."""
    if not attempt:
        return True
    digest = json.dumps([attempt, values], sort_keys=True, default=str)
    digest = hashlib.sha256(digest.encode()).hexdigest()[:24]
    if isinstance(state, StateProxy):  # a background task changes its state only so
        async with state:
            return _record_attempt(state, digest)
    return _record_attempt(state, digest)


def _record_attempt(state, digest: str) -> bool:
    answered = list(state._answered_attempts)
    if digest in answered:
        return False
    state._answered_attempts = [*answered[-(REMEMBERED_ATTEMPTS - 1) :], digest]
    return True


def _as_list(outcome: Any) -> list:
    if outcome is None:
        return []
    return outcome if isinstance(outcome, list) else [outcome]


async def _updates(outcome: Any) -> AsyncIterator[Any]:
    """A handler's updates, whether it returned, awaited or yielded them."""
    if inspect.isasyncgen(outcome):
        async for update in outcome:
            yield update
    elif inspect.isgenerator(outcome):
        for update in outcome:
            yield update
    else:
        yield await outcome if inspect.isawaitable(outcome) else outcome


async def _first_answers(wait: ServerWait, outcome: Any) -> AsyncIterator[list]:
    """``outcome``'s updates, the first of them also ending ``wait``."""
    answered = False
    async for update in _updates(outcome):
        yield _as_list(update) if answered else wait.answering(update)
        answered = True
    if not answered:
        yield wait.answering(None)
