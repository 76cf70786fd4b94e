"""Partner tests start, like the payment tests, from a machine without Stripe keys, and
make partners as the admin leaves them: applied, then approved at a tier."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from prettyscore.partners import service
from prettyscore.partners.models import PartnerAccount, PartnerStatus
from prettyscore.partners.programme import STARTER, TIERS
from tests.fixtures.payments import clean_billing_settings, fake_stripe

__all__ = ["clean_billing_settings", "fake_stripe"]


@pytest.fixture
def make_partner(db, make_member) -> Callable[..., PartnerAccount]:
    """``make_partner(code="ANNA", status="approved", tier="pro")``: a member who applied
    with that code and whom the admin then set to that status and tier."""

    def make(
        code: str | None = None, status: str = PartnerStatus.APPROVED, tier: str = STARTER.key
    ):
        member = make_member()
        account = service.apply(db, member.id, f"Partner {code or 'random'}", code)
        account.status, account.tier = status, tier
        account.commission_percent = TIERS[tier].commission_percent
        db.add(account)
        db.commit()
        return account

    return make
