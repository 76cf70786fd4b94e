"""/request-verification's handlers: visitors sign in first; members see the form, their
request's status, or that they are verified."""

from __future__ import annotations

import pytest

from prettyscore.core import messages, routes
from prettyscore.verification import service
from prettyscore.verification.state import (
    VIEW_FORM,
    VIEW_REQUEST,
    VIEW_VERIFIED,
    VerificationState,
)
from tests.fixtures.handlers import as_user, call
from tests.fixtures.people import admin, member_session

FORM = {
    "full_name": "Grace Hopper",
    "reason": "People use my photos under my name.",
    "instagram_handle": "@grace",
    "other_social": "",
}


@pytest.fixture
def someone(db_factory, app_database):
    with db_factory() as db:
        return member_session(db)


@pytest.mark.parametrize("handler", ["open_page", "submit"])
def test_a_visitor_is_asked_to_sign_in_and_comes_back_here(app_database, handler):
    args = (FORM,) if handler == "submit" else ()
    reply = call(as_user(VerificationState, None), handler, *args)
    assert reply.toasts == [("error", messages.SIGN_IN_TO_REQUEST_VERIFICATION)]
    assert reply.redirects == [f"/auth?next={routes.REQUEST_VERIFICATION}"]


def test_a_member_sends_the_form_once_and_then_sees_its_status(db_factory, someone):
    page = as_user(VerificationState, someone)
    call(page, "open_page")
    assert page.view == VIEW_FORM

    reply = call(page, "submit", {**FORM, "reason": "  "})
    assert reply.toasts == [("error", messages.VERIFICATION_REASON_REQUIRED)]
    assert (page.view, page.error_field) == (VIEW_FORM, "reason")

    reply = call(page, "submit", FORM)
    assert reply.toasts == [("success", messages.VERIFICATION_SUBMITTED)]
    assert (page.view, page.request.status_label, page.error_field) == (VIEW_REQUEST, "Pending", "")
    assert page.request.submitted

    reply = call(page, "submit", FORM)  # a second, forged submission
    assert reply.toasts == [("error", messages.VERIFICATION_ALREADY_REQUESTED)]
    assert page.view == VIEW_REQUEST
    with db_factory() as db:
        assert service.request_of(db, someone.user_id).full_name == "Grace Hopper"


def test_a_rejected_request_shows_the_admins_notes(db_factory, someone):
    with db_factory() as db:
        request = service.submit_request(db, someone.user_id, service.VerificationForm(**FORM))
        service.reject_request(db, admin(db), request.id, "Please add a public profile")
    page = as_user(VerificationState, someone)
    call(page, "open_page")
    assert (page.view, page.request.status, page.request.admin_notes) == (
        VIEW_REQUEST,
        "rejected",
        "Please add a public profile",
    )


def test_an_approved_member_is_verified(db_factory, someone):
    with db_factory() as db:
        request = service.submit_request(db, someone.user_id, service.VerificationForm(**FORM))
        service.approve_request(db, admin(db), request.id)
    page = as_user(VerificationState, someone)
    call(page, "open_page")
    assert page.view == VIEW_VERIFIED
