"""The production shape: two web processes, one job worker, PostgreSQL, Redis and S3.

README "Production: PostgreSQL, Redis, several workers" promises that with PostgreSQL and
Reflex's Redis state manager any web process may serve any event of any tab, that photos
and videos live in one bucket every machine sees, and that renders and AI edits run on
job workers. Granian spreads connections over its workers by chance, so this module does
not rely on it: it starts TWO separate app processes (one Granian worker each) on the
same database, Redis, bucket (a real S3 server, SeaweedFS) and SECRET_KEY, with one job
worker beside them, and puts the web processes behind one address, a TCP proxy the test
switches (tests/helpers/tcp_proxy.py). A connection keeps the process it was opened to,
as behind a real load balancer, and the proxy records which process each browser
connection went to: that record, not the switch, is the evidence of who served what.

The member's journey: upload, score, save and an AI edit on A (the files in the bucket,
the edit made by the job worker); a video started on A, whose web process then dies and
is replaced while the tab goes on through B, and whose job worker is killed in the
middle of the render and replaced too; the clip, rendered by the new worker, plays back
through B. (The video engine is the remote one, on a fake provider on 127.0.0.1 that
holds the first worker's render, so the kill lands mid-render for certain.)

The chat: Ann's tab signs in and opens a chat on process A; Bob's tab opens the same chat
on B; their messages cross between the processes live. Then A's connections are cut:
Ann's tab reconnects to B and goes on, still signed in and with its state (a half-typed
message) intact; finally A is stopped and her tab still works. (That test stops A: it
runs last.)

Both processes serve one frontend build (the test run's), as the workers of one `make
run` do: Reflex compiles each build's time and a random project hash into its JavaScript,
so two builds of the same code name their files differently, and a page built by A, asking
B for a part it has not loaded yet (the next page's code), would get a 404 and reload in
place instead of navigating. The proxy listens on the build's port of a loopback address,
A and B on the same port of two others (``tests/helpers/app_server.py`` says why).
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import BrowserContext, Page, expect
from skimage import data

from prettyscore.chat import live
from prettyscore.core import messages
from tests.conftest import POSTGRES_SKIP_REASON, REDIS_SKIP_REASON, postgres_url, redis_url
from tests.e2e.flows import (
    member_name,
    new_member,
    open_page,
    paid_contact_request,
    save_scored_photo,
    wait_for_path,
    wait_until_ready,
)
from tests.e2e.test_chat import redis_announcements
from tests.e2e.test_dashboard_editor import open_editor, toast
from tests.e2e.test_video import open_video_dialog_from_my_photos
from tests.fixtures.ai_provider import API_KEY
from tests.fixtures.browser import browser_contexts
from tests.fixtures.object_storage import ACCESS_KEY_ID, REGION, SECRET_ACCESS_KEY, S3Server
from tests.helpers import app_server
from tests.helpers.app_server import (
    AppServer,
    AppServerError,
    free_loopback_host,
    frontend_build,
    granian_workers,
    running_app,
    start_job_worker,
    stop_process_group,
)
from tests.helpers.fake_ai_provider import FakeAIProvider, Reply
from tests.helpers.tcp_proxy import Backend, Connection, TcpProxy, running_proxy

# One test process starts the two app processes behind one proxy for the whole file; a
# tab moved from one to the other under the load of other browser tests once reconnected
# before the first had let go of it, so `make test` runs the file alone.
pytestmark = [pytest.mark.e2e, pytest.mark.alone, pytest.mark.xdist_group("two_processes")]

#: Server-driven updates on a loaded two-core machine: well under a second when idle.
ARRIVES_WITHIN_MS = 15_000
RECONNECT_WITHIN_SECONDS = 15.0
#: What Reflex shows when a tab reconnects to a backend built from another state tree.
NEW_VERSION_BANNER = "A new version of this app is available."


#: The fake video provider's routes (the remote engine's API).
CREATE, TASK, CLIP = "/v1/image_to_video", "/v1/tasks/task-42", "/files/clip.mp4"
#: A render, a worker's death noticed (JOB_HEARTBEAT_TIMEOUT_SECONDS below) and a retry.
VIDEO_WITHIN_MS = 90_000


@dataclass
class TwoProcesses:
    """Processes A and B of one PrettyScore, behind ``proxy`` (open ``proxy.url``), their
    bucket on ``s3``, their job worker (``workers[-1]``), and the video provider."""

    proxy: TcpProxy
    a: AppServer
    b: AppServer
    s3: S3Server
    bucket: str
    provider: FakeAIProvider
    workers: list[subprocess.Popen]
    worker_log: Path

    @property
    def base_url(self) -> str:
        return self.proxy.url

    def start_job_worker(self) -> None:
        """One more job worker, with A's environment (what a worker machine would have)."""
        with self.worker_log.open("a") as log:
            self.workers.append(start_job_worker(self.a.env, log))

    def kill_job_worker(self) -> None:
        """The running job worker dies at once (SIGKILL to its processes)."""
        worker = self.workers[-1]
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()

    def bucket_keys(self, prefix: str) -> list[str]:
        listing = self.s3.client().list_objects_v2(Bucket=self.bucket, Prefix=prefix)
        return [item["Key"] for item in listing.get("Contents", [])]


@pytest.fixture(scope="module")
def two_processes(request, tmp_path_factory, s3_server) -> Iterator[TwoProcesses]:
    """Two single-worker app processes sharing PostgreSQL, Redis, SECRET_KEY, a bucket
    and the job queue, with one job worker.

    Both serve the run's frontend build, and their PUBLIC_URL is the proxy's address, on
    the build's port: the pages' websocket and uploads go through the proxy like
    everything else.
    """
    if postgres_url() is None:
        pytest.skip(POSTGRES_SKIP_REASON)
    redis = redis_url()
    if redis is None:
        pytest.skip(REDIS_SKIP_REASON)
    database_url = request.getfixturevalue("postgres_databases").create()
    shared = tmp_path_factory.mktemp("two-processes")
    try:
        port = frontend_build().ready(shared).port
    except AppServerError as error:
        pytest.fail(str(error), pytrace=False)
    bucket = f"ps-shape-{secrets.token_hex(6)}"
    s3_server.client().create_bucket(Bucket=bucket)
    provider = FakeAIProvider().start()
    with running_proxy(host=free_loopback_host(port), port=port) as proxy:
        same_everywhere = {
            "GRANIAN_WORKERS": "1",
            "PUBLIC_URL": proxy.url,
            "SECRET_KEY": secrets.token_urlsafe(32),
            "DATA_DIR": str(shared / "data"),
            "REFLEX_UPLOADED_FILES_DIR": str(shared / "uploaded_files"),
            "MEDIA_STORE": "s3",
            "S3_ENDPOINT_URL": s3_server.endpoint,
            "S3_BUCKET": bucket,
            "S3_ACCESS_KEY_ID": ACCESS_KEY_ID,
            "S3_SECRET_ACCESS_KEY": SECRET_ACCESS_KEY,
            "S3_REGION": REGION,
            "JOB_QUEUE": "redis",
            "JOB_NAMESPACE": f"prettyscore-shape-{secrets.token_hex(8)}",
            "JOB_HEARTBEAT_TIMEOUT_SECONDS": "3",
            "VIDEO_ENGINE": "http",
            "VIDEO_API_BASE": provider.url + "/v1",
            "VIDEO_API_KEY": API_KEY,
            "VIDEO_POLL_SECONDS": "0.2",
        }

        def start(name: str):
            return running_app(
                name,
                shared / name,
                database_url=database_url,
                redis_url=redis,
                extra_env=same_everywhere,
                job_worker=False,
            )

        try:
            with start("a") as a, start("b") as b:
                for server in (a, b):
                    print(
                        f"\n[two-processes] {server.name} at {server.base_url} after "
                        f"{server.startup_seconds:.1f} s (log: {server.log_path})"
                    )
                print(f"[two-processes] both behind {proxy.url}")
                shape = TwoProcesses(
                    proxy, a, b, s3_server, bucket, provider, [], shared / "job-worker.log"
                )
                shape.start_job_worker()
                try:
                    yield shape
                finally:
                    for worker in shape.workers:
                        stop_process_group(worker)
        except AppServerError as error:
            pytest.fail(str(error), pytrace=False)
        finally:
            provider.stop()


@pytest.fixture
def new_context(browser, two_processes) -> Iterator[Callable[[], BrowserContext]]:
    """Browser contexts (separate people) opening the app at the proxy's address."""
    with browser_contexts(browser, two_processes.base_url) as make:
        yield make


# -- what a person sees ------------------------------------------------------------------
def _chat_input(page: Page):
    return page.get_by_test_id("chat-input")


def _theirs(page: Page):
    """The texts of the other party's messages on ``page``."""
    return page.get_by_test_id("message-theirs").get_by_test_id("message-text")


def _send(page: Page, text: str) -> None:
    _chat_input(page).fill(text)
    expect(page.get_by_role("button", name=messages.CHAT_SEND)).to_be_enabled()
    _chat_input(page).press("Enter")


# -- which process served a tab ---------------------------------------------------------------
def _tab_token(page: Page) -> str:
    """The tab's Reflex session token: its state's key in Redis, sent on every websocket."""
    return page.evaluate("window.sessionStorage.getItem('token')")


def _event_sockets(proxy: TcpProxy, backend: Backend, token: str) -> list[Connection]:
    """The websockets this tab (``token``) opened through the proxy to ``backend``."""
    return [
        item
        for item in proxy.opened(backend, event_sockets_only=True)
        if f"token={token}" in item.first_line
    ]


def _wait_for_open_socket(proxy: TcpProxy, backend: Backend, token: str) -> float:
    """Seconds until the tab has an open websocket to ``backend``; fails after a while."""
    started = time.monotonic()
    while not any(item.open for item in _event_sockets(proxy, backend, token)):
        if time.monotonic() - started > RECONNECT_WITHIN_SECONDS:
            pytest.fail(f"The tab did not reconnect to port {backend}")
        time.sleep(0.1)
    return time.monotonic() - started


# -- the tests --------------------------------------------------------------------------
def test_a_photo_goes_from_upload_to_a_played_video_across_the_production_shape(
    new_context, two_processes, tmp_path, provider_clip
):
    shape, proxy = two_processes, two_processes.proxy
    a, b, base = shape.a.address, shape.b.address, shape.base_url
    clip = provider_clip[0]
    clip_url = shape.provider.host(CLIP, clip, "video/mp4")
    # The first worker's render hangs at the provider; the next one is answered.
    shape.provider.script(
        "POST", CREATE, Reply(json={"id": "task-42"}, delay=120), Reply(json={"id": "task-42"})
    )
    shape.provider.script(
        "GET", TASK, Reply(json={"id": "task-42", "status": "SUCCEEDED", "output": [clip_url]})
    )
    photo = tmp_path / "astronaut.jpg"
    Image.fromarray(data.astronaut()).save(photo, format="JPEG", quality=92)
    page = new_context().new_page()

    # On A: sign up, upload, score and save; the photo's files are in the bucket.
    proxy.switch_to(a)
    new_member(page, base, "shape")
    save_scored_photo(page, base, photo)
    assert shape.bucket_keys("u/"), "the saved photo is not in the bucket"

    # An AI edit (made by the job worker), then a video of the edited photo.
    open_page(page, f"{base}/dashboard")
    panel = open_editor(page)
    panel.get_by_role("button", name="Blur background").click()
    toast(page, messages.PHOTO_EDITED_REMAINING.format(n=4)).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("editor-panel")).to_be_hidden()
    dialog = open_video_dialog_from_my_photos(page)
    dialog.get_by_role("button", name="Generate Video").click()
    expect(page.get_by_text(messages.VIDEO_STARTED)).to_be_visible()
    expect(dialog.get_by_test_id("video-processing")).to_be_visible()
    token = _tab_token(page)
    assert any(item.open for item in _event_sockets(proxy, a, token))

    # The job worker is rendering (the provider holds its call) when A's web process dies
    # (Granian starts a fresh one) and the tab goes on through B; then the job worker is
    # killed mid-render and another one starts.
    shape.provider.wait_for("POST", CREATE)
    proxy.switch_to(b)
    for pid in granian_workers(shape.a):
        os.kill(pid, signal.SIGKILL)
    seconds = _wait_for_open_socket(proxy, b, token)
    print(f"\n[production-shape] the tab went on through B after {seconds:.2f} s")
    shape.kill_job_worker()
    shape.start_job_worker()

    # The new worker renders the clip; B follows the job and plays it back from the bucket.
    player = dialog.get_by_test_id("video-player")
    expect(player).to_be_visible(timeout=VIDEO_WITHIN_MS)
    expect(page.get_by_text(messages.VIDEO_GENERATED)).to_be_visible()
    source = player.get_attribute("src")
    answer = page.request.get(f"{base}{source}")
    assert answer.status == 200 and answer.headers["content-type"] == "video/mp4"
    assert answer.body() == clip
    assert any(item.first_line.startswith(f"GET {source}") for item in proxy.opened(b))
    assert len(shape.provider.received("POST", CREATE)) == 2
    assert _tab_token(page) == token
    expect(page.get_by_text(NEW_VERSION_BANNER)).to_have_count(0)


def test_a_session_and_a_live_chat_span_two_backend_processes(new_context, two_processes):
    proxy, a, b = two_processes.proxy, two_processes.a.address, two_processes.b.address
    base = two_processes.base_url
    ann, bob = new_context().new_page(), new_context().new_page()

    # Ann signs up on A, Bob on B; Ann opens their chat on A, Bob on B.
    proxy.switch_to(a)
    ann_address = new_member(ann, base, "ann")
    proxy.switch_to(b)
    bob_address = new_member(bob, base, "bob")
    request_id = paid_contact_request(two_processes.a, ann_address, bob_address)
    chat_url = f"{base}/messages/{request_id}"
    proxy.switch_to(a)
    open_page(ann, chat_url)
    proxy.switch_to(b)
    open_page(bob, chat_url)
    ann_token, bob_token = _tab_token(ann), _tab_token(bob)
    assert any(item.open for item in _event_sockets(proxy, a, ann_token))
    assert not _event_sockets(proxy, b, ann_token)
    assert any(item.open for item in _event_sockets(proxy, b, bob_token))
    assert not _event_sockets(proxy, a, bob_token)
    expect(ann.get_by_test_id("chat-with")).to_contain_text(member_name(bob_address))

    # Messages cross from A to B and back, live, without a reload. A announces through
    # Redis and B's page wakes on it: without Redis the message would still come, by the
    # page's own look at the database every 15 s, which is not what this proves.
    with redis_announcements(two_processes.a) as announced:
        sent = time.monotonic()
        _send(ann, "Hello Bob, this is Ann on process A")
        expect(_theirs(bob)).to_have_text(
            "Hello Bob, this is Ann on process A", timeout=ARRIVES_WITHIN_MS
        )
        print(f"\n[two-processes] A to B in {time.monotonic() - sent:.2f} s")
        assert live.channel(request_id) in announced()
    sent = time.monotonic()
    _send(bob, "Hi Ann, Bob here on process B")
    expect(_theirs(ann)).to_have_text("Hi Ann, Bob here on process B", timeout=ARRIVES_WITHIN_MS)
    print(f"[two-processes] B to A in {time.monotonic() - sent:.2f} s")

    # Ann half-types a message (her tab's state, kept in Redis), then A drops her: her tab
    # reconnects through the proxy, which now leads to B only.
    draft = "Typed on A, sent from B"
    _chat_input(ann).fill(draft)
    expect(ann.get_by_role("button", name=messages.CHAT_SEND)).to_be_enabled()  # A has it
    connections_to_a = len(proxy.opened(a))
    assert proxy.close_connections(a) >= 1
    seconds = _wait_for_open_socket(proxy, b, ann_token)
    print(f"\n[two-processes] Ann's tab reconnected to B after {seconds:.2f} s")

    # B serves her from now on: Bob's next message reaches her live (B re-ran her page's
    # on_load and follows the chat for her), and her draft is still there.
    _send(bob, "Are you still there, Ann?")
    expect(_theirs(ann)).to_have_text(
        ["Hi Ann, Bob here on process B", "Are you still there, Ann?"], timeout=ARRIVES_WITHIN_MS
    )
    assert _tab_token(ann) == ann_token  # the same tab state, not a fresh one
    expect(_chat_input(ann)).to_have_value(draft)
    expect(ann.get_by_text(NEW_VERSION_BANNER)).to_have_count(0)
    _chat_input(ann).press("Enter")
    expect(_theirs(bob)).to_have_text(
        ["Hello Bob, this is Ann on process A", draft], timeout=ARRIVES_WITHIN_MS
    )
    assert len(proxy.opened(a)) == connections_to_a  # nothing of hers went to A again
    assert not any(item.open for item in proxy.opened(a))

    # A is stopped: Ann goes on through the app's own links, still signed in as herself.
    app_server.stop(two_processes.a)
    assert two_processes.a.process.poll() is not None
    ann.get_by_role("link", name=messages.CHAT_BACK).click()
    wait_for_path(ann, "/messages")
    expect(ann.get_by_test_id("conversation")).to_contain_text(
        member_name(bob_address), timeout=ARRIVES_WITHIN_MS
    )
    ann.get_by_role("link", name=messages.NAV_DASHBOARD, exact=True).first.click()
    wait_for_path(ann, "/dashboard")
    wait_until_ready(ann)
    expect(ann.get_by_test_id("dashboard-email")).to_have_text(
        ann_address, timeout=ARRIVES_WITHIN_MS
    )
    assert _tab_token(ann) == ann_token
