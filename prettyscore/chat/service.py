"""Chat between the two parties of an approved contact request: the rules, no Reflex.

Only the requester and the contestant of an APPROVED request may read or write its
messages. Everyone else, and any id that does not exist or is not an id at all, gets the
same 'Contact request not found', so nobody can probe which requests exist. The parties
of a request that is still pending (or was denied) are told it is not approved.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import or_
from sqlmodel import Session, col, select

from prettyscore.chat.models import Message
from prettyscore.contact import names
from prettyscore.contact.models import ContactRequest, ContactStatus
from prettyscore.core import messages
from prettyscore.core.errors import NotFound, PermissionDenied, ValidationFailed
from prettyscore.core.member_limits import count_member_action
from prettyscore.core.settings import get_settings
from prettyscore.core.text import storable
from prettyscore.photos.models import Photo

MAX_MESSAGE_CHARS = 5000
DEFAULT_PAGE = 200
PREVIEW_CHARS = 80


@dataclass(frozen=True)
class ChatMessage:
    """One stored message as a party of the conversation sees it."""

    id: uuid.UUID
    sender_id: uuid.UUID
    receiver_id: uuid.UUID
    content: str
    created_at: datetime


@dataclass(frozen=True)
class Conversation:
    """One approved request in the member's list: who with, and the latest message."""

    request_id: uuid.UUID
    other_name: str
    last_message: str
    last_at: datetime


def _as_uuid(value: uuid.UUID | str) -> uuid.UUID | None:
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def open_conversation(
    db: Session, user_id: uuid.UUID, request_id: uuid.UUID | str
) -> ContactRequest:
    """The approved request ``user_id`` takes part in, or the error they may be shown."""
    request_uuid = _as_uuid(request_id)
    request = db.get(ContactRequest, request_uuid) if request_uuid else None
    if request is None or user_id not in (request.requester_id, request.contestant_id):
        raise NotFound(messages.CONTACT_REQUEST_NOT_FOUND)
    if request.status != ContactStatus.APPROVED:
        raise PermissionDenied(messages.CONTACT_REQUEST_NOT_APPROVED)
    return request


def other_party(request: ContactRequest, user_id: uuid.UUID) -> uuid.UUID:
    """The party of ``request`` who is not ``user_id``."""
    return request.contestant_id if user_id == request.requester_id else request.requester_id


def _chat_message(row: Message) -> ChatMessage:
    return ChatMessage(row.id, row.sender_id, row.receiver_id, row.content, row.created_at)


def messages_since(
    db: Session,
    user_id: uuid.UUID,
    request_id: uuid.UUID | str,
    after: datetime | None = None,
    limit: int = DEFAULT_PAGE,
) -> list[ChatMessage]:
    """Messages of the conversation, oldest first.

    Without ``after``: the latest ``limit`` messages (what the page opens with). With
    ``after``: the first ``limit`` messages stored after that time (what a live page
    fetches when it is told, or suspects, that something new arrived).
    """
    request = open_conversation(db, user_id, request_id)
    query = select(Message).where(Message.contact_request_id == request.id)
    if after is None:
        query = query.order_by(col(Message.created_at).desc(), col(Message.id).desc())
        rows = list(db.exec(query.limit(limit)))
        rows.reverse()
    else:
        query = query.where(Message.created_at > after)
        query = query.order_by(col(Message.created_at), col(Message.id))
        rows = list(db.exec(query.limit(limit)))
    return [_chat_message(row) for row in rows]


def clean_message(text: str) -> str:
    """The message as it is stored: trimmed, 1 to 5000 characters."""
    content = storable(text).strip()
    if not content:
        raise ValidationFailed(messages.CHAT_MESSAGE_EMPTY)
    if len(content) > MAX_MESSAGE_CHARS:
        raise ValidationFailed(messages.CHAT_MESSAGE_TOO_LONG)
    return content


def send_message(
    db: Session, user_id: uuid.UUID, request_id: uuid.UUID | str, text: str
) -> ChatMessage:
    """Store a message from ``user_id`` to the other party of the approved request.

    A member sends at most ``RATE_LIMIT_CHAT_MESSAGES_PER_MEMBER`` messages (across all
    their conversations), so a script cannot flood the other party; a valid message is
    counted before it is stored, a refused one stores nothing."""
    request = open_conversation(db, user_id, request_id)
    content = clean_message(text)
    count_member_action(
        get_settings().rate_limit_chat_messages_per_member,
        "chat-messages-member",
        user_id,
        messages.CHAT_MESSAGES_RATE_LIMITED,
    )
    row = Message(
        contact_request_id=request.id,
        sender_id=user_id,
        receiver_id=other_party(request, user_id),
        content=content,
    )
    db.add(row)
    db.flush()
    return _chat_message(row)


def party_name(db: Session, request: ContactRequest, user_id: uuid.UUID) -> str:
    """How ``user_id`` sees the other party: the contestant by their listing's name."""
    other_id = other_party(request, user_id)
    if other_id == request.contestant_id and request.photo_id is not None:
        photo = db.get(Photo, request.photo_id)
        if photo is not None and photo.display_name:
            return photo.display_name
    return names.public_name(db, other_id)


def _preview(content: str) -> str:
    flat = " ".join(content.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def conversations(db: Session, user_id: uuid.UUID) -> list[Conversation]:
    """The member's approved requests, the most recently active first."""
    requests = db.exec(
        select(ContactRequest).where(
            ContactRequest.status == ContactStatus.APPROVED,
            or_(ContactRequest.requester_id == user_id, ContactRequest.contestant_id == user_id),
        )
    ).all()
    found = []
    for request in requests:
        latest = db.exec(
            select(Message)
            .where(Message.contact_request_id == request.id)
            .order_by(col(Message.created_at).desc(), col(Message.id).desc())
            .limit(1)
        ).first()
        found.append(
            Conversation(
                request_id=request.id,
                other_name=party_name(db, request, user_id),
                last_message=_preview(latest.content) if latest else "",
                last_at=latest.created_at if latest else request.created_at,
            )
        )
    found.sort(key=lambda item: item.last_at, reverse=True)
    return found
