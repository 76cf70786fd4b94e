"""Who may use the admin tools: a user_roles row with role admin (document 001 §6).

Every admin service function starts with ``require_admin``, so a forged event or a
direct call by a member is refused by the same rule that guards the pages.
"""

from __future__ import annotations

import uuid

from sqlmodel import Session

from prettyscore.accounts.service import has_role
from prettyscore.core import messages
from prettyscore.core.errors import PermissionDenied


def require_admin(
    db: Session, user_id: uuid.UUID | None, refusal: str = messages.ACCESS_DENIED_ADMIN_ONLY
) -> None:
    """Raise PermissionDenied(``refusal``) unless ``user_id`` holds the admin role."""
    if user_id is None or not has_role(db, user_id):
        raise PermissionDenied(refusal)
