"""Reflex state of /claim-opportunities: the application form and its confirmation.

Thin: who is asking, then ``service`` checks the form and stores it (or says why not).
The browser's hints (required fields, lengths) are courtesy only; every rule is the
service's, and the database's unique member id decides "already submitted".
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import reflex as rx
from sqlalchemy.exc import SQLAlchemyError
from typing_extensions import TypedDict  # pydantic reads it before Python 3.12

from prettyscore.accounts.state import AuthState
from prettyscore.core import messages
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import Conflict, DomainError
from prettyscore.opportunities import service
from prettyscore.opportunities.models import OpportunityClaim

log = logging.getLogger(__name__)

PAGE_PATH = "/claim-opportunities"
# One toast for the outcome of a submission: the next outcome replaces the last one.
OUTCOME_TOAST = "opportunity-application"


class ApplicationFormData(TypedDict, total=False):
    """The submitted form: every ticked interest is kept, and the terms box is a bool."""

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


class OpportunityState(AuthState):
    """The application form, or, once the member has applied, its confirmation."""

    loaded: bool = False
    account_email: str = ""
    applied: bool = False
    claim: ClaimView = ClaimView()
    error_field: str = ""
    error_message: str = ""
    submitting: bool = False

    def _show_claim(self, claim: OpportunityClaim | None) -> None:
        self.applied = claim is not None
        self.claim = claim_view(claim) if claim is not None else ClaimView()

    @rx.event
    async def open_page(self):
        """on_load: visitors get the sign-in prompt, members the form (their account email
        filled in) or the application they already sent."""
        self.error_field = self.error_message = ""
        self.submitting = False
        user = await self._current_user()
        if user is None:
            self._show_claim(None)
            self.loaded = True
            return None
        self.account_email = user.email
        try:
            self._show_claim(await run_in_session(service.application_of, user.id))
        except Exception:
            log.exception("Loading the member's opportunity application failed")
            self._show_claim(None)
            return rx.toast.error(messages.GENERIC_ERROR_RETRY)
        finally:
            self.loaded = True
        return None

    @rx.event
    async def submit(self, form_data: ApplicationFormData):
        """Send the application; the first problem is shown as a toast and by its field."""
        if self.submitting:
            return
        user = await self._current_user()
        if user is None:
            yield [rx.toast.error(messages.SIGN_IN_TO_APPLY), self._sign_in_redirect(PAGE_PATH)]
            return
        self.submitting = True
        self.error_field = self.error_message = ""
        yield
        try:
            claim = await run_in_session(
                service.submit_application, user.id, application_form(form_data)
            )
        except service.ApplicationInvalid as problem:
            self.error_field, self.error_message = problem.field, problem.message
            yield rx.toast.error(problem.message, id=OUTCOME_TOAST)
        except Conflict as error:
            yield rx.toast.error(error.message, id=OUTCOME_TOAST)
            await self._show_existing(user.id)
        except DomainError as error:
            yield rx.toast.error(error.message, id=OUTCOME_TOAST)
        except SQLAlchemyError:
            log.exception("Storing an opportunity application failed")
            yield rx.toast.error(messages.FAILED_TO_SUBMIT_APPLICATION_RETRY, id=OUTCOME_TOAST)
        except Exception:
            log.exception("Submitting an opportunity application failed unexpectedly")
            yield rx.toast.error(messages.GENERIC_ERROR_RETRY, id=OUTCOME_TOAST)
        else:
            self._show_claim(claim)
            yield rx.toast.success(messages.APPLICATION_SUBMITTED, id=OUTCOME_TOAST)
        finally:
            self.submitting = False

    async def _show_existing(self, user_id) -> None:
        """After 'already submitted': show the application the member sent before."""
        try:
            self._show_claim(await run_in_session(service.application_of, user_id))
        except Exception:
            log.exception("Loading the member's opportunity application failed")
