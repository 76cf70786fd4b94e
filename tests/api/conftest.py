"""The REST API on a real socket, on a migrated database, once per backend.

``api`` is an httpx client on the server's base URL; ``outbox`` reads the mail the app
sent; ``db`` (from tests/fixtures/database.py) opens the same database to check rows.
Settings are those of a local machine: no Stripe keys (the built-in test checkout), mail
to an outbox folder, the local editing and video engines.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette

from prettyscore.api_app import rest_api
from prettyscore.billing.api import billing_routes
from prettyscore.core.db import get_engine
from prettyscore.core.settings import get_settings
from prettyscore.partners.api import partner_routes
from prettyscore.photos.media_api import media_routes
from tests.helpers.api_server import Outbox, free_port, serving

#: Variables of the developer's environment that must not reach the server under test.
FOREIGN_SETTINGS = (
    "REDIS_URL",
    "SMTP_URL",
    "STRIPE_SECRET_KEY",
    "STRIPE_PUBLISHABLE_KEY",
    "STRIPE_API_BASE",
    "EDIT_ENGINE",
    "VIDEO_ENGINE",
    "SCORING_ENGINE",
)


@dataclass(frozen=True)
class ApiServer:
    """A running API: its base URL and where its mail and files go."""

    url: str
    outbox_dir: Path
    media_dir: Path


@pytest.fixture(scope="session")
def api_server(migrated_database_url, tmp_path_factory) -> Iterator[ApiServer]:
    """The API served on 127.0.0.1 against this backend's migrated database."""
    root = tmp_path_factory.mktemp("api")
    port = free_port()
    environment = pytest.MonkeyPatch()
    for name in FOREIGN_SETTINGS:
        environment.delenv(name, raising=False)
    environment.setenv("DATABASE_URL", migrated_database_url)
    environment.setenv("DATA_DIR", str(root / "data"))
    environment.setenv("MEDIA_DIR", str(root / "media"))
    environment.setenv("OUTBOX_DIR", str(root / "outbox"))
    environment.setenv("SECRET_KEY", "api-tests-secret-key-0123456789abcdef")
    environment.setenv("PUBLIC_URL", f"http://127.0.0.1:{port}")
    get_settings.cache_clear()
    get_engine.cache_clear()
    try:
        with serving(_backend_routes(), port) as url:
            yield ApiServer(url, root / "outbox", root / "media")
    finally:
        get_engine().dispose()
        environment.undo()
        get_engine.cache_clear()
        get_settings.cache_clear()


def _backend_routes():
    """The API with the app's other HTTP routes behind it (stored photos, Stripe's
    events, referral links), composed as ``prettyscore.py`` composes them: only the
    Reflex pages are missing."""
    api = rest_api()
    api.mount("", Starlette(routes=media_routes() + billing_routes() + partner_routes()))
    return api


@pytest.fixture
def api(api_server, db_engine) -> Iterator[httpx.Client]:
    """An HTTP client of the running API; the database is emptied after the test."""
    with httpx.Client(base_url=api_server.url, timeout=30) as client:
        yield client


@pytest.fixture
def outbox(api_server) -> Outbox:
    return Outbox(api_server.outbox_dir)
