"""The app is served in production mode: the home page renders, an unknown path shows
the not-found page."""

from __future__ import annotations

import urllib.request

from playwright.sync_api import expect

from prettyscore.core import messages
from tests.e2e.flows import open_page, wait_for_path


def test_server_answers_ping_and_serves_html(app_server):
    with urllib.request.urlopen(app_server.url("/ping"), timeout=10) as response:
        assert response.status == 200
    with urllib.request.urlopen(app_server.url("/"), timeout=10) as response:
        assert response.status == 200
        assert "text/html" in response.headers.get("content-type", "")


def test_home_page_renders_in_the_browser(page):
    page.goto("/")
    expect(page.get_by_text(messages.APP_NAME).first).to_be_visible()


def test_unknown_path_shows_the_not_found_page(page):
    page.goto("/no-such-page")
    expect(page.get_by_text(messages.NOT_FOUND_CODE, exact=True).first).to_be_visible()
    expect(page.get_by_text(messages.NOT_FOUND_TITLE)).to_be_visible()


def test_the_not_found_page_leads_back_home(page):
    page.goto("/no-such-page")
    page.get_by_role("link", name=messages.RETURN_TO_HOME).click()
    wait_for_path(page, "/")
    expect(page.get_by_text(messages.TRY_IT_NOW_FREE).first).to_be_visible()


def test_on_a_phone_the_sidebar_is_a_drawer_that_opens_and_navigates(new_context):
    page = new_context(viewport=(375, 812)).new_page()
    open_page(page, "/")
    sidebar_link = page.get_by_role("complementary").get_by_role("link", name=messages.NAV_PRIVACY)
    expect(sidebar_link).to_be_hidden()

    page.get_by_role("button", name=messages.NAV_OPEN_MENU).click()
    drawer = page.get_by_test_id("nav-drawer")
    expect(drawer).to_be_visible()
    for label in (messages.NAV_HOME, messages.NAV_UPLOAD_PHOTO, messages.NAV_LEADERBOARD):
        expect(drawer.get_by_role("link", name=label)).to_be_visible()
    drawer.get_by_role("link", name=messages.NAV_HOW_IT_WORKS).click()

    wait_for_path(page, "/how-it-works")
    expect(drawer).to_be_hidden()
    expect(page.get_by_role("heading", name=messages.NAV_HOW_IT_WORKS).first).to_be_visible()


def test_on_a_desktop_the_sidebar_shows_the_documents_groups(page):
    open_page(page, "/")
    sidebar = page.get_by_role("complementary")
    for group in (messages.NAV_MAIN, messages.NAV_PREMIUM, messages.NAV_ACCOUNT, messages.NAV_INFO):
        expect(sidebar.get_by_role("paragraph").filter(has_text=group).first).to_be_visible()
    expect(sidebar.get_by_role("link", name=messages.SIGN_IN)).to_be_visible()
    expect(page.get_by_role("button", name=messages.NAV_OPEN_MENU)).to_be_hidden()
