"""Admin pages are guarded on the server: visitors to /auth, members refused, admins in."""

from __future__ import annotations

import subprocess
import sys

import pytest
from playwright.sync_api import expect

from prettyscore.core import messages
from tests.e2e.flows import expect_on_load_notice, new_member, wait_for_path

pytestmark = pytest.mark.e2e


def grant_admin(app_server, address: str) -> None:
    """The documented command, run against the test server's database."""
    subprocess.run(
        [sys.executable, "-m", "prettyscore", "admin", "grant", address],
        check=True,
        env=app_server.env,
        capture_output=True,
    )


def test_visitor_goes_to_sign_in(page, app_server):
    page.goto(f"{app_server.base_url}/admin/partners")
    wait_for_path(page, "/auth", "?next=/admin/partners")


@pytest.mark.parametrize(
    ("route", "refusal"),
    [
        ("/admin/partners", messages.ACCESS_DENIED_ADMIN_ONLY),
        ("/admin/payouts", messages.ACCESS_DENIED_ADMIN_ONLY),
        ("/admin/verification", messages.ADMIN_ACCESS_REQUIRED),
    ],
)
def test_member_is_refused_with_the_documents_message_and_sent_home(
    page, app_server, route, refusal
):
    base = app_server.base_url
    new_member(page, base)
    page.goto(f"{base}{route}")
    expect_on_load_notice(page, refusal)
    wait_for_path(page, "/")


def test_an_admin_granted_from_the_command_line_gets_in(page, app_server):
    base = app_server.base_url
    address = new_member(page, base, "admin")
    grant_admin(app_server, address)
    page.goto(f"{base}/admin/verification")
    expect(page.get_by_role("heading", name="Verification Requests")).to_be_visible()
    wait_for_path(page, "/admin/verification")
