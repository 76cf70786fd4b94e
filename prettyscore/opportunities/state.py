"""Reflex state of /claim-opportunities: the application form and its confirmation.

Thin: who is asking, then ``service`` checks the form and stores it (or says why not).
The browser's hints (required fields, lengths) are courtesy only; every rule is the
service's, and the database's unique member id decides "already submitted".
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import reflex as rx
from typing_extensions import TypedDict  # pydantic reads it before Python 3.12

from prettyscore.accounts.state import SESSION_TOAST, AuthState
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import Conflict
from prettyscore.opportunities import service
from prettyscore.opportunities.models import OpportunityClaim
from prettyscore.ui.form_state import FormState
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import FormWait

# One toast for the outcome of a submission: the next outcome replaces the last one.
OUTCOME_TOAST = "opportunity-application"
# The application form is busy from the press and runs each submission once.
OPPORTUNITY_WAIT = FormWait("opportunity")
LOADING = "Loading the member's opportunity application"


class ApplicationFormData(TypedDict, total=False):
    """The submitted form: every ticked interest is kept, and the terms box is a bool."""

    attempt: str  # the submission's attempt id (ui.server_wait.FormWait)

    full_name: str
    email: str
    phone: str
    instagram: str
    location: str
    bio: str
    interests: list[str]
    agree_terms: bool


@dataclasses.dataclass
class ClaimView:
    """What the confirmation shows of the member's stored application."""

    full_name: str = ""
    email: str = ""
    phone: str = ""
    location: str = ""
    interests: list[str] = dataclasses.field(default_factory=list)


def claim_view(claim: OpportunityClaim) -> ClaimView:
    return ClaimView(
        full_name=claim.full_name,
        email=claim.email,
        phone=claim.phone,
        location=claim.location,
        interests=[str(interest) for interest in claim.interests],
    )


def _text(value: Any) -> str | None:
    """A submitted text field; anything but text (a forged event) counts as empty."""
    return value if isinstance(value, str) else None


def application_form(data: ApplicationFormData) -> service.ApplicationForm:
    """The service's view of the submitted form."""
    interests = data.get("interests") or []
    return service.ApplicationForm(
        full_name=_text(data.get("full_name")),
        email=_text(data.get("email")),
        phone=_text(data.get("phone")),
        instagram=_text(data.get("instagram")),
        location=_text(data.get("location")),
        bio=_text(data.get("bio")),
        interests=tuple(interests) if isinstance(interests, list) else (str(interests),),
        agree_terms=data.get("agree_terms") is True,
    )


class OpportunityState(FormState, AuthState):
    """The application form, or, once the member has applied, its confirmation."""

    loaded: bool = False
    account_email: str = ""
    applied: bool = False
    claim: ClaimView = ClaimView()

    _outcome_toast: ClassVar[str | None] = OUTCOME_TOAST

    def _show_claim(self, claim: OpportunityClaim | None) -> None:
        self.applied = claim is not None
        self.claim = claim_view(claim) if claim is not None else ClaimView()

    @rx.event
    async def open_page(self):
        """on_load: visitors get the sign-in prompt, members the form (their account email
        filled in) or the application they already sent."""
        self._clear_problem()
        self.submitting = False
        user = await self._current_user()
        if user is None:
            self._show_claim(None)
            self.loaded = True
            return None
        self.account_email = user.email
        with guarded(LOADING, messages.GENERIC_ERROR_RETRY, refusals=False) as call:
            self._show_claim(await run_in_session(service.application_of, user.id))
        self.loaded = True
        if call.failed:
            self._show_claim(None)
            return call.toast
        return None

    @rx.event
    @OPPORTUNITY_WAIT.answers
    async def submit(self, form_data: ApplicationFormData):
        """Send the application; the first problem is shown as a toast and by its field."""
        if self.submitting:
            return
        user = await self._current_user()
        if user is None:
            yield [
                rx.toast.error(messages.SIGN_IN_TO_APPLY, id=SESSION_TOAST),
                self._sign_in_redirect(routes.CLAIM_OPPORTUNITIES),
            ]
            return
        self._begin_submission()
        yield
        with self._submission(
            "Submitting an opportunity application",
            messages.GENERIC_ERROR_RETRY,
            storage_fallback=messages.FAILED_TO_SUBMIT_APPLICATION_RETRY,
        ) as call:
            claim = await run_in_session(
                service.submit_application, user.id, application_form(form_data)
            )
        if call.failed:
            yield call.toast
            if isinstance(call.error, Conflict):
                await self._show_existing(user.id)
            return
        self._show_claim(claim)
        yield rx.toast.success(messages.APPLICATION_SUBMITTED, id=OUTCOME_TOAST)

    async def _show_existing(self, user_id) -> None:
        """After 'already submitted': show the application the member sent before."""
        with guarded(LOADING, fallback=None, refusals=False):
            self._show_claim(await run_in_session(service.application_of, user_id))
