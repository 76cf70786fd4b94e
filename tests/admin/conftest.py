"""The app's own engine on the test database, for calling Reflex handlers in process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from prettyscore.core.db import get_engine
from prettyscore.core.settings import get_settings


@pytest.fixture
def app_database(db_engine, migrated_database_url, monkeypatch) -> Iterator[None]:
    """The app's settings and engine (what the handlers use) on the test database."""
    monkeypatch.setenv("DATABASE_URL", migrated_database_url)
    get_settings.cache_clear()
    get_engine.cache_clear()
    try:
        yield
    finally:
        get_engine().dispose()
        get_engine.cache_clear()
        get_settings.cache_clear()
