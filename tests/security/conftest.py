"""The security tests run the app's handlers and services in process, on the database of
the REST API served beside them (``tests/api/conftest.py``), so a page and the API can be
shown to share one rate limit. Every test starts with no counted attempts. Tests that
drive the event socket keep tabs' states where the app would on their backend
(``state_manager_url``)."""

# ruff: noqa: F401  (fixtures, found by name)
from __future__ import annotations

from tests.api.conftest import api, api_server, outbox
from tests.fixtures.event_socket import state_manager_url
from tests.helpers.auth_api import auth_settings, fresh_rate_limits
