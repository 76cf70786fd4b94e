"""Chat tables: the messages of an approved contact request."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import created_at_field, foreign_key, id_field


class Message(SQLModel, table=True):
    """A chat message inside an approved contact request."""

    __tablename__ = "messages"
    __table_args__ = (Index("ix_messages_request_created", "contact_request_id", "created_at"),)

    id: uuid.UUID = id_field()
    contact_request_id: uuid.UUID = foreign_key("contact_requests.id", index=False)
    sender_id: uuid.UUID = foreign_key("users.id")
    receiver_id: uuid.UUID = foreign_key("users.id")
    content: str = Field(max_length=5000)
    created_at: datetime = created_at_field()
