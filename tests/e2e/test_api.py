"""The public REST API on the running app (one port with the pages): its interactive
page works offline in a real browser, and the API and the pages share one account."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import expect

from tests.e2e.flows import sign_in, unique_email, wait_for_path

pytestmark = pytest.mark.e2e


def test_the_interactive_api_page_lists_the_api_and_loads_nothing_from_elsewhere(page, app_server):
    hosts: set[str] = set()
    page.on("request", lambda request: hosts.add(urlsplit(request.url).hostname or ""))

    page.goto(f"{app_server.base_url}/api/docs")

    expect(page.get_by_role("heading", name="PrettyScore API")).to_be_visible()
    expect(page.get_by_text("/auth/v1/signup", exact=True)).to_be_visible()
    expect(page.get_by_text("/functions/v1/edit-photo", exact=True)).to_be_visible()
    assert hosts <= {app_server.host}


def test_an_account_made_through_the_api_signs_in_on_the_page(page, app_server):
    address = unique_email("api")
    signed_up = httpx.post(
        f"{app_server.base_url}/auth/v1/signup",
        json={"email": address, "password": "secret12"},
        timeout=30,
    )
    token = signed_up.json()["access_token"]
    subscription = httpx.post(
        f"{app_server.base_url}/functions/v1/check-subscription",
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )

    page.goto(f"{app_server.base_url}/auth")
    sign_in(page, address)
    wait_for_path(page, "/dashboard")

    assert signed_up.status_code == 200
    assert subscription.json()["subscribed"] is False
    expect(page.get_by_test_id("dashboard-email")).to_have_text(address)
