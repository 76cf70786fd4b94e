"""A detailed analysis paid with Stripe: the signed event arrives at the real webhook
route (in process, over its ASGI interface) and unlocks the report once; a forged one
unlocks nothing. Both databases, the app's own engine pointed at the test database."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import httpx
import pytest
from sqlmodel import select
from starlette.applications import Starlette

from prettyscore.billing.api import WEBHOOK_PATH, billing_routes
from prettyscore.billing.models import CheckoutSession, PaymentEvent, Subscription
from prettyscore.core.model_types import utcnow
from prettyscore.personality import service
from prettyscore.personality.models import PersonalityResult
from tests.fixtures.payments import WEBHOOK_SECRET
from tests.helpers import stripe_events
from tests.personality.test_analysis import SHAPES, answers


def post(event: dict, secret: str = WEBHOOK_SECRET) -> httpx.Response:
    """Deliver ``event`` signed with ``secret``, as Stripe does, to the webhook route."""
    body, headers = stripe_events.signed(event, secret)

    async def call() -> httpx.Response:
        transport = httpx.ASGITransport(app=Starlette(routes=billing_routes()))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            return await http.post(WEBHOOK_PATH, content=body, headers=headers)

    return asyncio.run(call())


@pytest.fixture
def unpaid_analysis(db, make_member, fake_stripe, app_database):
    """A member's detailed analysis, bought through Stripe's (stand-in) checkout, unpaid."""
    member = make_member()
    db.add(Subscription(user_id=member.id, expires_at=utcnow() + timedelta(days=30)))
    basic = service.finish_test(db, member.id, answers(SHAPES["mixed"][0]))
    service.start_detailed_purchase(db, member, basic.id)
    db.commit()
    payment = db.exec(select(CheckoutSession)).one()
    return member, payment, db.get(PersonalityResult, uuid.UUID(payment.reference_id))


def test_the_signed_event_unlocks_the_report_once(db, unpaid_analysis):
    member, payment, detailed = unpaid_analysis
    completed = stripe_events.checkout_completed(
        payment.provider_session_id, member.id, payment_intent="pi_signed_1"
    )
    first, again = post(completed), post(completed)
    assert first.status_code == again.status_code == 200
    assert (first.json()["duplicate"], again.json()["duplicate"]) == (False, True)
    assert len(db.exec(select(PaymentEvent)).all()) == 1
    db.refresh(detailed)
    assert detailed.paid
    report = service.detailed_report(db, member.id, detailed.id)
    assert (report.personality_type, report.score) == SHAPES["mixed"][1:]


def test_a_forged_event_unlocks_nothing(db, unpaid_analysis):
    member, payment, detailed = unpaid_analysis
    forged = stripe_events.checkout_completed(payment.provider_session_id, member.id)
    answer = post(forged, secret="whsec_someone_else")
    assert answer.status_code == 400
    assert db.exec(select(PaymentEvent)).all() == []
    db.refresh(detailed)
    assert not detailed.paid
    assert service.detailed_report(db, member.id, detailed.id) is None
