"""Results and My Photos show their photo from the first paint, before the app has loaded.

In a real browser against the running app. "Before the app has loaded" is made to last:
the page's scripts are held back (their requests fail), so what is on screen is only what
the served HTML and its inline scripts put there.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from prettyscore.photos.models import Photo
from tests.e2e.flows import (
    astronaut_jpeg,
    member_id,
    new_member,
    open_page,
    save_scored_photo,
    score_photo,
    wait_until_ready,
    with_app_database,
)

pytestmark = pytest.mark.e2e

EARLY_PHOTO = "[data-early-photo]"
APP_SCRIPTS = "**/assets/*.js"


@pytest.fixture(scope="module")
def photo(tmp_path_factory):
    return astronaut_jpeg(tmp_path_factory.mktemp("early"))


def without_the_app(page) -> None:
    """From now on the page's scripts do not load: only the served HTML shows."""
    page.route(APP_SCRIPTS, lambda route: route.abort())


def loaded_image_source(page) -> str:
    """The address of the early photo, once it is on screen and has loaded."""
    frame = page.locator(EARLY_PHOTO)
    expect(frame).to_be_visible()
    image = frame.locator("img")
    expect(image).to_have_js_property("complete", True)
    assert image.evaluate("img => img.naturalWidth") > 0
    return image.get_attribute("src")


def test_my_photos_paints_the_members_newest_photo_before_the_app_loads(page, app_server, photo):
    base = app_server.base_url
    address = new_member(page, base, "early")
    save_scored_photo(page, base, photo)
    with with_app_database(app_server) as db:
        user = member_id(db, address)
        saved = db.exec(select(Photo).where(Photo.user_id == user)).one()

    without_the_app(page)
    page.goto(f"{base}/dashboard")
    assert loaded_image_source(page) == saved.original_image_url
    expect(page.get_by_text("Loading your photos...")).to_be_visible()

    # With the app, the page takes over: the grid's card, and no early photo any more.
    page.unroute(APP_SCRIPTS)
    open_page(page, f"{base}/dashboard")
    card = page.get_by_test_id("photo-card").locator("img")
    expect(card).to_have_attribute("src", saved.original_image_url)
    expect(page.locator(EARLY_PHOTO)).to_have_count(0)


def test_my_photos_has_no_early_photo_for_a_visitor(page, app_server):
    without_the_app(page)
    page.goto(f"{app_server.base_url}/dashboard")
    expect(page.get_by_text("Loading your photos...")).to_be_visible()
    expect(page.locator(EARLY_PHOTO)).to_be_hidden()
    assert page.locator(f"{EARLY_PHOTO} img").get_attribute("src") is None


def test_results_reloaded_paints_the_tabs_photo_before_the_app_loads(page, app_server, photo):
    base = app_server.base_url
    score_photo(page, base, photo)
    wait_until_ready(page)
    shown = page.get_by_role("img", name="Your photo").get_attribute("src")
    assert shown.startswith("/media/v/")

    without_the_app(page)
    page.reload()
    assert loaded_image_source(page) == shown

    # Another tab of the same browser has scored nothing: it shows no photo.
    other_tab = page.context.new_page()
    other_tab.route(APP_SCRIPTS, lambda route: route.abort())
    other_tab.goto(f"{base}/results")
    expect(other_tab.locator(EARLY_PHOTO)).to_be_hidden()

    # With the app, the results replace the early photo.
    page.unroute(APP_SCRIPTS)
    page.reload()
    expect(page.get_by_test_id("results")).to_be_visible()
    expect(page.get_by_test_id("score-value")).to_be_visible()
    expect(page.locator(EARLY_PHOTO)).to_have_count(0)
