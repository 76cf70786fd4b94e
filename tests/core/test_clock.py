"""The app's clock (core.clock): what the services stamp and decide expiry by, moved
forward by a test instead of a sleep."""

from __future__ import annotations

from datetime import timedelta

from prettyscore.accounts import service, tokens
from prettyscore.core import clock as app_clock
from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import get_settings


def test_the_app_reads_the_time_from_its_clock(clock):
    before = utcnow()
    clock.advance(hours=2)
    real = app_clock.system_now()

    assert utcnow() - before >= timedelta(hours=2)
    assert app_clock.now() - real >= timedelta(hours=2)


def test_an_access_token_expires_when_the_clock_passes_its_lifetime(db, clock):
    issued = service.sign_up(db, "clock@example.com", "secret1")
    assert tokens.read_access_token(db, issued.access_token) is not None

    clock.advance(seconds=get_settings().access_token_ttl_seconds)

    assert tokens.read_access_token(db, issued.access_token) is None
    assert tokens.read_access_token(db, issued.access_token, verify_expiry=False) is not None
