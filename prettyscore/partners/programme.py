"""The partner programme's fixed terms (document 001 §9): tiers, their commission, states.

Commission is a whole percent so that money stays in integer cents: a conversion's
commission is ``amount_cents * percent // 100``.
"""

from __future__ import annotations

from dataclasses import dataclass

PENDING = "pending"
APPROVED = "approved"
SUSPENDED = "suspended"
PARTNER_STATUSES = (PENDING, APPROVED, SUSPENDED)

UNPAID = "unpaid"
PAID = "paid"
REVERSED = "reversed"


@dataclass(frozen=True)
class PartnerTier:
    """One tier of the programme: its key, its name on screen, its commission."""

    key: str
    name: str
    commission_percent: int


STARTER = PartnerTier("starter", "Starter", 15)
PRO = PartnerTier("pro", "Pro", 20)
ELITE = PartnerTier("elite", "Elite", 30)
TIERS: dict[str, PartnerTier] = {tier.key: tier for tier in (STARTER, PRO, ELITE)}

AFFILIATE_COOKIE = "affiliate_code"
AFFILIATE_COOKIE_DAYS = 60
LEADERBOARD_SIZE = 10
RECENT_CONVERSIONS = 10


def commission_cents(amount_cents: int, tier: PartnerTier) -> int:
    """The partner's share of a payment, rounded down to the cent."""
    return amount_cents * tier.commission_percent // 100
