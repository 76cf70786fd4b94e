"""Tests that drive the app's event processing keep tabs' states where the app would on
their backend (``state_manager_url``)."""

# ruff: noqa: F401  (fixtures, found by name)
from __future__ import annotations

from tests.fixtures.event_socket import state_manager_url
