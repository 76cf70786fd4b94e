"""What a browser's error report may write into the server's log.

Why: a page reports its JavaScript errors to the server (Reflex's frontend exception
event and its ``client_error`` socket message), which logs them, and anyone can send
that event with any text. Newlines in one forged a line that looked like the server's own
mail line; two reports added 202 KB to the log. So a report is logged on one line, its
control characters escaped and its text cut at 2,000 characters (``core.log_text``), and
each server process logs at most ``REPORTS_PER_MINUTE`` of them a minute: past that, one
line says that the rest of that minute's were left out.
"""

from __future__ import annotations

import logging
import threading
import time

from prettyscore.core.log_text import loggable

log = logging.getLogger(__name__)

REPORTS_PER_MINUTE = 30
WINDOW_SECONDS = 60.0


class ReportBudget:
    """How many reports are logged per window of time, counted from the window's first."""

    def __init__(self, per_window: int, window_seconds: float):
        self.per_window = per_window
        self.window_seconds = window_seconds
        self._window_start = -window_seconds
        self._counted = 0
        self._lock = threading.Lock()

    def spend(self, now: float) -> int:
        """Count one report; the number it is in its window (above ``per_window``: not
        to be logged)."""
        with self._lock:
            if now - self._window_start >= self.window_seconds:
                self._window_start, self._counted = now, 0
            self._counted += 1
            return self._counted


_budget = ReportBudget(REPORTS_PER_MINUTE, WINDOW_SECONDS)


def frontend_exception_handler(exception: Exception) -> None:
    """``rx.App(frontend_exception_handler=...)``: a browser's error report, logged safely.

    Reflex checks the signature: one argument named ``exception``, typed ``Exception``.
    """
    number = _budget.spend(time.monotonic())
    if number <= _budget.per_window:
        log.error("A browser reported an error: %s", loggable(str(exception)))
    elif number == _budget.per_window + 1:
        log.warning(
            "More than %d browser error reports this minute: the rest are not logged",
            _budget.per_window,
        )
