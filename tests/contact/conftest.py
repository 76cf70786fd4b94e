"""Contact tests start, like the payment tests, from a machine without Stripe keys."""

from __future__ import annotations

from tests.fixtures.payments import clean_billing_settings, fake_stripe

__all__ = ["clean_billing_settings", "fake_stripe"]
