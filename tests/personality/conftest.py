"""Personality tests start, like the payment tests, from a machine without Stripe keys."""

from __future__ import annotations

from tests.billing.conftest import clean_billing_settings, fake_stripe, make_member

__all__ = ["clean_billing_settings", "fake_stripe", "make_member"]
