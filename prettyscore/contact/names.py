"""How one member is named to another: never by their email address.

A contestant sees who paid to contact them, and two members in a chat see each other.
The name shown is one the member chose to show: the name they gave with their account
(``full_name`` or ``name`` in its metadata), else the display name of their newest photo
listed on the leaderboard, else a plain "A PrettyScore member". An address, or a part of
one, is private to the member and the admins.
"""

from __future__ import annotations

import uuid

from sqlmodel import Session, col, select

from prettyscore.accounts.models import User
from prettyscore.core import messages
from prettyscore.core.text import clean_name
from prettyscore.photos.models import Photo


def account_name(user: User | None) -> str:
    """The name given with the account, cleaned for one line; "" when none was given."""
    metadata = (user.user_metadata if user is not None else None) or {}
    return clean_name(str(metadata.get("full_name") or metadata.get("name") or ""))


def listed_name(db: Session, user_id: uuid.UUID) -> str:
    """The display name of the member's newest photo on the leaderboard; "" if none."""
    name = db.exec(
        select(Photo.display_name)
        .where(Photo.user_id == user_id, Photo.public_listing, col(Photo.display_name).is_not(None))
        .order_by(Photo.created_at.desc())
        .limit(1)
    ).first()
    return clean_name(name)


def public_name(db: Session, user_id: uuid.UUID) -> str:
    """What another member sees as ``user_id``'s name."""
    return (
        account_name(db.get(User, user_id))
        or listed_name(db, user_id)
        or messages.MEMBER_WITHOUT_NAME
    )
