"""Stripe webhooks over HTTP to the running app: signed events change the database once,
in whatever order they arrive; forged or stale ones change nothing.

The real backend as production serves it (``tests/helpers/backend_server.py``: Granian,
every middleware), on SQLite and on PostgreSQL with Redis, as the browser tests' servers
are; the webhook needs no pages, so no frontend build."""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlmodel import Session, select

from prettyscore.accounts.models import User
from prettyscore.billing import service
from prettyscore.billing.models import CheckoutSession, PaymentEvent, Subscription
from prettyscore.core.db import make_engine
from tests.helpers import stripe_events
from tests.helpers.app_server import (
    RATE_LIMITS,
    STRIPE_WEBHOOK_SECRET,
    UNLIMITED_RATE,
    AppServer,
)
from tests.helpers.backend_server import SERVERS, backing_services, running_backend

# One worker starts the two servers for the whole file.
pytestmark = pytest.mark.xdist_group("billing_webhooks_over_http")

WEBHOOK = stripe_events.WEBHOOK_PATH


@pytest.fixture(scope="module", params=SERVERS)
def server(request, tmp_path_factory) -> Iterator[AppServer]:
    """The backend with the browser tests' server settings: the webhook's signing
    secret, a job queue of its own, no rate limits, and on Redis two web processes, so
    that the same event delivered at once may land on either."""
    run_dir = tmp_path_factory.mktemp(f"webhooks-{request.param}")
    settings = {
        "STRIPE_WEBHOOK_SECRET": STRIPE_WEBHOOK_SECRET,
        "JOB_NAMESPACE": f"prettyscore-webhooks-{secrets.token_hex(8)}",
        **dict.fromkeys(RATE_LIMITS, UNLIMITED_RATE),
    }
    with backing_services(request, request.param) as (database_url, redis):
        if redis:
            settings["GRANIAN_WORKERS"] = "2"
        with running_backend(
            request.param,
            run_dir,
            database_url=database_url,
            redis_url=redis,
            extra_env=settings,
        ) as server:
            yield server


@pytest.fixture
def app_db(server):
    engine = make_engine(server.database_url)
    yield engine
    engine.dispose()


def _read(app_db, fn, *args):
    with Session(app_db) as db:
        return fn(db, *args)


@pytest.fixture
def member(app_db) -> uuid.UUID:
    with Session(app_db, expire_on_commit=False) as db:
        user = User(email=f"payer-{uuid.uuid4().hex[:8]}@example.com", password_hash="x")
        db.add(user)
        db.commit()
        return user.id


def _open_checkout(app_db, user_id, kind="subscription", amount=999) -> str:
    session_id = f"cs_test_{uuid.uuid4().hex}"
    with Session(app_db) as db:
        db.add(
            CheckoutSession(
                user_id=user_id,
                kind=kind,
                amount_cents=amount,
                description="Premium Editing",
                provider_session_id=session_id,
                success_path="/premium?success=true",
                cancel_path="/premium",
            )
        )
        db.commit()
    return session_id


def post(server, event, *, secret=STRIPE_WEBHOOK_SECRET, timestamp=None) -> httpx.Response:
    return stripe_events.deliver(server.base_url, event, secret, timestamp=timestamp)


def _subscription_rows(app_db, user_id):
    with Session(app_db) as db:
        return db.exec(select(Subscription).where(Subscription.user_id == user_id)).all()


def _events_named(app_db, event_id):
    with Session(app_db) as db:
        return db.exec(select(PaymentEvent).where(PaymentEvent.event_id == event_id)).all()


def test_a_subscription_activates_and_deletion_ends_it(server, app_db, member):
    now = int(time.time())
    sub = f"sub_{uuid.uuid4().hex[:10]}"
    created = stripe_events.subscription_event("created", sub, member, created=now - 10)
    assert post(server, created).status_code == 200
    assert _read(app_db, service.is_subscriber, member)

    deleted = stripe_events.subscription_event(
        "deleted", sub, member, created=now, status="canceled"
    )
    assert post(server, deleted).status_code == 200
    assert not _read(app_db, service.is_subscriber, member)


def test_the_same_event_ten_times_fulfils_once(server, app_db, member):
    session_id = _open_checkout(app_db, member)
    completed = stripe_events.checkout_completed(
        session_id, member, subscription=f"sub_{uuid.uuid4().hex[:10]}"
    )
    body, headers = stripe_events.signed(completed, STRIPE_WEBHOOK_SECRET)

    def deliver(_):
        return httpx.post(server.url(WEBHOOK), content=body, headers=headers, timeout=60)

    with ThreadPoolExecutor(max_workers=5) as pool:  # five at once, then five more
        answers = list(pool.map(deliver, range(10)))
    assert [a.status_code for a in answers] == [200] * 10
    assert sum(not a.json()["duplicate"] for a in answers) == 1
    assert len(_subscription_rows(app_db, member)) == 1
    assert len(_events_named(app_db, completed["id"])) == 1
    assert _read(app_db, service.is_subscriber, member)


@pytest.mark.parametrize(
    "signing",
    [
        pytest.param({"secret": "whsec_not_the_apps"}, id="wrong-signature"),
        pytest.param({"timestamp": int(time.time()) - 3600}, id="stale-timestamp"),
    ],
)
def test_forged_or_stale_events_get_400_and_change_nothing(server, app_db, member, signing):
    session_id = _open_checkout(app_db, member)
    completed = stripe_events.checkout_completed(session_id, member, subscription="sub_forged")
    answer = post(server, completed, **signing)
    assert answer.status_code == 400
    assert _events_named(app_db, completed["id"]) == []
    assert _subscription_rows(app_db, member) == []
    assert not _read(app_db, service.is_subscriber, member)


def test_an_unsigned_event_gets_400(server):
    answer = httpx.post(server.url(WEBHOOK), json={"id": "evt_1"}, timeout=30)
    assert answer.status_code == 400


def test_an_older_update_after_a_newer_one_is_ignored(server, app_db, member):
    now = int(time.time())
    sub = f"sub_{uuid.uuid4().hex[:10]}"
    newer = stripe_events.subscription_event(
        "updated", sub, member, created=now, period_end=now + 40 * 86400
    )
    older = stripe_events.subscription_event(
        "updated", sub, member, created=now - 300, status="unpaid", cancel_at_period_end=True
    )
    assert post(server, newer).status_code == 200
    assert post(server, older).status_code == 200
    (row,) = _subscription_rows(app_db, member)
    assert (row.status, row.cancel_at_period_end) == ("active", False)
    assert int(row.expires_at.timestamp()) == now + 40 * 86400


def test_an_update_after_deletion_leaves_it_ended(server, app_db, member):
    now = int(time.time())
    sub = f"sub_{uuid.uuid4().hex[:10]}"
    deleted = stripe_events.subscription_event(
        "deleted", sub, member, created=now, status="canceled"
    )
    older_update = stripe_events.subscription_event("updated", sub, member, created=now - 60)
    assert post(server, deleted).status_code == 200
    assert post(server, older_update).status_code == 200
    (row,) = _subscription_rows(app_db, member)
    assert row.status == "canceled"
    assert not _read(app_db, service.is_subscriber, member)


def test_a_refund_marks_the_payment_refunded(server, app_db, member):
    session_id = _open_checkout(app_db, member, kind="personality_analysis", amount=499)
    intent = f"pi_{uuid.uuid4().hex[:10]}"
    paid = stripe_events.checkout_completed(session_id, member, payment_intent=intent)
    assert post(server, paid).status_code == 200
    assert post(server, stripe_events.charge_refunded(intent, 499)).status_code == 200
    with Session(app_db) as db:
        payment = db.exec(
            select(CheckoutSession).where(CheckoutSession.provider_session_id == session_id)
        ).one()
    assert payment.status == "refunded"
    assert payment.paid_at is not None
