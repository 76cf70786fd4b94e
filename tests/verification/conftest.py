"""Verification tests call handlers with the app's engine on the test database."""

from __future__ import annotations

from tests.admin.conftest import app_database

__all__ = ["app_database"]
