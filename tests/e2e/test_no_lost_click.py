"""A click the server does not answer is never an idle button: "Get My Score!" is busy
from the click, says in words when no answer has come, and its "Try again" scores the
photo once, however many clicks arrive; and a page whose load is never answered does
not stay dead.

The page's event socket runs through Playwright's websocket route: the test holds back
the page's "Get My Score!" events (a connection that dropped them, a worker restarting)
and lets them through when it chooses, both at once, as a reconnecting socket sends its
queue.
"""

from __future__ import annotations

import re
import threading
import time

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from prettyscore.accounts.models import AuthSession
from prettyscore.core import messages
from prettyscore.photos.models import Photo
from prettyscore.ui.layout import PAGE_LOAD_RETRY_SECONDS
from tests.e2e.flows import (
    astronaut_jpeg,
    choose_on_upload_page,
    member_id,
    new_member,
    open_page,
    score_photo,
    see_the_score,
    sign_in,
    sign_in_form,
    wait_for_path,
    with_app_database,
)
from tests.e2e.test_phone_layout import measure
from tests.helpers.app_server import NO_ANSWER_SECONDS

# The held events are let through at once, as a reconnecting socket sends its queue: that
# they run once is up to the state lock, Redis's in production.
pytestmark = [pytest.mark.e2e, pytest.mark.postgres_redis]

ANALYSE_EVENT = "score_state.analyse"


class HeldClicks:
    """The page's event sockets, holding back one event's frames while ``holding``; each
    held frame goes, when released, to the server connection of the socket it came on.
    ``sent`` counts the page's frames of that event, held or not. While ``answers`` is
    set, the server's frames from the first that matches it on are held back too, until
    ``release_answers``. ``cut`` closes every connection with its held frames, as when
    the worker that holds them dies."""

    def __init__(self, event: str, *, holding: bool = True, answers: str | None = None):
        self.event = event
        self.holding = holding
        self.sent = 0
        self.held: list[tuple[object, str]] = []
        self.answers = re.compile(answers) if answers else None
        self.held_answers: list[tuple[object, str]] = []
        self.connections: list[tuple[object, object]] = []
        self._lock = threading.Lock()

    def route(self, socket) -> None:
        server = socket.connect_to_server()
        self.connections.append((socket, server))

        def from_page(message) -> None:
            with self._lock:
                if isinstance(message, str) and self.event in message:
                    self.sent += 1
                    if self.holding:
                        self.held.append((server, message))
                        return
            server.send(message)

        def from_server(message) -> None:
            with self._lock:
                # Once one is held, the later ones wait behind it, as on a socket.
                if self.answers and (
                    self.held_answers or (isinstance(message, str) and self.answers.search(message))
                ):
                    self.held_answers.append((socket, message))
                    return
            socket.send(message)

        socket.on_message(from_page)
        server.on_message(from_server)

    def release_answers(self) -> None:
        with self._lock:
            self.answers = None
            _send_in_order(self.held_answers)

    def release(self) -> None:
        with self._lock:
            self.holding = False
            _send_in_order(self.held)

    def release_one(self) -> None:
        """Let the first held frame through; the others stay held."""
        with self._lock:
            server, message = self.held.pop(0)
            server.send(message)

    def cut(self) -> int:
        """Drop the held frames and close every connection; how many were held."""
        with self._lock:
            self.holding = False
            lost = len(self.held)
            self.held.clear()
            connections, self.connections = self.connections, []
        for page_side, server in connections:
            server.close()
            page_side.close()
        return lost


def _send_in_order(frames: list[tuple[object, str]]) -> None:
    """Send each held frame on to where it was going, and forget them."""
    for target, message in frames:
        target.send(message)
    frames.clear()


def expect_no_answer_notice(page, name: str):
    """The notice under the button: not shown at once, then shown with its words."""
    notice = page.get_by_test_id(f"no-answer-{name}")
    expect(notice).to_be_attached()
    expect(notice).to_be_hidden()  # not before NO_ANSWER_SECONDS
    expect(notice.get_by_text(messages.NO_ANSWER_YET)).to_be_visible(
        timeout=(NO_ANSWER_SECONDS + 5) * 1000
    )
    return notice


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
    notice = expect_no_answer_notice(page, "score")
    notice.get_by_role("button", name=messages.TRY_AGAIN).click()
    assert len(clicks.held) == 2  # the click and its retry, both held back

    clicks.release()
    see_the_score(page)
    made = [p for p in visitor_files(app_server) if p not in files_before]
    assert len(made) == 1, made  # one analysis: one picture of the measured lines


def test_a_photo_whose_answers_cross_still_says_when_its_score_does_not_come(
    page, app_server, tmp_path
):
    """The photo's answer (over HTTP) reaches the tab before the word that it is on its
    way (over the websocket), as on a busy server: once the photo is in, the page still
    knows it, and a click left unanswered still says so."""
    clicks = HeldClicks(ANALYSE_EVENT, answers=r'"uploading[^"]*":\s*true')
    page.route_web_socket(re.compile(r"/_event"), clicks.route)
    uploads = []
    page.route(re.compile(r"/_upload(\?|$)"), lambda route: uploads.append(route))
    open_page(page, f"{app_server.base_url}/upload")
    choose_on_upload_page(page, astronaut_jpeg(tmp_path))
    # The server takes the word of the upload first; its answer is held on the way.
    deadline = time.monotonic() + 10
    while not (uploads and clicks.held_answers) and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert uploads and clicks.held_answers, (len(uploads), len(clicks.held_answers))
    uploads[0].continue_()  # then the photo, whose answer overtakes it
    expect(page.get_by_role("img", name="Your chosen photo")).to_be_visible()
    clicks.release_answers()

    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    expect(page.get_by_role("button", name=messages.ANALYZING)).to_be_disabled(timeout=1000)
    expect_no_answer_notice(page, "score")
    clicks.release()
    see_the_score(page)


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


def test_an_unanswered_save_on_a_phone_says_so_and_trying_again_keeps_the_photo_once(
    new_context, app_server, tmp_path
):
    page = new_context(viewport=(390, 800)).new_page()
    clicks = HeldClicks("score_state.save_photo", holding=False)
    page.route_web_socket(re.compile(r"/_event"), clicks.route)
    address = new_member(page, app_server.base_url, "saver")
    score_photo(page, app_server.base_url, astronaut_jpeg(tmp_path))

    clicks.holding = True
    page.get_by_role("button", name="Save to My Photos").click()
    expect(page.get_by_role("button", name="Save to My Photos")).to_be_disabled(timeout=1000)
    notice = expect_no_answer_notice(page, "save")
    layout = measure(page)
    assert layout["scroll"] <= layout["inner"], layout["found"]
    notice.get_by_role("button", name=messages.TRY_AGAIN).click()
    assert len(clicks.held) == 2

    clicks.release()
    expect(page.get_by_role("button", name="Saved")).to_be_disabled()
    expect(notice).to_have_count(0)
    with with_app_database(app_server) as db:
        owner = member_id(db, address)
        assert len(db.exec(select(Photo).where(Photo.user_id == owner)).all()) == 1


class LostPageLoad:
    """The page's sockets, with every answer of the server to the page's first load
    lost on the way (the server failed it during a Redis restart, say), until the page
    asks for its state again by itself."""

    LOAD = "hydrate_and_load"

    def __init__(self):
        self.loads_sent = 0
        self.answers_lost = 0

    def route(self, socket) -> None:
        server = socket.connect_to_server()

        def from_page(message) -> None:
            if isinstance(message, str) and self.LOAD in message:
                self.loads_sent += 1
            server.send(message)

        def from_server(message) -> None:
            # Socket.IO's event packets ("42...") only: the connection itself stays up.
            if self.loads_sent == 1 and isinstance(message, str) and message.startswith("42"):
                self.answers_lost += 1
                return
            socket.send(message)

        socket.on_message(from_page)
        server.on_message(from_server)


def test_a_page_whose_load_is_never_answered_loads_again_by_itself(page, app_server):
    lost = LostPageLoad()
    page.route_web_socket(re.compile(r"/_event"), lost.route)
    page.goto(f"{app_server.base_url}/auth")
    ready = page.get_by_test_id("page-ready")
    form = page.locator("form").filter(
        has=page.get_by_placeholder(messages.PASSWORD_PLACEHOLDER, exact=True)
    )
    sign_in = form.get_by_role("button", name=messages.SIGN_IN)

    expect(sign_in).to_be_disabled()
    page.wait_for_timeout(3000)
    expect(ready).not_to_be_attached()  # the load's answers were lost: not live yet
    assert lost.answers_lost > 0

    expect(ready).to_be_attached(timeout=(PAGE_LOAD_RETRY_SECONDS + 10) * 1000)
    assert lost.loads_sent == 2  # asked once more, by itself
    form.get_by_placeholder(messages.EMAIL_PLACEHOLDER).fill("someone@example.com")
    form.get_by_placeholder(messages.PASSWORD_PLACEHOLDER, exact=True).fill("a password")
    expect(sign_in).to_be_enabled()


def test_a_press_lost_with_its_connection_is_sent_again_once_the_page_is_back(
    new_context, app_server, tmp_path
):
    """A sign-in, then a Save, each sent to a connection that dies before the server
    hears it: once the page has connected again it sends the press by itself, and each
    runs once, without anyone pressing "Try again"."""
    address = new_member(new_context().new_page(), app_server.base_url, "reconnect")
    page = new_context(viewport=(390, 800)).new_page()
    clicks = HeldClicks("auth_form_state.submit_sign_in")
    page.route_web_socket(re.compile(r"/_event"), clicks.route)
    open_page(page, f"{app_server.base_url}/auth")
    sign_in(page, address)
    expect(sign_in_form(page).get_by_role("button", name=messages.SIGN_IN)).to_be_disabled()
    page.wait_for_timeout(500)
    assert clicks.cut() == 1
    wait_for_path(page, "/dashboard")
    with with_app_database(app_server) as db:
        owner = member_id(db, address)
        sessions = db.exec(select(AuthSession).where(AuthSession.user_id == owner)).all()
    assert len(sessions) == 2  # the sign-up's, and this one sign-in's

    score_photo(page, app_server.base_url, astronaut_jpeg(tmp_path))
    clicks.event, clicks.holding = "score_state.save_photo", True
    page.get_by_role("button", name="Save to My Photos").click()
    page.wait_for_timeout(500)
    assert clicks.cut() == 1
    expect(page.get_by_role("button", name="Saved")).to_be_disabled(timeout=20_000)
    expect(page.get_by_test_id("no-answer-save")).to_have_count(0)
    with with_app_database(app_server) as db:
        assert len(db.exec(select(Photo).where(Photo.user_id == owner)).all()) == 1


PAGE_LOADING = r'is_hydrated[^"]*":\s*false'  # a page load's first snapshot


def test_a_save_pressed_while_the_results_page_loads_is_sent_and_saved_once(
    page, app_server, tmp_path
):
    """Save pressed as soon as the score shows, while /results is still loading: the
    page sends it once (it is not taken for a press cut off by a reconnect), and it is
    saved and said once."""
    address = new_member(page, app_server.base_url, "early-save")
    slow = HeldClicks("score_state.save_photo", holding=False)
    page.route_web_socket(re.compile(r"/_event"), slow.route)
    open_page(page, f"{app_server.base_url}/upload")
    choose_on_upload_page(page, astronaut_jpeg(tmp_path))
    slow.answers = re.compile(PAGE_LOADING)  # the server's frames, from /results' load on
    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    save = page.get_by_role("button", name="Save to My Photos")
    expect(save).to_be_visible(timeout=30_000)
    deadline = time.monotonic() + 10
    while not slow.held_answers and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert slow.held_answers, "the results page's load was not seen"
    save.click()
    page.wait_for_timeout(500)
    slow.release_answers()

    expect(page.get_by_role("button", name="Saved")).to_be_disabled(timeout=20_000)
    page.wait_for_timeout(3000)
    assert slow.sent == 1
    expect(page.get_by_text(messages.PHOTO_SAVED)).to_have_count(1)
    with with_app_database(app_server) as db:
        owner = member_id(db, address)
        assert len(db.exec(select(Photo).where(Photo.user_id == owner)).all()) == 1
