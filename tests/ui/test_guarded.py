"""The guarded block every handler uses: a refusal's own text, else the logged fallback."""

from __future__ import annotations

import asyncio
import logging

import pytest

from prettyscore.core import messages
from prettyscore.core.errors import NotFound, ValidationFailed
from prettyscore.ui.guarded import guarded
from tests.fixtures.handlers import _reply


def test_a_block_that_runs_through_has_nothing_to_show():
    with guarded("Loading") as call:
        pass
    assert (call.failed, call.toast) == (False, None)


def test_a_refusal_shows_its_own_text_and_is_not_logged(caplog):
    with caplog.at_level(logging.ERROR), guarded("Loading", "Fallback") as call:
        raise NotFound("Photo not found")
    assert _reply([call.toast]).toasts == [("error", "Photo not found")]
    assert isinstance(call.refusal, NotFound) and caplog.records == []


def test_anything_else_is_logged_with_its_context_and_shows_the_fallback(caplog):
    with caplog.at_level(logging.ERROR), guarded("Loading the partner portal") as call:
        raise RuntimeError("database gone")
    assert _reply([call.toast]).toasts == [("error", messages.UNEXPECTED_ERROR)]
    (record,) = caplog.records
    assert record.getMessage() == "Loading the partner portal failed" and record.exc_info
    assert call.refusal is None and call.failed


def test_without_refusals_a_refusal_reads_as_the_fallback_too(caplog):
    with caplog.at_level(logging.ERROR), guarded("Loading", "Fallback", refusals=False) as call:
        raise NotFound("Photo not found")
    assert _reply([call.toast]).toasts == [("error", "Fallback")]
    assert len(caplog.records) == 1


def test_no_fallback_shows_nothing():
    with guarded("Counting", fallback=None) as call:
        raise RuntimeError("boom")
    assert call.failed and call.toast is None


def test_a_cancellation_is_not_swallowed():
    with pytest.raises(asyncio.CancelledError), guarded("Waiting"):
        raise asyncio.CancelledError


def test_a_validation_failure_may_name_its_field():
    problem = ValidationFailed("Phone number is required", field="phone")
    assert (problem.field, problem.code, problem.status) == ("phone", "invalid_phone", 422)
    assert ValidationFailed("Bad").field is None
    assert ValidationFailed("Bad").code == "validation_failed"
