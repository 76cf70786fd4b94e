"""The score a tab shows, kept in the database so that it outlives the tab's state.

The tab's state (Redis, or the in-memory manager) is where /results reads its result;
when that state is lost while the page is open, the next press (Save, an AI edit, a
reload) would find no result and send the person home with their score gone. Each shown
result is therefore also written here, and a state without one asks for it back.

A lost state knows only what the socket brings: the tab's token and the browser key in
the socket's cookie (``web.browser_key``). The row is found by the first and opened only
with the second, so a stolen token alone opens nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlmodel import Session, col, delete

from prettyscore.core.constants import VISITOR_RESULT_TTL_SECONDS
from prettyscore.core.model_types import utcnow
from prettyscore.scoring.models import ShownResult

#: A kept result lives as long as the visitor files it points to.
KEPT_FOR = timedelta(seconds=VISITOR_RESULT_TTL_SECONDS)


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def keep(db: Session, tab_token: str, browser_keys: Iterable[str], result: dict) -> None:
    """Remember ``result`` as the tab's shown result (replacing the one before), to be
    opened with any of ``browser_keys`` (the socket's, and the one a sign-in in this
    tab moved the browser to: the next socket presents that one)."""
    browsers = sorted({_digest(key) for key in browser_keys if key})
    if not tab_token or not browsers:
        return
    row = db.get(ShownResult, _digest(tab_token))
    if row is None:
        row = ShownResult(tab_digest=_digest(tab_token))
    row.browser_digests, row.result, row.updated_at = browsers, result, utcnow()
    db.add(row)


def find(db: Session, tab_token: str, browser_key: str) -> dict | None:
    """The tab's shown result, or None: none kept, another browser asking, or the hour
    of its photo over."""
    if not tab_token or not browser_key:
        return None
    row = db.get(ShownResult, _digest(tab_token))
    if row is None or _digest(browser_key) not in row.browser_digests:
        return None
    if row.updated_at < utcnow() - KEPT_FOR:
        return None
    return dict(row.result)


def delete_expired(db: Session, *, now: datetime | None = None) -> int:
    """Housekeeping: drop the rows whose photos are gone; how many went."""
    cutoff = (now or utcnow()) - KEPT_FOR
    outcome = db.exec(delete(ShownResult).where(col(ShownResult.updated_at) < cutoff))
    return outcome.rowcount or 0
