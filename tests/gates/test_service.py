"""Feature gates on a real database: one free trial per member and feature, Premium
passes, nothing used without access, and no extra trial under concurrency."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

import pytest
from sqlmodel import select

from prettyscore.accounts import service as accounts
from prettyscore.billing.models import Subscription
from prettyscore.core import messages
from prettyscore.core.errors import DomainError, PermissionDenied, ValidationFailed
from prettyscore.core.model_types import utcnow
from prettyscore.gates import service
from prettyscore.gates.models import FeatureUsage
from prettyscore.gates.service import (
    FEATURES,
    PREMIUM_REQUIRED,
    TRIAL_EXCEEDED,
    FeatureAccess,
)

FEET = "feet_scoring"
LOCKED_WITH_TRIAL = FeatureAccess(False, PREMIUM_REQUIRED, 1)
TRIAL_ACTIVE = FeatureAccess(True, None, 0)
TRIAL_USED_UP = FeatureAccess(False, TRIAL_EXCEEDED, 0)


def member(db, name: str):
    user_id = accounts.sign_up(db, f"{name}@example.com", "secret1").user_id
    db.commit()
    return user_id


def subscribe(db, user_id, *, expires_in: timedelta, status: str = "active") -> None:
    db.add(
        Subscription(
            user_id=user_id,
            status=status,
            plan_type="premium_editing",
            expires_at=utcnow() + expires_in,
        )
    )
    db.commit()


def uses(db, user_id, feature: str = FEET) -> int:
    rows = db.exec(
        select(FeatureUsage).where(
            FeatureUsage.user_id == user_id, FeatureUsage.feature_name == feature
        )
    ).all()
    return len(rows)


def test_the_gated_features_are_the_documents_three():
    assert set(FEATURES) == {"feet_scoring", "hands_scoring", "personality_test"}
    assert service.TRIALS_PER_FEATURE == 1


def test_a_free_member_tries_feet_scoring_exactly_once(db):
    uid = member(db, "tryer")
    assert service.check_feature_access(db, uid, FEET) == LOCKED_WITH_TRIAL

    assert service.activate_trial(db, uid, FEET) == TRIAL_ACTIVE
    assert service.check_feature_access(db, uid, FEET) == TRIAL_ACTIVE

    assert service.record_feature_usage(db, uid, FEET) == TRIAL_USED_UP
    assert service.check_feature_access(db, uid, FEET) == TRIAL_USED_UP
    assert uses(db, uid) == 1

    with pytest.raises(PermissionDenied) as again:
        service.activate_trial(db, uid, FEET)
    assert again.value.message == messages.FAILED_TO_ACTIVATE_TRIAL
    assert again.value.code == TRIAL_EXCEEDED
    with pytest.raises(PermissionDenied) as second_use:
        service.record_feature_usage(db, uid, FEET)
    assert second_use.value.code == TRIAL_EXCEEDED
    assert uses(db, uid) == 1


def test_an_activated_trial_cannot_be_activated_twice(db):
    uid = member(db, "twice")
    service.activate_trial(db, uid, FEET)
    with pytest.raises(PermissionDenied) as again:
        service.activate_trial(db, uid, FEET)
    assert again.value.message == messages.FAILED_TO_ACTIVATE_TRIAL
    assert service.check_feature_access(db, uid, FEET) == TRIAL_ACTIVE  # the one trial, unused
    service.record_feature_usage(db, uid, FEET)
    assert service.check_feature_access(db, uid, FEET) == TRIAL_USED_UP


def test_a_premium_member_passes_every_gate_without_using_a_trial(db):
    uid = member(db, "premium")
    subscribe(db, uid, expires_in=timedelta(days=30))
    for feature in FEATURES:
        assert service.check_feature_access(db, uid, feature) == FeatureAccess(True, None, 1)
        for _ in range(3):
            assert service.record_feature_usage(db, uid, feature).has_access
        assert service.activate_trial(db, uid, feature) == FeatureAccess(True, None, 1)
        assert uses(db, uid, feature) == 3


def test_an_expired_or_cancelled_subscription_does_not_pass(db):
    expired, cancelled = member(db, "expired"), member(db, "cancelled")
    subscribe(db, expired, expires_in=timedelta(days=-1))
    subscribe(db, cancelled, expires_in=timedelta(days=30), status="canceled")
    for uid in (expired, cancelled):
        assert service.check_feature_access(db, uid, FEET) == LOCKED_WITH_TRIAL
        with pytest.raises(PermissionDenied):
            service.record_feature_usage(db, uid, FEET)
        assert uses(db, uid) == 0


def test_a_use_without_access_is_refused_and_not_recorded(db):
    uid = member(db, "sneaky")
    with pytest.raises(PermissionDenied) as refused:
        service.record_feature_usage(db, uid, FEET)
    assert refused.value.code == PREMIUM_REQUIRED
    assert refused.value.message == messages.FEATURE_NEEDS_PREMIUM
    assert uses(db, uid) == 0
    # the refusal took no trial either
    assert service.check_feature_access(db, uid, FEET) == LOCKED_WITH_TRIAL


def test_an_unknown_feature_is_refused(db):
    uid = member(db, "curious")
    for action in (
        service.check_feature_access,
        service.activate_trial,
        service.record_feature_usage,
    ):
        with pytest.raises(ValidationFailed) as refused:
            action(db, uid, "face_scoring")
        assert refused.value.message == messages.UNKNOWN_FEATURE


def test_trials_are_per_feature_and_per_member(db):
    first, second = member(db, "first"), member(db, "second")
    service.activate_trial(db, first, FEET)
    service.record_feature_usage(db, first, FEET)

    assert service.check_feature_access(db, first, FEET) == TRIAL_USED_UP
    for feature in ("hands_scoring", "personality_test"):
        assert service.check_feature_access(db, first, feature) == LOCKED_WITH_TRIAL
    for feature in FEATURES:
        assert service.check_feature_access(db, second, feature) == LOCKED_WITH_TRIAL
    assert service.activate_trial(db, first, "hands_scoring") == TRIAL_ACTIVE


def race(db_factory, count: int, action) -> list[str]:
    """Run ``action(db)`` ``count`` times at once, each in its own transaction."""
    outcomes: list[str] = []
    barrier = threading.Barrier(count)

    def attempt():
        barrier.wait()
        try:
            with db_factory() as db:
                action(db)
            outcomes.append("ok")
        except DomainError as error:
            outcomes.append(error.message)

    threads = [threading.Thread(target=attempt) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


@pytest.mark.parametrize("racers", [2, 10])
def test_parallel_activations_with_one_trial_left_take_one_trial(db_factory, racers):
    with db_factory() as db:
        uid = member(db, f"racer{racers}")
    outcomes = race(db_factory, racers, lambda db: service.activate_trial(db, uid, FEET))
    assert Counter(outcomes) == {"ok": 1, messages.FAILED_TO_ACTIVATE_TRIAL: racers - 1}

    with db_factory() as db:
        assert service.check_feature_access(db, uid, FEET) == TRIAL_ACTIVE
        service.record_feature_usage(db, uid, FEET)
    with db_factory() as db:
        assert service.check_feature_access(db, uid, FEET) == TRIAL_USED_UP


@pytest.mark.parametrize("racers", [2, 10])
def test_parallel_uses_of_one_activated_trial_record_one_use(db_factory, racers):
    with db_factory() as db:
        uid = member(db, f"user{racers}")
        service.activate_trial(db, uid, FEET)
    outcomes = race(db_factory, racers, lambda db: service.record_feature_usage(db, uid, FEET))
    assert Counter(outcomes) == {"ok": 1, messages.FEATURE_NEEDS_PREMIUM: racers - 1}
    with db_factory() as db:
        assert uses(db, uid) == 1
        assert service.check_feature_access(db, uid, FEET) == TRIAL_USED_UP
