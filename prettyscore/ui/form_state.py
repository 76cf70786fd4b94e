"""The one way a Reflex form is submitted: one submission at a time, the service decides,
and a refusal shows as a toast and, when it names a field, beside that field.

``FormState`` is a state mixin: a form's state lists it before its Reflex parent
(``class PartnerApplyState(FormState, AuthState)``) and gets its own copy of the vars,
so two forms never share a submission or a problem. Its submit handler reads::

    if not self._begin_submission():
        return
    yield  # the button shows "Submitting..."
    with self._submission("Submitting a partner application", messages.FALLBACK) as call:
        result = await run_in_session(service.apply, ...)
    if call.failed:
        yield call.toast
        return

``_submission`` (built on ``ui.guarded``) clears ``submitting`` when the block ends.
A ``ValidationFailed`` with a ``field`` sets ``error_field`` and ``error_message``, which
``ui.forms.FieldErrors`` shows beside that field; a state may name the field of other
refusals by overriding ``_problem_field``. ``_outcome_toast`` is the id of the form's
outcome toast (the next outcome replaces the last).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import reflex as rx
from sqlalchemy.exc import SQLAlchemyError

from prettyscore.core import messages
from prettyscore.core.errors import DomainError
from prettyscore.core.member_limits import refusal_text
from prettyscore.core.rate_limits import RateLimited
from prettyscore.ui.guarded import Guarded, error_toast, guarded


class FormState(rx.State, mixin=True):
    """What every form's state has: the submission in progress and its first problem."""

    submitting: bool = False
    error_field: str = ""
    error_message: str = ""
    # The attempt ids of the latest submissions run (``ui.server_wait.FormWait``).
    _answered_attempts: list[str] = []

    # The id of the form's outcome toast; None: each toast stands alone.
    _outcome_toast: ClassVar[str | None] = None

    def _clear_problem(self) -> None:
        self.error_field = self.error_message = ""

    def _show_problem(self, field: str, message: str) -> Any:
        """Mark ``field`` with ``message`` and return the toast that says it."""
        self.error_field, self.error_message = field, message
        return error_toast(message, self._outcome_toast)

    def _problem_field(self, refusal: DomainError) -> str | None:
        """The form field a refusal concerns (None: the form as a whole)."""
        return getattr(refusal, "field", None)

    def _begin_submission(self) -> bool:
        """Start a submission unless one is running (then False: ignore the click)."""
        if self.submitting:
            return False
        self.submitting = True
        self._clear_problem()
        return True

    @contextmanager
    def _submission(
        self,
        context: str,
        fallback: str = messages.UNEXPECTED_ERROR,
        *,
        storage_fallback: str | None = None,
        rate_limits: bool = False,
    ) -> Iterator[Guarded]:
        """Guard the service call of a submission: a refusal's text (its field marked),
        or, logged, ``fallback`` (``storage_fallback`` when the database failed).
        ``rate_limits``: a refused attempt says when to try again. Ends the submission."""
        try:
            with guarded(context, fallback, toast_id=self._outcome_toast) as call:
                try:
                    yield call
                except SQLAlchemyError:
                    if storage_fallback is None:
                        raise
                    call.fallback = storage_fallback
                    raise
            refusal = call.refusal
            if isinstance(refusal, RateLimited) and rate_limits:
                call.toast = error_toast(
                    refusal_text(messages.TOO_MANY_ATTEMPTS, refusal.retry_after),
                    self._outcome_toast,
                )
            elif refusal is not None:
                field = self._problem_field(refusal)
                if field is not None:
                    self.error_field, self.error_message = field, refusal.message
        finally:
            self.submitting = False
