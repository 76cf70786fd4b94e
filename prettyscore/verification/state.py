"""Reflex state of /request-verification: loading, then verified, the request, or the form.

Thin: who is asking, then ``service`` checks the form and stores it (or says why not);
the table's unique member id decides "one request per member".
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import reflex as rx
from typing_extensions import TypedDict  # pydantic reads it before Python 3.12

from prettyscore.accounts.state import AuthState
from prettyscore.billing.state import format_date
from prettyscore.core import messages
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import Conflict, DomainError
from prettyscore.verification import service
from prettyscore.verification.models import VerificationRequest

log = logging.getLogger(__name__)

PAGE_PATH = "/request-verification"
# What the page shows once loaded.
VIEW_VERIFIED = "verified"
VIEW_REQUEST = "request"
VIEW_FORM = "form"
# One toast for the outcome of a submission: the next outcome replaces the last one.
OUTCOME_TOAST = "verification-request"


class VerificationFormData(TypedDict, total=False):
    full_name: str
    reason: str
    instagram_handle: str
    other_social: str


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


class VerificationState(AuthState):
    """The member's verification: badge, request status, or the form to ask."""

    view: str = ""
    request: RequestStatusView = RequestStatusView()
    error_field: str = ""
    error_message: str = ""
    submitting: bool = False

    def _show(self, shown: service.MemberVerification) -> None:
        if shown.verified:
            self.view = VIEW_VERIFIED
        elif shown.request is not None:
            self.view, self.request = VIEW_REQUEST, status_view(shown.request)
        else:
            self.view = VIEW_FORM

    async def _show_current(self, user_id) -> None:
        """After 'already requested' or 'already verified': show what the member has."""
        try:
            self._show(await run_in_session(service.member_verification, user_id))
        except Exception:
            log.exception("Loading the member's verification failed")

    def _refused(self):
        return [
            rx.toast.error(messages.SIGN_IN_TO_REQUEST_VERIFICATION),
            self._sign_in_redirect(PAGE_PATH),
        ]

    @rx.event
    async def open_page(self):
        """on_load: visitors go to /auth; members see their badge, request or the form."""
        self.view, self.submitting = "", False
        self.error_field = self.error_message = ""
        user = await self._current_user()
        if user is None:
            return self._refused()
        try:
            self._show(await run_in_session(service.member_verification, user.id))
        except Exception:
            log.exception("Loading the member's verification failed")
            self.view = VIEW_FORM
            return rx.toast.error(messages.GENERIC_ERROR_RETRY)
        return None

    @rx.event
    async def submit(self, form_data: VerificationFormData):
        """Send the request; a problem is shown as a toast and by its field."""
        if self.submitting:
            return
        user = await self._current_user()
        if user is None:
            yield self._refused()
            return
        self.submitting = True
        self.error_field = self.error_message = ""
        yield
        try:
            request = await run_in_session(
                service.submit_request, user.id, verification_form(form_data)
            )
        except service.VerificationInvalid as problem:
            self.error_field, self.error_message = problem.field, problem.message
            yield rx.toast.error(problem.message, id=OUTCOME_TOAST)
        except Conflict as refused:
            yield rx.toast.error(refused.message, id=OUTCOME_TOAST)
            await self._show_current(user.id)
        except DomainError as error:
            yield rx.toast.error(error.message, id=OUTCOME_TOAST)
        except Exception:
            log.exception("Submitting a verification request failed")
            yield rx.toast.error(messages.FAILED_TO_SUBMIT_VERIFICATION, id=OUTCOME_TOAST)
        else:
            self.view, self.request = VIEW_REQUEST, status_view(request)
            yield rx.toast.success(messages.VERIFICATION_SUBMITTED, id=OUTCOME_TOAST)
        finally:
            self.submitting = False
