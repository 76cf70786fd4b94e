"""Feature gates: Premium members use feet and hands scoring and the personality test
freely; other members may try each feature once.

A trial is first activated (check-feature-access then shows access) and then used up
by the next recorded use (record-feature-usage). Both steps take their count with one
conditional update of the member's ``FeatureTrial`` row, so parallel requests can never
activate or spend more trials than there are. Every use is recorded on the server, and
one without access is refused: the browser never decides whether a use was paid for.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from prettyscore.billing.service import is_subscriber
from prettyscore.core import messages
from prettyscore.core.errors import PermissionDenied, ValidationFailed
from prettyscore.core.model_types import utcnow
from prettyscore.gates.models import FeatureTrial, FeatureUsage

FEET_SCORING = "feet_scoring"
HANDS_SCORING = "hands_scoring"
PERSONALITY_TEST = "personality_test"
FEATURES = (FEET_SCORING, HANDS_SCORING, PERSONALITY_TEST)

#: Free trial uses per member and feature (the documents' "You can use this feature once").
TRIALS_PER_FEATURE = 1

#: Why a feature is locked (the documents' check-feature-access reasons).
TRIAL_EXCEEDED = "trial_exceeded"
PREMIUM_REQUIRED = "premium_required"


@dataclass(frozen=True)
class FeatureAccess:
    """The answer of check-feature-access: ``reason`` is None when access is granted."""

    has_access: bool
    reason: str | None
    trial_remaining: int


def _require_known(feature: str) -> str:
    if feature not in FEATURES:
        raise ValidationFailed(messages.UNKNOWN_FEATURE, code="unknown_feature")
    return feature


def _trial_counts(db: Session, user_id: uuid.UUID, feature: str) -> tuple[int, int]:
    """(trials activated, trials of those already used) for the member and feature."""
    row = db.exec(
        select(FeatureTrial.trials_used, FeatureTrial.trials_consumed).where(
            FeatureTrial.user_id == user_id, FeatureTrial.feature_name == feature
        )
    ).first()
    return (row[0], row[1]) if row else (0, 0)


def check_feature_access(db: Session, user_id: uuid.UUID, feature: str) -> FeatureAccess:
    """Whether the member may use ``feature`` now, and why not, with the trials left."""
    _require_known(feature)
    activated, consumed = _trial_counts(db, user_id, feature)
    remaining = max(TRIALS_PER_FEATURE - activated, 0)
    if activated > consumed or is_subscriber(db, user_id):
        return FeatureAccess(True, None, remaining)
    reason = PREMIUM_REQUIRED if remaining > 0 else TRIAL_EXCEEDED
    return FeatureAccess(False, reason, remaining)


def _ensure_trial_row(db: Session, user_id: uuid.UUID, feature: str) -> None:
    """Create the member's trial row for ``feature`` unless a parallel request already did."""
    try:
        with db.begin_nested():
            db.add(FeatureTrial(user_id=user_id, feature_name=feature))
            db.flush()
    except IntegrityError:
        pass  # the row exists already


def activate_trial(db: Session, user_id: uuid.UUID, feature: str) -> FeatureAccess:
    """Activate one free trial of ``feature``, if one is left and none is waiting unused.

    Premium members need no trial: they get their access back and keep their trials.
    Otherwise raises PermissionDenied ('Failed to activate trial', code trial_exceeded),
    so of two parallel activations (a double click) exactly one succeeds.
    """
    _require_known(feature)
    if is_subscriber(db, user_id):
        return check_feature_access(db, user_id, feature)
    _ensure_trial_row(db, user_id, feature)
    taken = db.execute(
        update(FeatureTrial)
        .where(
            FeatureTrial.user_id == user_id,
            FeatureTrial.feature_name == feature,
            FeatureTrial.trials_used < TRIALS_PER_FEATURE,
            FeatureTrial.trials_used == FeatureTrial.trials_consumed,
        )
        .values(trials_used=FeatureTrial.trials_used + 1, updated_at=utcnow())
    )
    if taken.rowcount != 1:
        raise PermissionDenied(messages.FAILED_TO_ACTIVATE_TRIAL, code=TRIAL_EXCEEDED)
    return check_feature_access(db, user_id, feature)


def _spend_trial(db: Session, user_id: uuid.UUID, feature: str) -> bool:
    """Use up one activated trial in one conditional update; False when none is waiting."""
    spent = db.execute(
        update(FeatureTrial)
        .where(
            FeatureTrial.user_id == user_id,
            FeatureTrial.feature_name == feature,
            FeatureTrial.trials_consumed < FeatureTrial.trials_used,
        )
        .values(trials_consumed=FeatureTrial.trials_consumed + 1, updated_at=utcnow())
    )
    return spent.rowcount == 1


def record_feature_usage(db: Session, user_id: uuid.UUID, feature: str) -> FeatureAccess:
    """Record one use of ``feature``; a member without Premium spends their activated trial.

    Returns the access left after this use. Raises PermissionDenied (code
    premium_required or trial_exceeded) when the member may not use the feature, and
    then records nothing.
    """
    _require_known(feature)
    if not is_subscriber(db, user_id) and not _spend_trial(db, user_id, feature):
        locked = check_feature_access(db, user_id, feature)
        raise PermissionDenied(messages.FEATURE_NEEDS_PREMIUM, code=locked.reason or TRIAL_EXCEEDED)
    db.add(FeatureUsage(user_id=user_id, feature_name=feature))
    db.flush()
    return check_feature_access(db, user_id, feature)
