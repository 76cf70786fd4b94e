"""Reflex state of /request-verification: loading, then verified, the request, or the form.

Thin: who is asking, then ``service`` checks the form and stores it (or says why not);
the table's unique member id decides "one request per member".
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import reflex as rx
from typing_extensions import TypedDict  # pydantic reads it before Python 3.12

from prettyscore.accounts.state import SESSION_TOAST, AuthState
from prettyscore.billing.state import format_date
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import Conflict
from prettyscore.ui.form_state import FormState
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import FormWait
from prettyscore.verification import service
from prettyscore.verification.models import VerificationRequest

# What the page shows once loaded.
VIEW_VERIFIED = "verified"
VIEW_REQUEST = "request"
VIEW_FORM = "form"
# One toast for the outcome of a submission: the next outcome replaces the last one.
OUTCOME_TOAST = "verification-request"
# The request form is busy from the press and runs each submission once.
VERIFICATION_WAIT = FormWait("verification")
LOADING = "Loading the member's verification"


class VerificationFormData(TypedDict, total=False):
    full_name: str
    reason: str
    instagram_handle: str
    other_social: str
    attempt: str  # the submission's attempt id (ui.server_wait.FormWait)


@dataclasses.dataclass
class RequestStatusView:
    """The member's request as the status view shows it."""

    status: str = ""
    status_label: str = ""
    submitted: str = ""
    admin_notes: str = ""


def status_view(request: VerificationRequest) -> RequestStatusView:
    return RequestStatusView(
        status=request.status,
        status_label=messages.VERIFICATION_STATUS_LABELS.get(request.status, request.status),
        submitted=format_date(request.created_at),
        admin_notes=request.admin_notes or "",
    )


def _text(value: Any) -> str | None:
    """A submitted text field; anything but text (a forged event) counts as empty."""
    return value if isinstance(value, str) else None


def verification_form(data: VerificationFormData) -> service.VerificationForm:
    return service.VerificationForm(
        full_name=_text(data.get("full_name")),
        reason=_text(data.get("reason")),
        instagram_handle=_text(data.get("instagram_handle")),
        other_social=_text(data.get("other_social")),
    )


class VerificationState(FormState, AuthState):
    """The member's verification: badge, request status, or the form to ask."""

    view: str = ""
    request: RequestStatusView = RequestStatusView()

    _outcome_toast: ClassVar[str | None] = OUTCOME_TOAST

    def _show(self, shown: service.MemberVerification) -> None:
        if shown.verified:
            self.view = VIEW_VERIFIED
        elif shown.request is not None:
            self.view, self.request = VIEW_REQUEST, status_view(shown.request)
        else:
            self.view = VIEW_FORM

    async def _show_current(self, user_id) -> None:
        """After 'already requested' or 'already verified': show what the member has."""
        with guarded(LOADING, fallback=None, refusals=False):
            self._show(await run_in_session(service.member_verification, user_id))

    def _refused(self):
        return [
            rx.toast.error(messages.SIGN_IN_TO_REQUEST_VERIFICATION, id=SESSION_TOAST),
            self._sign_in_redirect(routes.REQUEST_VERIFICATION),
        ]

    @rx.event
    async def open_page(self):
        """on_load: visitors go to /auth; members see their badge, request or the form."""
        self.view, self.submitting = "", False
        self._clear_problem()
        user = await self._current_user()
        if user is None:
            return self._refused()
        with guarded(LOADING, messages.GENERIC_ERROR_RETRY, refusals=False) as call:
            self._show(await run_in_session(service.member_verification, user.id))
        if call.failed:
            self.view = VIEW_FORM
            return call.toast
        return None

    @rx.event
    @VERIFICATION_WAIT.answers
    async def submit(self, form_data: VerificationFormData):
        """Send the request; a problem is shown as a toast and by its field."""
        if self.submitting:
            return
        user = await self._current_user()
        if user is None:
            yield self._refused()
            return
        self._begin_submission()
        yield
        with self._submission(
            "Submitting a verification request", messages.FAILED_TO_SUBMIT_VERIFICATION
        ) as call:
            request = await run_in_session(
                service.submit_request, user.id, verification_form(form_data)
            )
        if call.failed:
            yield call.toast
            if isinstance(call.error, Conflict):
                await self._show_current(user.id)
            return
        self.view, self.request = VIEW_REQUEST, status_view(request)
        yield rx.toast.success(messages.VERIFICATION_SUBMITTED, id=OUTCOME_TOAST)
