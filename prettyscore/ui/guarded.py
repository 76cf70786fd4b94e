"""How a Reflex handler turns a failed service call into what the member sees.

One rule for every handler: a ``DomainError`` is the service saying no, and its
``message`` is shown as it is; anything else is unexpected, so it is logged with what
was being done, and the member gets the handler's documented fallback text (by default
``messages.UNEXPECTED_ERROR``). Nothing is raised on to Reflex.

Write the risky part of the handler inside ``guarded``, then return the toast when it
failed::

    with guarded("Loading the partner portal", messages.FAILED_TO_LOAD_PARTNER_DATA) as call:
        view = await run_in_session(service.portal, user.id)
    if call.failed:
        return call.toast

``fallback=None`` logs the unexpected and shows nothing (a background refresh, a lookup
whose absence the page already copes with). ``refusals=False`` treats a refusal like the
unexpected (logged, ``fallback`` shown): for a load whose page documents one failure text
whatever the cause. ``toast_id`` makes the toast replace the last one with that id.
Forms use ``ui.form_state.FormState``, built on this.
"""

from __future__ import annotations

import logging
from typing import Any

import reflex as rx

from prettyscore.core import messages
from prettyscore.core.errors import DomainError

log = logging.getLogger(__name__)


#: A toast stays long enough to be read: the toaster's 4 s, and more for a long text
#: (about 15 characters a second, a slow reader's pace on a phone).
TOAST_SECONDS, READ_CHARACTERS_PER_SECOND = 4, 15


def error_toast(message: str, toast_id: str | None = None) -> Any:
    """An error toast; with ``toast_id`` it replaces the last toast of that id."""
    options: dict[str, Any] = {} if toast_id is None else {"id": toast_id}
    seconds = max(TOAST_SECONDS, len(message) / READ_CHARACTERS_PER_SECOND)
    if seconds > TOAST_SECONDS:
        options["duration"] = int(seconds * 1000)
    return rx.toast.error(message, **options)


class Guarded:
    """A guarded block: how it ended (``error``, ``failed``) and the ``toast`` to show."""

    def __init__(
        self,
        context: str,
        fallback: str | None,
        *,
        refusals: bool,
        toast_id: str | None,
        logger: logging.Logger,
    ):
        self.context = context
        self.fallback = fallback
        self.refusals = refusals
        self.toast_id = toast_id
        self.logger = logger
        self.error: Exception | None = None
        self.toast: Any = None

    @property
    def failed(self) -> bool:
        return self.error is not None

    @property
    def refusal(self) -> DomainError | None:
        """The service's refusal, when that is how the block ended."""
        return self.error if isinstance(self.error, DomainError) else None

    def __enter__(self) -> Guarded:
        return self

    def __exit__(self, kind, error, traceback) -> bool:
        if not isinstance(error, Exception):
            return False  # ran through, or a cancellation/exit that is not ours to stop
        self.error = error
        if isinstance(error, DomainError) and self.refusals:
            self.toast = error_toast(error.message, self.toast_id)
        else:
            self.logger.error("%s failed", self.context, exc_info=(kind, error, traceback))
            if self.fallback is not None:
                self.toast = error_toast(self.fallback, self.toast_id)
        return True


def guarded(
    context: str,
    fallback: str | None = messages.UNEXPECTED_ERROR,
    *,
    refusals: bool = True,
    toast_id: str | None = None,
    logger: logging.Logger | None = None,
) -> Guarded:
    """A block whose failure becomes a toast: the refusal's own text, or (logged as
    "``context`` failed") ``fallback`` for anything unexpected."""
    return Guarded(context, fallback, refusals=refusals, toast_id=toast_id, logger=logger or log)
