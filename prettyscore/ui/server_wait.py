"""A button whose action waits on the server: busy from the click, and a way out in
words when no answer comes.

Why: a click travels to the server and the page shows progress only once the server
has answered (``analyzing`` set, an overlay drawn). When that answer is late (the
connection dropped, a worker restarted, the tab's state held elsewhere) the button sat
idle as if the click had been lost, and people click again or leave.

How: the click first sets a flag in the browser (``pending``), so the button turns busy
at once without a round trip. While the flag is set and the server has not yet
acknowledged the work, a notice is mounted that stays invisible for
``NO_ANSWER_SECONDS`` (a CSS animation's delay: no timer to leak) and then says that
the server has not answered, with "Try again" sending the same action again. The
server's handler must make a repeat harmless (it ignores a second run of work already
under way or done), and clears the flag with every outcome (``answered``).
"""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.experimental.client_state import ClientStateVar

from prettyscore.core import messages

#: How long a click may go without an answer before the page says so.
NO_ANSWER_SECONDS = 8
_APPEAR = "ps-no-answer-appear"
_KEYFRAMES = f"@keyframes {_APPEAR} {{ to {{ visibility: visible; opacity: 1; }} }}"


class ServerWait:
    """The browser's side of one action that waits on the server."""

    def __init__(self, name: str):
        self.pending = ClientStateVar.create(f"awaiting_{name}", False)
        self.name = name

    def start(self) -> Any:
        """The client-side event that marks the action as sent (put before the action)."""
        return self.pending.set_value(True)

    def answered(self) -> rx.event.EventSpec:
        """The server-side event that ends the wait (return it with every outcome)."""
        return self.pending.push(False)

    def answering(self, outcome: Any) -> list:
        """A handler's outcome (None, an event or a list of them) with the wait ended."""
        if outcome is None:
            outcome = []
        return [self.answered(), *(outcome if isinstance(outcome, list) else [outcome])]

    def reset(self) -> Any:
        """The client-side event that forgets an earlier wait (a page opened afresh)."""
        return self.pending.set_value(False)

    def busy(self, acknowledged: rx.Var) -> rx.Var:
        """Whether the button shows it is busy: sent, or under way on the server."""
        return self.pending.value | acknowledged

    def no_answer_notice(self, acknowledged: rx.Var, retry: Any) -> rx.Component:
        """Said when the click has gone ``NO_ANSWER_SECONDS`` without an answer."""
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
                    on_click=retry,
                    flex_shrink="0",
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
                    "animation": f"{_APPEAR} 0.2s ease-out {NO_ANSWER_SECONDS}s forwards",
                },
            ),
        )
