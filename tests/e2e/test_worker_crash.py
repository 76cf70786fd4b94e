"""A web worker that crashes is replaced, and the page a person has open goes on.

Production runs Granian workers under ``reflex run``; by Granian's default one worker
exiting unexpectedly stopped the whole app. Here one worker of the running app is
killed (SIGKILL, as the system's out-of-memory killer does) while a visitor has a photo
chosen on /upload: the app keeps running, a new worker takes the dead one's place, and
the visitor's open page, without a reload, gets its score. With Redis (two workers) the
tab's state survives the crash; with the in-memory state (one worker) it dies with the
worker, so the page asks for the photo again, as a new page would.
"""

from __future__ import annotations

import os
import signal
import time

import pytest
from playwright.sync_api import expect

from prettyscore.core import messages
from tests.e2e.flows import astronaut_jpeg, choose_on_upload_page, open_page, see_the_score
from tests.helpers.app_server import granian_workers

# In production a crash leaves the other workers and the tabs' state in Redis.
pytestmark = [pytest.mark.e2e, pytest.mark.postgres_redis]

REPLACED_WITHIN_SECONDS = 60


def replacement_of(app_server, dead: int, count: int) -> list[int]:
    """The workers once a new one has taken ``dead``'s place."""
    deadline = time.monotonic() + REPLACED_WITHIN_SECONDS
    while time.monotonic() < deadline:
        assert app_server.process.poll() is None, "the app exited:\n" + app_server.log_tail()
        workers = granian_workers(app_server)
        if dead not in workers and len(workers) == count:
            return workers
        time.sleep(0.2)
    raise AssertionError("no worker replaced the crashed one:\n" + app_server.log_tail())


def test_a_crashed_worker_is_replaced_and_the_open_page_gets_its_score(page, app_server, tmp_path):
    photo = astronaut_jpeg(tmp_path)
    open_page(page, f"{app_server.base_url}/upload")
    choose_on_upload_page(page, photo)
    chosen = page.get_by_role("img", name="Your chosen photo")
    expect(chosen).to_be_visible()

    workers = granian_workers(app_server)
    assert workers, "no Granian worker found"
    os.kill(workers[0], signal.SIGKILL)
    replacement_of(app_server, workers[0], len(workers))

    if app_server.redis_url is None:  # the tab's state died with the only worker
        expect(chosen).to_be_hidden(timeout=30_000)
        choose_on_upload_page(page, photo)
        expect(chosen).to_be_visible()
    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    see_the_score(page)
