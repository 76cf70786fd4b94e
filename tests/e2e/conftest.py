"""Browser tests: the real app in production mode, driven by Chromium through Playwright.

Every test that uses ``page`` (or ``app_server``) runs against two servers:
"sqlite-memory" (the default set-up: SQLite and Reflex's in-memory state) and
"postgres-redis" (PostgreSQL and Reflex's Redis state manager with several workers),
the second skipped with the reason shown when PostgreSQL or Redis does not answer.

Chromium is Debian's (``make test`` installs it when missing); ``CHROMIUM`` overrides
its path. Playwright's own browser download is not used.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from tests.conftest import POSTGRES_SKIP_REASON, REDIS_SKIP_REASON, postgres_url, redis_url
from tests.helpers.app_server import AppServer, AppServerError, running_app

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DEFAULT_VIEWPORT = {"width": 1280, "height": 800}
#: How long Playwright waits for an element or a navigation, in milliseconds.
DEFAULT_TIMEOUT_MS = 15_000

E2E_DIR = Path(__file__).parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        if Path(str(item.fspath)).is_relative_to(E2E_DIR):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session", params=["sqlite-memory", "postgres-redis"])
def app_server(request, tmp_path_factory) -> Iterator[AppServer]:
    """PrettyScore running on a free port, for the whole session (one per param).

    Yields an AppServer: ``base_url`` (http://localhost:PORT), ``data_dir``,
    ``database_url``, ``redis_url``, ``log_path``, ``startup_seconds``, ``url(path)``.
    """
    name = request.param
    database_url = None
    redis = None
    if name == "postgres-redis":
        if postgres_url() is None:
            pytest.skip(POSTGRES_SKIP_REASON)
        redis = redis_url()
        if redis is None:
            pytest.skip(REDIS_SKIP_REASON)
        database_url = request.getfixturevalue("postgres_database")
    run_dir = tmp_path_factory.mktemp(f"app-{name}")
    try:
        with running_app(name, run_dir, database_url=database_url, redis_url=redis) as server:
            print(
                f"\n[{name}] app serving at {server.base_url} after "
                f"{server.startup_seconds:.1f} s (log: {server.log_path})"
            )
            yield server
    except AppServerError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Chromium (Debian's), shared by the session."""
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: run `make test`, which installs it, or "
            "`apt-get install chromium`, or set CHROMIUM to its path.",
            pytrace=False,
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def new_context(browser, app_server) -> Iterator[Callable[..., BrowserContext]]:
    """Make browser contexts (separate users: own cookies and storage) on the app.

    ``new_context(viewport=(375, 812))`` or ``viewport={"width": .., "height": ..}``; other
    keyword arguments go to ``browser.new_context``. All are closed after the test.
    """
    contexts: list[BrowserContext] = []

    def make(viewport=None, **kwargs) -> BrowserContext:
        if isinstance(viewport, tuple | list):
            viewport = {"width": viewport[0], "height": viewport[1]}
        context = browser.new_context(
            base_url=app_server.base_url, viewport=viewport or DEFAULT_VIEWPORT, **kwargs
        )
        context.set_default_timeout(DEFAULT_TIMEOUT_MS)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_context) -> Page:
    """A fresh page of a fresh context; ``page.goto("/path")`` opens the app."""
    return new_context().new_page()
