"""The free-edit allowance, counted on the server."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import created_at_field, id_field


class EditAllowance(SQLModel, table=True):
    """How many free AI edits an owner has used: a member ("u:<id>"), or a visitor's
    browser ("v:<visitor id>"), the documents' two readings of the allowance."""

    __tablename__ = "edit_allowances"

    id: uuid.UUID = id_field()
    owner_key: str = Field(max_length=80, unique=True)
    edits_used: int = Field(default=0)
    updated_at: datetime = created_at_field()
