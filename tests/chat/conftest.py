"""Members and contact requests for the chat tests, written straight to the database.

Contact requests are made by the contact area; here they are plain rows in the state the
chat cares about (approved and paid unless a test says otherwise).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest

from prettyscore.accounts.models import User
from prettyscore.contact.models import ContactRequest


def add_member(db, prefix: str = "member") -> User:
    """A new member (a users row)."""
    user = User(email=f"{prefix}-{uuid.uuid4().hex[:8]}@example.com", password_hash="x")
    db.add(user)
    db.commit()
    return user


def add_request(db, requester: User, contestant: User, status: str = "approved") -> ContactRequest:
    """A paid contact request from ``requester`` to ``contestant`` in ``status``."""
    request = ContactRequest(
        requester_id=requester.id,
        contestant_id=contestant.id,
        rank_at_request=1,
        fee_amount=100_000,
        platform_share=25_000,
        contestant_share=75_000,
        message_preview="Hello, I would love to talk about your photo.",
        paid=True,
        payment_status="paid",
        status=status,
    )
    db.add(request)
    db.commit()
    return request


@pytest.fixture
def make_member(db) -> Callable[..., User]:
    return lambda prefix="member": add_member(db, prefix)


@pytest.fixture
def make_request(db) -> Callable[..., ContactRequest]:
    return lambda requester, contestant, status="approved": add_request(
        db, requester, contestant, status
    )
