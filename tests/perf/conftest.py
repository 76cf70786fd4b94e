"""Benchmarks that drive the running app reuse the browser tests' fixtures."""

from tests.e2e.conftest import app_server, browser, new_context, page  # noqa: F401
