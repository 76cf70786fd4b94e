"""The free-edit allowance, counted on the server; AI edits run by a job worker."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import LargeBinary
from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import created_at_field, id_field, timestamp_field


class EditAllowance(SQLModel, table=True):
    """How many free AI edits an owner has used: a member ("u:<id>"), or a visitor's
    browser ("v:<visitor id>"), the documents' two readings of the allowance."""

    __tablename__ = "edit_allowances"

    id: uuid.UUID = id_field()
    owner_key: str = Field(max_length=80, unique=True)
    edits_used: int = Field(default=0)
    updated_at: datetime = created_at_field()


class EditJob(SQLModel, table=True):
    """One AI edit handed to a job worker (``editing.jobs``, with the queue on Redis):
    'processing' on insert, then 'completed' with the edited photo as JPEG bytes, or
    'failed' with the error the member is shown. The web process that asked waits on the
    row, stores the photo where its caller keeps edits, and deletes the row."""

    __tablename__ = "edit_jobs"

    id: uuid.UUID = id_field()
    status: str = Field(default="processing", max_length=12)
    image_key: str = Field(max_length=512)
    prompt: str = Field(max_length=1000)
    engine_name: str | None = Field(default=None, max_length=20)
    # The edited photo, until the web process takes it (seconds); then the row goes.
    result_jpeg: bytes | None = Field(default=None, sa_type=LargeBinary)
    # A refusal as the engine raised it: its class name, text, code, HTTP status and
    # (for the provider's rate limit) the seconds to wait.
    error_kind: str | None = Field(default=None, max_length=40)
    error_message: str | None = Field(default=None, max_length=500)
    error_code: str | None = Field(default=None, max_length=60)
    error_status: int | None = Field(default=None)
    retry_after: int | None = Field(default=None)
    created_at: datetime = created_at_field()
    finished_at: datetime | None = timestamp_field()
