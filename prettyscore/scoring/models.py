"""The result a tab shows on /results, kept beside the tab's state."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import UTCDateTime, json_field, utcnow


class ShownResult(SQLModel, table=True):
    """The score a tab last showed (``scoring.shown``): the tab's state keeps it too, but
    that state can be lost (Redis restarted empty, a worker of the in-memory manager
    replaced), and a person looking at their score must still be able to save it.

    Keyed by a digest of the tab's token, and found only by a socket that presents one
    of the browser keys (``web.browser_key``) the tab had when the result was kept:
    the token travels in the socket's address, the browser key never leaves the
    browser's cookie jar. Only digests are stored. Rows go with the visitor's files,
    an hour after they were written (``photos.housekeeping``).
    """

    __tablename__ = "shown_results"

    tab_digest: str = Field(primary_key=True, max_length=64)
    browser_digests: list = json_field(list)
    result: dict = json_field()
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, index=True)


class SharedScore(SQLModel, table=True):
    """A score someone chose to share: what its link's page shows, and nothing more.

    The page at ``/s/{token}`` shows the score, its label and its tier, never the
    photo (photos stay private to the browser or member that took them). The token is
    random and unguessable; a row is written once per scored photo, when its result is
    first shown, so the result's Copy Link and the share options carry it at once.
    """

    __tablename__ = "shared_scores"

    token: str = Field(primary_key=True, max_length=32)
    score: float
    label: str = Field(max_length=64)
    tier_key: str = Field(max_length=32)
    emoji: str = Field(max_length=16)
    color: str = Field(max_length=32)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
