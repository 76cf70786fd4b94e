"""Settings read from the environment: the documents' values unless a deployment says
otherwise."""

from __future__ import annotations

import pytest

from prettyscore.core.settings import load_settings


@pytest.mark.parametrize(
    ("variable", "expected"),
    [(None, 30.0), ("", 30.0), ("3", 3.0), ("0", 1.0), ("-5", 1.0)],
)
def test_an_open_dashboard_rechecks_the_subscription_every_30_s_unless_set(
    monkeypatch, tmp_path, variable, expected
):
    """Document 001 §9: "the dashboard rechecks status every 30 seconds". A deployment
    (or the browser tests) may set another interval, never one under a second, which
    would have every open dashboard query the database in a loop."""
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    if variable is None:
        monkeypatch.delenv("SUBSCRIPTION_RECHECK_SECONDS", raising=False)
    else:
        monkeypatch.setenv("SUBSCRIPTION_RECHECK_SECONDS", variable)
    assert load_settings().subscription_recheck_seconds == expected
