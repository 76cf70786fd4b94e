"""Opportunity applications in a browser: visitors are asked to sign in and come back;
a member's bad phone number is named, the fixed form is accepted once, and a second
submission (another tab) is told it was already sent."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from prettyscore.core import messages
from prettyscore.opportunities.models import OpportunityClaim
from tests.e2e.flows import (
    fill_sign_up,
    member_id,
    new_member,
    open_page,
    unique_email,
    wait_for_path,
    wait_until_ready,
    with_app_database,
)

pytestmark = pytest.mark.e2e

PATH = "/claim-opportunities"


def application_form(page):
    return page.get_by_test_id("opportunity-form")


def fill_application(page, phone: str) -> None:
    form = application_form(page)
    form.get_by_label(messages.OPPORTUNITY_FULL_NAME).fill("  Jane Doe ")
    form.get_by_label(messages.OPPORTUNITY_PHONE).fill(phone)
    form.get_by_label(messages.OPPORTUNITY_INSTAGRAM).fill("@jane.doe")
    form.get_by_label(messages.OPPORTUNITY_LOCATION).fill("Lisbon, Portugal")
    form.get_by_role("checkbox", name="Fashion Modeling").check()
    form.get_by_role("checkbox", name="Brand Partnerships").check()
    form.get_by_role(
        "checkbox", name=f"{messages.OPPORTUNITY_AGREE_TO} {messages.TERMS_OF_USE}"
    ).check()


def submit(page) -> None:
    button = application_form(page).get_by_role("button", name=messages.OPPORTUNITY_SUBMIT)
    expect(button).to_be_enabled()
    button.click()


def test_a_visitor_is_asked_to_sign_in_and_comes_back_to_the_form(page, app_server):
    base = app_server.base_url
    open_page(page, f"{base}{PATH}")
    prompt = page.get_by_test_id("opportunity-sign-in")
    expect(prompt.get_by_role("heading", name=messages.OPPORTUNITY_SIGN_IN_TITLE)).to_be_visible()
    expect(application_form(page)).to_have_count(0)
    prompt.get_by_role("link", name=messages.SIGN_IN).click()
    wait_for_path(page, "/auth", f"?next={PATH}")

    address = unique_email("visitor")
    fill_sign_up(page, address)
    wait_for_path(page, PATH)
    wait_until_ready(page)
    email = application_form(page).get_by_label(messages.OPPORTUNITY_EMAIL, exact=True)
    expect(email).to_have_value(address)


def test_a_member_fixes_the_phone_applies_once_and_is_told_so_again(page, app_server):
    base = app_server.base_url
    address = new_member(page, base, "applicant")
    other_tab = page.context.new_page()
    open_page(other_tab, f"{base}{PATH}")
    open_page(page, f"{base}{PATH}")

    fill_application(page, phone="0123 456")
    submit(page)
    expect(page.get_by_test_id("error-phone")).to_have_text(messages.PHONE_INVALID)

    application_form(page).get_by_label(messages.OPPORTUNITY_PHONE).fill("+351912345678")
    submit(page)
    confirmation = page.get_by_test_id("opportunity-confirmation")
    expect(confirmation.get_by_text(messages.OPPORTUNITY_CONTACT_PROMISE)).to_be_visible()
    expect(confirmation.get_by_test_id("applied-interests")).to_have_text(
        "Fashion ModelingBrand Partnerships"
    )
    expect(confirmation.get_by_text("Jane Doe", exact=True)).to_be_visible()
    expect(page.get_by_text(messages.APPLICATION_SUBMITTED)).to_be_visible()
    expect(application_form(page)).to_have_count(0)

    # The other tab still shows the form: sending it again is refused by the server.
    fill_application(other_tab, phone="+15551234567")
    submit(other_tab)
    expect(other_tab.get_by_text(messages.ALREADY_APPLIED)).to_be_visible()
    expect(other_tab.get_by_test_id("opportunity-confirmation")).to_be_visible()

    open_page(page, f"{base}{PATH}")
    expect(page.get_by_test_id("opportunity-confirmation")).to_be_visible()
    with with_app_database(app_server) as db:
        claims = db.exec(
            select(OpportunityClaim).where(OpportunityClaim.user_id == member_id(db, address))
        ).all()
        assert [(claim.full_name, claim.phone, claim.instagram) for claim in claims] == [
            ("Jane Doe", "+351912345678", "jane.doe")
        ]
