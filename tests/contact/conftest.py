"""Contact tests start, like the payment tests, from a machine without Stripe keys."""

from __future__ import annotations

import pytest

from prettyscore.billing import fulfilment
from prettyscore.contact import fulfilment as contact_fulfilment
from tests.billing.conftest import clean_billing_settings, fake_stripe, make_member

__all__ = ["clean_billing_settings", "fake_stripe", "make_member"]


@pytest.fixture(autouse=True)
def contact_payments_registered():
    """The contact area's payment handlers, as the app registers them at import (a
    payments test replaces the contact handler with its own and removes it after)."""
    fulfilment.register_fulfilment(fulfilment.KIND_CONTACT_REQUEST, contact_fulfilment.mark_paid)
    fulfilment.on_refund(contact_fulfilment.mark_refunded)
