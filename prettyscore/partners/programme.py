"""The partner programme's fixed terms (document 001 §9): tiers, their commission, states.

Commission is a whole percent so that money stays in integer cents: a conversion's
commission is ``amount_cents * percent / 100`` rounded half up to the cent.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from prettyscore.partners.models import PartnerStatus

# Every status a partner account can have, in the order the admin's filter lists them.
PARTNER_STATUSES = tuple(PartnerStatus)


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


def share_cents(amount_cents: int, percent: int) -> int:
    """``percent`` of a payment, rounded half up to the cent ($9.99 at 20% is $2.00,
    $0.10 at 15% is $0.02), in decimal arithmetic so no float error creeps in."""
    share = Decimal(amount_cents) * Decimal(percent) / Decimal(100)
    return int(share.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def commission_cents(amount_cents: int, tier: PartnerTier) -> int:
    """The partner's share of a payment at their tier, rounded half up to the cent."""
    return share_cents(amount_cents, tier.commission_percent)
