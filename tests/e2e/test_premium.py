"""Premium in a real browser without Stripe keys: the built-in test checkout, the
confirmation, the member's status, unlimited edits, and cancelling at period end."""

from __future__ import annotations

import re

import pytest
from PIL import Image
from playwright.sync_api import expect
from skimage import data

from prettyscore.core import messages
from tests.e2e.flows import new_member, open_page, score_photo, wait_for_path

pytestmark = pytest.mark.e2e

DATE = r"[A-Z][a-z]+ \d{1,2}, \d{4}"


@pytest.fixture(scope="module")
def face_photo(tmp_path_factory):
    path = tmp_path_factory.mktemp("photos") / "astronaut.jpg"
    Image.fromarray(data.astronaut()).save(path, format="JPEG", quality=92)
    return path


def test_a_visitor_is_asked_to_sign_in_to_upgrade(page, app_server):
    open_page(page, app_server.url("/premium"))
    plan = page.get_by_test_id("premium-plan")
    expect(plan.get_by_text(messages.PREMIUM_PLAN_NAME)).to_be_visible()
    expect(page.get_by_test_id("premium-price")).to_have_text("$9.99")
    for benefit in messages.PREMIUM_BENEFITS:
        expect(plan.get_by_text(benefit)).to_be_visible()
    expect(plan.get_by_text(messages.PREMIUM_CANCEL_ANYTIME)).to_be_visible()

    page.get_by_role("button", name=messages.PREMIUM_SUBSCRIBE).click()
    expect(page.get_by_text(messages.SIGN_IN_TO_UPGRADE)).to_be_visible()
    wait_for_path(page, "/auth", "?next=/premium")


def test_a_member_subscribes_in_test_mode_and_cancels_at_period_end(page, app_server, face_photo):
    base = app_server.base_url
    new_member(page, base, "subscriber")
    expect(page.get_by_test_id("header-premium-badge")).to_have_count(0)

    open_page(page, f"{base}/premium")
    page.get_by_role("button", name=messages.PREMIUM_SUBSCRIBE).click()
    page.wait_for_url(re.compile(r"/checkout/test/?\?session=cs_test_local_\w+$"))
    checkout = page.get_by_test_id("test-checkout")
    expect(checkout.get_by_test_id("test-mode-notice")).to_have_text(messages.TEST_MODE_NOTICE)
    expect(checkout.get_by_test_id("checkout-item")).to_have_text(messages.PREMIUM_PLAN_NAME)
    expect(checkout.get_by_test_id("checkout-amount")).to_have_text("$9.99")
    pay = checkout.get_by_role("button", name=messages.TEST_CHECKOUT_PAY.format(amount="$9.99"))
    expect(pay).to_be_enabled()
    pay.click()

    wait_for_path(page, "/premium", "?success=true")
    expect(page.get_by_test_id("premium-success")).to_contain_text(messages.PREMIUM_WELCOME_TITLE)
    wait_for_path(page, "/dashboard")  # 2 s recheck, then 1 s later
    expect(page.get_by_test_id("header-premium-badge")).to_be_visible()
    open_page(page, f"{base}/user-dashboard")
    expect(page.get_by_test_id("overview-plan")).to_contain_text(messages.UNLIMITED_EDITS)
    page.get_by_role("tab", name="Premium").click()
    tab_status = page.get_by_test_id("premium-tab").get_by_test_id("premium-status")
    expect(tab_status).to_have_text(re.compile(rf"^Renews on {DATE}$"))

    open_page(page, f"{base}/premium")
    status = page.get_by_test_id("premium-status")
    expect(status).to_have_text(re.compile(rf"^Renews on {DATE}$"))
    renewal_date = status.inner_text().removeprefix("Renews on ")

    score_photo(page, base, face_photo)
    expect(page.get_by_text(messages.UNLIMITED_EDITS)).to_be_visible()

    open_page(page, f"{base}/premium")
    page.get_by_role("button", name=messages.PREMIUM_CANCEL).click()
    dialog = page.get_by_role("alertdialog")
    expect(dialog.get_by_text(messages.PREMIUM_CANCEL_CONFIRM_BODY)).to_be_visible()
    dialog.get_by_role("button", name=messages.PREMIUM_CANCEL_CONFIRM).click()
    expect(page.get_by_test_id("premium-status")).to_have_text(f"Cancels on {renewal_date}")
    expect(page.get_by_text(messages.PREMIUM_CANCELLED.format(date=renewal_date))).to_be_visible()
    expect(page.get_by_role("button", name=messages.PREMIUM_CANCEL)).to_have_count(0)

    page.reload()  # still Premium until then
    expect(page.get_by_test_id("premium-status")).to_have_text(f"Cancels on {renewal_date}")
    expect(page.get_by_test_id("header-premium-badge")).to_be_visible()


def test_cancelling_the_test_checkout_goes_back_without_premium(page, app_server):
    base = app_server.base_url
    new_member(page, base, "undecided")
    open_page(page, f"{base}/premium")
    page.get_by_role("button", name=messages.PREMIUM_SUBSCRIBE).click()
    checkout = page.get_by_test_id("test-checkout")
    expect(checkout.get_by_test_id("checkout-amount")).to_have_text("$9.99")
    checkout.get_by_role("button", name=messages.TEST_CHECKOUT_CANCEL).click()
    wait_for_path(page, "/premium")
    expect(page.get_by_role("button", name=messages.PREMIUM_SUBSCRIBE)).to_be_visible()
    expect(page.get_by_test_id("premium-member")).to_have_count(0)
