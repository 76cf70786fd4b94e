"""Feature gates in a real browser: visitors sign in first, a new member tries a gated
feature once, and once the server has recorded that use the feature is locked again."""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import expect

from prettyscore.billing.models import Subscription
from prettyscore.core import messages
from prettyscore.core.model_types import utcnow
from prettyscore.gates import service
from prettyscore.personality.quiz import QUESTIONS
from tests.e2e.flows import member_id, new_member, open_page, wait_for_path, with_app_database

pytestmark = pytest.mark.e2e


def record_a_use(app_server, address: str, feature: str) -> None:
    """What the feature's own page does once its work is done: record the use."""
    with with_app_database(app_server) as db:
        service.record_feature_usage(db, member_id(db, address), feature)


def locked_card(page):
    return page.get_by_test_id("gate-locked")


def test_a_visitor_is_sent_to_sign_in_and_back(page, app_server):
    page.goto(f"{app_server.base_url}/feet-upload")
    wait_for_path(page, "/auth", "?next=/feet-upload")
    expect(page.get_by_text(messages.SIGN_IN_TO_ACCESS_FEATURE)).to_be_visible()


def test_a_new_member_tries_feet_scoring_once(page, app_server):
    base = app_server.base_url
    address = new_member(page, base, "feet")
    open_page(page, f"{base}/feet-upload")
    locked = locked_card(page)
    expect(locked.get_by_text(messages.GATE_PREMIUM_REQUIRED_TITLE)).to_be_visible()
    expect(locked.get_by_text(messages.GATE_FREE_TRIALS_LEFT.format(n=1))).to_be_visible()
    expect(locked.get_by_role("link", name=messages.GATE_UPGRADE_TO_PREMIUM)).to_have_attribute(
        "href", "/premium"
    )
    expect(page.get_by_test_id("upload-zone")).to_have_count(0)

    locked.get_by_role("button", name=messages.GATE_ACTIVATE_FREE_TRIAL).click()
    expect(page.get_by_text(messages.TRIAL_ACTIVATED)).to_be_visible()
    gate = page.get_by_test_id("feature-gate-feet_scoring")
    expect(gate.get_by_role("heading", name=messages.TITLE_FEET_UPLOAD)).to_be_visible()
    expect(gate.get_by_test_id("upload-zone")).to_be_visible()
    expect(locked).to_have_count(0)

    record_a_use(app_server, address, service.FEET_SCORING)
    page.reload()
    expect(locked.get_by_text(messages.GATE_TRIAL_USED_TITLE)).to_be_visible()
    expect(locked.get_by_role("link", name=messages.GATE_UPGRADE_TO_PREMIUM)).to_be_visible()
    expect(locked.get_by_role("button", name=messages.GATE_ACTIVATE_FREE_TRIAL)).to_have_count(0)
    expect(page.get_by_test_id("upload-zone")).to_have_count(0)

    # the other gated features keep their own trial
    open_page(page, f"{base}/hands-upload")
    expect(locked.get_by_text(messages.GATE_PREMIUM_REQUIRED_TITLE)).to_be_visible()
    expect(locked.get_by_role("button", name=messages.GATE_ACTIVATE_FREE_TRIAL)).to_be_visible()


def test_a_premium_member_goes_straight_to_the_feature(page, app_server):
    base = app_server.base_url
    address = new_member(page, base, "premium")
    with with_app_database(app_server) as db:
        expires_at = utcnow() + timedelta(days=30)
        db.add(Subscription(user_id=member_id(db, address), expires_at=expires_at))
    open_page(page, f"{base}/personality-test")
    gate = page.get_by_test_id("feature-gate-personality_test")
    expect(gate.get_by_test_id("quiz-question")).to_have_text(QUESTIONS[0].text)
    expect(locked_card(page)).to_have_count(0)
