"""The members' dashboard tabs in a real browser: Overview, My Photos, Personality, Premium."""

from __future__ import annotations

import re
import time
import uuid

import pytest
from PIL import Image
from playwright.sync_api import expect
from skimage import data

from prettyscore.core import constants, messages
from tests.e2e.flows import (
    member_id,
    new_member,
    open_page,
    save_scored_photo,
    wait_for_path,
    with_app_database,
)
from tests.helpers import stripe_events
from tests.helpers.app_server import STRIPE_WEBHOOK_SECRET

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def face_photo(tmp_path_factory):
    path = tmp_path_factory.mktemp("photos") / "astronaut.jpg"
    Image.fromarray(data.astronaut()).save(path, format="JPEG", quality=92)
    return path


def test_a_member_finds_their_figures_in_the_overview(page, app_server, face_photo):
    base = app_server.base_url
    new_member(page, base, "overview")
    open_page(page, f"{base}/user-dashboard")
    expect(page.get_by_role("tab", name="Overview")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("overview-photos")).to_have_text("0")
    expect(page.get_by_test_id("overview-best")).to_have_text("–")
    plan = page.get_by_test_id("overview-plan")
    expect(plan).to_contain_text("Free plan")
    expect(plan).to_contain_text(f"Free edits remaining: {constants.FREE_EDITS}")

    save_scored_photo(page, base, face_photo)
    score = page.get_by_test_id("score-value").inner_text()
    open_page(page, f"{base}/user-dashboard")
    expect(page.get_by_test_id("overview-photos")).to_have_text("1")
    expect(page.get_by_test_id("overview-best")).to_have_text(re.compile(re.escape(score[:3])))

    page.get_by_role("tab", name="Personality").click()
    expect(page.get_by_text("You haven't taken the personality test yet.")).to_be_visible()
    page.get_by_role("tab", name="Premium").click()
    expect(page.get_by_test_id("premium-tab")).to_contain_text("Free plan")
    expect(page.get_by_role("link", name="Upgrade to Premium")).to_have_attribute(
        "href", "/premium"
    )


def test_the_address_chooses_the_tab(page, app_server):
    base = app_server.base_url
    new_member(page, base, "tabs")  # lands on /dashboard: My Photos
    expect(page.get_by_role("tab", name="My Photos")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("photo-count")).to_have_text("My Photos (0)")
    open_page(page, f"{base}/dashboard?tab=premium")
    expect(page.get_by_test_id("premium-tab")).to_be_visible()
    open_page(page, f"{base}/user-dashboard?tab=nonsense")
    expect(page.get_by_role("tab", name="Overview")).to_have_attribute("aria-selected", "true")


def test_visitors_are_sent_to_sign_in(page, app_server):
    page.goto(f"{app_server.base_url}/user-dashboard")
    wait_for_path(page, "/auth", "?next=/user-dashboard")


def test_an_open_dashboard_shows_a_new_subscription_without_a_reload(page, app_server):
    """The dashboard checks the subscription again while it is open: every 30 s by
    default, every 3 s on the test server (SUBSCRIPTION_RECHECK_SECONDS)."""
    base = app_server.base_url
    address = new_member(page, base, "watcher")
    open_page(page, f"{base}/user-dashboard")
    plan = page.get_by_test_id("overview-plan")
    expect(plan).to_contain_text("Free plan")

    with with_app_database(app_server) as db:
        user_id = member_id(db, address)
    subscription = f"sub_{uuid.uuid4().hex[:10]}"
    paid_elsewhere = stripe_events.subscription_event(
        "created", subscription, user_id, created=int(time.time())
    )
    answer = stripe_events.deliver(base, paid_elsewhere, STRIPE_WEBHOOK_SECRET)
    assert answer.status_code == 200
    expect(plan).to_contain_text(messages.UNLIMITED_EDITS, timeout=20_000)
