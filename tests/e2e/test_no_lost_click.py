"""A click the server does not answer is never an idle button: "Get My Score!" is busy
from the click, says in words when no answer has come, and its "Try again" scores the
photo once, however many clicks arrive.

The page's event socket runs through Playwright's websocket route: the test holds back
the page's "Get My Score!" events (a connection that dropped them, a worker restarting)
and lets them through when it chooses, both at once, as a reconnecting socket sends its
queue.
"""

from __future__ import annotations

import re
import threading

import pytest
from playwright.sync_api import expect

from prettyscore.core import messages
from prettyscore.ui.server_wait import NO_ANSWER_SECONDS
from tests.e2e.flows import astronaut_jpeg, choose_on_upload_page, open_page, see_the_score

pytestmark = pytest.mark.e2e

ANALYSE_EVENT = "score_state.analyse"


class HeldClicks:
    """The page's event socket, holding back the frames of one event until released."""

    def __init__(self, event: str):
        self.event = event
        self.held: list[str] = []
        self.holding = True
        self._server = None
        self._lock = threading.Lock()

    def route(self, socket) -> None:
        self._server = socket.connect_to_server()
        socket.on_message(self._from_page)

    def _from_page(self, message) -> None:
        with self._lock:
            if self.holding and isinstance(message, str) and self.event in message:
                self.held.append(message)
                return
        self._server.send(message)

    def release(self) -> None:
        with self._lock:
            self.holding = False
            for message in self.held:
                self._server.send(message)


def visitor_files(app_server) -> list:
    media = app_server.data_dir / "media"
    return sorted(p for p in media.rglob("*") if p.is_file()) if media.exists() else []


def test_an_unanswered_click_says_so_and_trying_again_scores_the_photo_once(
    page, app_server, tmp_path
):
    clicks = HeldClicks(ANALYSE_EVENT)
    page.route_web_socket(re.compile(r"/_event"), clicks.route)
    open_page(page, f"{app_server.base_url}/upload")
    choose_on_upload_page(page, astronaut_jpeg(tmp_path))
    expect(page.get_by_role("img", name="Your chosen photo")).to_be_visible()
    files_before = visitor_files(app_server)

    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    # Busy at once, though the server has heard nothing.
    expect(page.get_by_role("button", name=messages.ANALYZING)).to_be_disabled(timeout=1000)
    notice = page.get_by_test_id("no-answer-score")
    expect(notice).to_be_attached()
    expect(notice).to_be_hidden()  # not before NO_ANSWER_SECONDS
    expect(notice.get_by_text(messages.NO_ANSWER_YET)).to_be_visible(
        timeout=(NO_ANSWER_SECONDS + 5) * 1000
    )
    notice.get_by_role("button", name=messages.TRY_AGAIN).click()
    assert len(clicks.held) == 2  # the click and its retry, both held back

    clicks.release()
    see_the_score(page)
    made = [p for p in visitor_files(app_server) if p not in files_before]
    assert len(made) == 1, made  # one analysis: one picture of the measured lines


def test_a_repeated_click_after_the_answer_shows_the_same_result_without_a_second_analysis(
    page, app_server, tmp_path
):
    open_page(page, f"{app_server.base_url}/upload")
    choose_on_upload_page(page, astronaut_jpeg(tmp_path))
    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    see_the_score(page)
    files_after_first = visitor_files(app_server)
    score = page.get_by_test_id("results").get_by_text(re.compile(r"^\d+(\.\d)?/10$")).first
    first = score.inner_text()

    page.go_back()
    expect(page.get_by_role("img", name="Your chosen photo")).to_be_visible()
    button = page.get_by_role("button", name=messages.GET_MY_SCORE)
    expect(button).to_be_enabled()  # a fresh page forgets the earlier wait
    button.click()
    see_the_score(page)
    assert score.inner_text() == first
    assert visitor_files(app_server) == files_after_first
