"""Column types and field helpers shared by every area's tables.

Times are timezone-aware UTC everywhere: SQLite keeps no zone, so ``UTCDateTime`` stores
UTC and hands back aware datetimes on both databases. Ids are random UUIDs so that no
URL that contains one can be guessed or enumerated.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field

from prettyscore.core import clock


def utcnow() -> datetime:
    """The current time, timezone-aware UTC, from the app's clock (``core.clock``)."""
    return clock.now()


class UTCDateTime(TypeDecorator):
    """A timestamp stored in UTC and always read back timezone-aware."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are not stored; use timezone-aware UTC")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def id_field() -> Any:
    """A random UUID primary key."""
    return Field(default_factory=uuid.uuid4, primary_key=True)


def created_at_field() -> Any:
    """When the row was created (UTC, set by us, never by the client)."""
    return Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


def timestamp_field(nullable: bool = True) -> Any:
    """An optional point in time, stored as UTC."""
    return Field(default=None, sa_type=UTCDateTime, nullable=nullable)


def json_field(default_factory=dict) -> Any:
    """A JSON document (breakdowns, answers, metadata)."""
    return Field(default_factory=default_factory, sa_type=JSON, nullable=False)


def foreign_key(target: str, *, nullable: bool = False, index: bool = True, ondelete="CASCADE"):
    """A UUID reference to ``target`` ("table.column").

    Deleting a user deletes their rows (the privacy policy promises deletion), so the
    default is ``ON DELETE CASCADE``; references that must survive use SET NULL.
    """
    return Field(
        default=None if nullable else ...,
        foreign_key=target,
        nullable=nullable,
        index=index,
        ondelete=ondelete,
    )
