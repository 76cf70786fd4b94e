"""`make run` restarted under an open page: the page reconnects by itself and goes on.

`make run`'s default shape is one web process with the in-memory state manager: a
restart (a deploy, a crash of the whole process, a developer's Ctrl-C and run again)
loses every tab's state. A member with /upload open, a photo chosen, meets a restart:
without a reload, the page reconnects to the new process, is still the member's (the
session lives in the database and the browser's cookies), asks for the photo again as a
new page would, scores it and saves it.
"""

from __future__ import annotations

import secrets

import pytest
from playwright.sync_api import expect

from prettyscore.core import messages
from tests.e2e.flows import (
    astronaut_jpeg,
    choose_on_upload_page,
    new_member,
    open_page,
    see_the_score,
)
from tests.helpers.app_server import running_app

pytestmark = pytest.mark.e2e


def test_an_open_page_goes_on_across_a_restart_of_the_app(browser, tmp_path):
    photo = astronaut_jpeg(tmp_path)
    run_dir = tmp_path / "app"
    # What `make run` keeps across restarts: the data folder's secret (the browser keys
    # and tokens stay valid).
    kept = {"SECRET_KEY": secrets.token_urlsafe(32)}
    with running_app("before-restart", run_dir, job_worker=False, extra_env=kept) as first:
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        new_member(page, first.base_url, "restart")
        open_page(page, f"{first.base_url}/upload")
        choose_on_upload_page(page, photo)
        chosen = page.get_by_role("img", name="Your chosen photo")
        expect(chosen).to_be_visible()
        host = first.host

    # The app is down: the page stays as it was. The same app starts again at its address.
    with running_app("after-restart", run_dir, job_worker=False, host=host, extra_env=kept):
        expect(chosen).to_be_hidden(timeout=30_000)  # the new process has a fresh state
        choose_on_upload_page(page, photo)
        expect(chosen).to_be_visible()
        page.get_by_role("button", name=messages.GET_MY_SCORE).click()
        see_the_score(page)
        page.get_by_role("button", name="Save to My Photos").click()  # still the member's
        expect(page.get_by_text(messages.PHOTO_SAVED)).to_be_visible()
        context.close()
