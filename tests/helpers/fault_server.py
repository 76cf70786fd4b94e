"""The backend's HTTP side in a process of its own, so a test can kill it with SIGKILL.

It serves what ``tests/api/conftest.py`` composes (the REST API with the stored-photos
route, Stripe's webhook and the referral links) with uvicorn on 127.0.0.1:``PORT``, on
the database of ``DATABASE_URL`` and the folders of ``MEDIA_DIR`` / ``OUTBOX_DIR``. The
Reflex pages are left out: My Photos' Save button and the dashboard editor call plain
services, and two routes that exist only in this test script (never in the product) call
those services exactly as the pages' handlers do:

- ``POST /_faults/save-result`` {user_id, result}: ``photos.service.save_result`` in one
  unit of work (``ScoreState._save``);
- ``POST /_faults/edit-saved-photo`` {user_id, photo_id, prompt}:
  ``photos.history.edit_saved_photo`` (``photos/editor_state.py``).

Kill points: with ``FAULT_PAUSE_AT`` naming one of ``KILL_POINTS``, the process stops at
that point of the work (on the worker thread doing it), writes ``FAULT_MARKER`` and
waits there for ever, so the test kills it exactly there instead of sleeping and hoping.

Run as ``python -m tests.helpers.fault_server`` from the project root.
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from prettyscore.analysis.service import ScoreResult
from prettyscore.billing import fulfilment, webhooks
from prettyscore.core.db import run_in_session, session_scope
from prettyscore.core.media import LocalMediaStore, get_media_store
from prettyscore.editing.engines.local import LocalEditEngine
from prettyscore.photos import history
from prettyscore.photos import service as photos_service


def _pause(point: str) -> None:
    """Tell the test we are at ``point`` and never go on (the test kills us here).

    The marker is written aside and renamed into place, so the test, which waits for it
    to exist, never reads it created but still empty."""
    marker = Path(os.environ["FAULT_MARKER"])
    written = marker.with_name(marker.name + ".writing")
    written.write_text(point)
    written.replace(marker)
    threading.Event().wait()


def _pausing_before(point: str, fn: Callable, *, on_call: int = 1) -> Callable:
    """``fn`` that stops at its ``on_call``-th call, before doing anything."""
    calls = 0

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        nonlocal calls
        calls += 1
        if calls == on_call:
            _pause(point)
        return fn(*args, **kwargs)

    return wrapper


def _pausing_after(point: str, fn: Callable) -> Callable:
    """``fn`` that stops once it has done its work, before its caller goes on."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        result = fn(*args, **kwargs)
        _pause(point)
        return result

    return wrapper


def _patch(owner, name: str, make: Callable[[Callable], Callable]) -> None:
    setattr(owner, name, make(getattr(owner, name)))


#: Where the work can be stopped, and how: each installs its pause in this process.
KILL_POINTS: dict[str, Callable[[str], None]] = {
    # Saving: the original copied into the member's folder, the edit not yet.
    "save-between-copies": lambda point: _patch(
        LocalMediaStore, "write", lambda fn: _pausing_before(point, fn, on_call=2)
    ),
    # Saving: both files written and the row flushed, the transaction not committed.
    "save-before-commit": lambda point: _patch(
        photos_service, "save_result", functools.partial(_pausing_after, point)
    ),
    # Editing a saved photo: while the engine works on it.
    "edit-during-engine": lambda point: _patch(
        LocalEditEngine, "edit", functools.partial(_pausing_before, point)
    ),
    # Editing a saved photo: the edit written and recorded, not committed.
    "edit-before-commit": lambda point: _patch(
        history, "record_edit", functools.partial(_pausing_after, point)
    ),
    # A payment event: fulfilled inside its transaction, not committed.
    "webhook-before-commit": lambda point: _patch(
        fulfilment, "fulfil", functools.partial(_pausing_after, point)
    ),
    # A payment event: committed, Stripe not yet answered.
    "webhook-after-commit": lambda point: _patch(
        webhooks, "receive_event", functools.partial(_pausing_after, point)
    ),
}


async def save_result(request: Request) -> JSONResponse:
    """What the results page's Save does for the signed-in member."""
    body = await request.json()
    result = ScoreResult.from_dict(body["result"])
    photo = await run_in_session(
        photos_service.save_result, get_media_store(), uuid.UUID(body["user_id"]), result
    )
    return JSONResponse({"photo_id": str(photo.id)})


async def edit_saved_photo(request: Request) -> JSONResponse:
    """What the dashboard editor's Apply does for the signed-in member."""
    body = await request.json()
    user_id = uuid.UUID(body["user_id"])
    edited = await asyncio.to_thread(
        history.edit_saved_photo,
        session_scope,
        get_media_store(),
        user_id=user_id,
        photo_id=body["photo_id"],
        prompt=body["prompt"],
    )
    return JSONResponse({"edited_url": edited.edited_url, "remaining": edited.remaining})


def test_routes() -> list[Route]:
    return [
        Route("/_faults/save-result", save_result, methods=["POST"]),
        Route("/_faults/edit-saved-photo", edit_saved_photo, methods=["POST"]),
    ]


def main() -> None:

    from tests.api.conftest import _backend_routes

    point = os.environ.get("FAULT_PAUSE_AT")
    if point:
        KILL_POINTS[point](point)
    app = _backend_routes()
    app.router.routes[:0] = test_routes()
    uvicorn.run(
        app, host="127.0.0.1", port=int(os.environ["PORT"]), log_level="warning", lifespan="off"
    )


if __name__ == "__main__":
    main()
