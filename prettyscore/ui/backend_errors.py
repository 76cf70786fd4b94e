"""What a person sees when an event fails on the server without a message of its own.

Handlers turn the errors they expect into their own toasts. Anything else reaches
Reflex's backend exception handler. When the cause is a service that did not answer
(PostgreSQL or Redis restarting, a dropped connection), the event failed through nobody's
fault and will work again in a moment: the member is told so, once (one toast id, however
many events fail together), and the log gets one line instead of a traceback per event.
Every other error keeps Reflex's own handling: logged in full, a generic toast.
"""

from __future__ import annotations

import logging

import reflex as rx
from reflex.app import default_backend_exception_handler
from reflex_base.event.context import EventContext

from prettyscore.core import messages
from prettyscore.core.outages import is_service_outage

log = logging.getLogger(__name__)

OUTAGE_TOAST_ID = "service-outage"


def backend_exception_handler(exception: Exception):
    """``rx.App(backend_exception_handler=...)``: the toast for an event that failed.

    Reflex checks the signature: one argument named ``exception``, typed ``Exception``.
    """
    if is_service_outage(exception):
        log.warning("%s: an event failed while a service was unavailable: %r", _tab(), exception)
        return rx.toast.error(
            messages.SERVICE_BRIEFLY_UNAVAILABLE, id=OUTAGE_TOAST_ID, position="top-center"
        )
    return default_backend_exception_handler(exception)


def _tab() -> str:
    """The tab whose event failed, as the state-lock lines name it, so that a page that
    stopped answering can be traced through the log."""
    try:
        return "tab " + EventContext.get().token[:36]
    except LookupError:
        return "a tab"
