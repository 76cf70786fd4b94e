"""Paid contact requests between members and ranked contestants (their chat: chat.models)."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import created_at_field, foreign_key, id_field


class ContactStatus(StrEnum):
    """Where a contact request stands with its contestant (``ContactRequest.status``)."""

    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"


class ContactPaymentStatus(StrEnum):
    """Where a contact request's fee stands (``ContactRequest.payment_status``)."""

    PENDING_PAYMENT = "pending_payment"
    PAID = "paid"
    REFUNDED = "refunded"
    #: An unpaid request replaced by a newer one of the same member for the same contestant.
    SUPERSEDED = "superseded"


class ContactRequest(SQLModel, table=True):
    """A request to contact a contestant; money in integer cents (shares add up to the fee)."""

    __tablename__ = "contact_requests"
    __table_args__ = (Index("ix_contact_requests_contestant", "contestant_id", "created_at"),)

    id: uuid.UUID = id_field()
    requester_id: uuid.UUID = foreign_key("users.id")
    contestant_id: uuid.UUID = foreign_key("users.id", index=False)
    photo_id: uuid.UUID | None = foreign_key("photos.id", nullable=True, ondelete="SET NULL")
    rank_at_request: int
    fee_amount: int
    platform_share: int
    contestant_share: int
    message_preview: str = Field(max_length=1000)
    paid: bool = Field(default=False)
    payment_status: str = Field(default=ContactPaymentStatus.PENDING_PAYMENT.value, max_length=24)
    status: str = Field(default=ContactStatus.PENDING.value, max_length=12)
    created_at: datetime = created_at_field()
