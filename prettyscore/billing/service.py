"""Billing rules other areas ask about; payments themselves arrive with their own work.

``is_subscriber`` is the one place that decides whether someone has Premium: the free
edit and video limits and the premium badge all ask it (the documents' check-subscription).
"""

from __future__ import annotations

import uuid

from sqlmodel import Session, select

from prettyscore.billing.models import Subscription
from prettyscore.core.model_types import utcnow

PREMIUM_PLAN = "premium_editing"
ACTIVE_STATUSES = ("active", "trialing")


def is_subscriber(db: Session, user_id: uuid.UUID) -> bool:
    """Whether the member has an active Premium Editing plan that has not expired."""
    now = utcnow()
    rows = db.exec(
        select(Subscription).where(
            Subscription.user_id == user_id,
            Subscription.plan_type == PREMIUM_PLAN,
            Subscription.status.in_(ACTIVE_STATUSES),
        )
    ).all()
    return any(row.expires_at is None or row.expires_at > now for row in rows)
