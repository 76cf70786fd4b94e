"""The partner programme: partner accounts, their conversions and payouts.

Money is integer cents and the commission rate a whole percent (15, 20, 30), so that no
sum is ever a float. The uniqueness rules of the documents are database constraints:
one account per user, a unique code, and a unique promo code when one is set (an empty
promo code is how the documents store "none").
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import Index, text
from sqlmodel import Field, SQLModel

from prettyscore.core.model_types import created_at_field, foreign_key, id_field


class PartnerStatus(StrEnum):
    """Where a partner account stands (``PartnerAccount.status``)."""

    PENDING = "pending"
    APPROVED = "approved"
    SUSPENDED = "suspended"


class ConversionStatus(StrEnum):
    """Where a conversion's commission stands (``PartnerConversion.status``)."""

    UNPAID = "unpaid"
    PAID = "paid"
    REVERSED = "reversed"


class PayoutStatus(StrEnum):
    """A payout's state (``PartnerPayout.status``): sent when recorded."""

    SENT = "sent"


class PartnerAccount(SQLModel, table=True):
    """A member's partner (affiliate) account: pending, approved or suspended."""

    __tablename__ = "partner_accounts"
    __table_args__ = (
        Index(
            "uq_partner_accounts_promo_code",
            "promo_code",
            unique=True,
            sqlite_where=text("promo_code <> ''"),
            postgresql_where=text("promo_code <> ''"),
        ),
        Index("ix_partner_accounts_status_earned", "status", "total_earned"),
    )

    id: uuid.UUID = id_field()
    user_id: uuid.UUID = Field(foreign_key="users.id", unique=True, ondelete="CASCADE")
    display_name: str = Field(max_length=100)
    code: str = Field(max_length=10, unique=True)
    promo_code: str = Field(default="", max_length=32)
    status: str = Field(default=PartnerStatus.PENDING.value, max_length=12)
    tier: str = Field(default="starter", max_length=8)  # starter | pro | elite
    commission_percent: int = Field(default=15)
    total_clicks: int = Field(default=0)
    total_conversions: int = Field(default=0)
    total_earned: int = Field(default=0)
    created_at: datetime = created_at_field()


class PartnerConversion(SQLModel, table=True):
    """A referred member's payment; ``payment_ref`` keeps one conversion per payment and
    tier: the first tier's is the payment's key, the second tier's that key prefixed
    (``commissions.SECOND_TIER_PREFIX``). ``level`` 1 is the partner's own referral, 2
    a sale of a partner they referred."""

    __tablename__ = "partner_conversions"
    __table_args__ = (Index("ix_partner_conversions_partner", "partner_id", "created_at"),)

    id: uuid.UUID = id_field()
    partner_id: uuid.UUID = foreign_key("partner_accounts.id", index=False)
    payment_ref: str = Field(max_length=255, unique=True)
    amount: int
    commission: int
    level: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    status: str = Field(default=ConversionStatus.UNPAID.value, max_length=12)
    created_at: datetime = created_at_field()


class PartnerPayout(SQLModel, table=True):
    """A payout of all of a partner's unpaid conversions at once."""

    __tablename__ = "partner_payouts"

    id: uuid.UUID = id_field()
    partner_id: uuid.UUID = foreign_key("partner_accounts.id")
    period_start: date
    period_end: date
    total_amount: int
    status: str = Field(default=PayoutStatus.SENT.value, max_length=12)
    created_at: datetime = created_at_field()
