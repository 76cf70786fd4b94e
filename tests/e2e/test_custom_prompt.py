"""Custom AI Edit as people use it: Enter sends the edit however fast it follows the
typing (a phone keyboard's "Go", a quick typist), on the results page and /editor; and
what the local engine cannot do gets one short line of what it can, left long enough
to read.

The Edit button follows the server's copy of the text, which may be a keystroke behind;
Enter must not depend on it.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from prettyscore.core import constants, messages
from tests.e2e.flows import astronaut_jpeg, open_page, score_photo
from tests.e2e.test_editor import upload_on_editor

pytestmark = pytest.mark.e2e

#: A fast typist's pause between keys (the reports had 60 to 250 ms).
KEY_DELAY_MS = 60


def type_and_press_enter_at_once(page, prompt: str) -> None:
    field = page.get_by_label("Editing instruction")
    field.click()
    field.press_sequentially(prompt, delay=KEY_DELAY_MS)
    field.press("Enter")  # no pause: within the first keystroke's round trip


def expect_one_edit_made(page) -> None:
    remaining = constants.FREE_EDITS - 1
    expect(page.get_by_text(messages.PHOTO_EDITED_REMAINING.format(n=remaining))).to_be_visible(
        timeout=30_000
    )


def test_enter_right_after_typing_edits_the_result(new_context, app_server, tmp_path):
    page = new_context(viewport=(390, 800)).new_page()
    score_photo(page, app_server.base_url, astronaut_jpeg(tmp_path))
    type_and_press_enter_at_once(page, "make it warmer")
    expect_one_edit_made(page)


def test_enter_right_after_typing_edits_in_the_editor(new_context, app_server, tmp_path):
    page = new_context(viewport=(390, 800)).new_page()
    open_page(page, f"{app_server.base_url}/editor")
    upload_on_editor(page, astronaut_jpeg(tmp_path))
    expect(page.get_by_role("img", name="Photo being edited")).to_be_visible()
    type_and_press_enter_at_once(page, "make it brighter please")
    expect_one_edit_made(page)


def test_an_edit_it_cannot_do_gets_one_short_line_that_stays_to_be_read(
    new_context, app_server, tmp_path
):
    page = new_context(viewport=(390, 800)).new_page()
    score_photo(page, app_server.base_url, astronaut_jpeg(tmp_path))
    type_and_press_enter_at_once(page, "make the background a beach")
    refusal = page.get_by_text(messages.EDIT_NOT_SUPPORTED)
    expect(refusal).to_be_visible(timeout=30_000)
    box = refusal.bounding_box()
    assert box["height"] < 100, box  # a few lines on a phone, not a paragraph
    page.wait_for_timeout(6000)  # past the toaster's usual 4 s
    expect(refusal).to_be_visible()
    left = page.get_by_test_id("free-edits-left")
    expect(left).to_contain_text(str(constants.FREE_EDITS))  # no free edit used
