"""Billing tests start from a machine without Stripe keys or price overrides."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

from prettyscore.accounts.models import User
from prettyscore.core.settings import get_settings
from tests.helpers.fake_stripe import FakeStripe

BILLING_VARIABLES = (
    "STRIPE_SECRET_KEY",
    "STRIPE_PUBLISHABLE_KEY",
    "STRIPE_WEBHOOK_SECRET",
    "STRIPE_API_BASE",
    "PREMIUM_MONTHLY_CENTS",
    "DETAILED_PERSONALITY_CENTS",
    "PAYMENT_CURRENCY",
)
PUBLIC_URL = "https://prettyscore.example"
WEBHOOK_SECRET = "whsec_unit_test_secret"


@pytest.fixture(autouse=True)
def clean_billing_settings(monkeypatch) -> Iterator[None]:
    for name in BILLING_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PUBLIC_URL", PUBLIC_URL)
    monkeypatch.setenv("STRIPE_WEBHOOK_SECRET", WEBHOOK_SECRET)
    get_settings.cache_clear()
    yield
    monkeypatch.undo()
    get_settings.cache_clear()


@pytest.fixture
def make_member(db) -> Callable[[], User]:
    """``make_member()``: a new member (a users row) in the test database."""

    def make() -> User:
        user = User(email=f"member-{uuid.uuid4().hex[:8]}@example.com", password_hash="x")
        db.add(user)
        db.commit()
        return user

    return make


@pytest.fixture
def fake_stripe(app_settings) -> Iterator[FakeStripe]:
    """The Stripe stand-in, with the app's Stripe keys pointed at it."""
    with FakeStripe() as fake:
        app_settings(STRIPE_SECRET_KEY="sk_test_standin", STRIPE_API_BASE=fake.url)
        yield fake
