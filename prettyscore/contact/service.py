"""Paid contact requests: the fee by rank, creating a request, paying it, and the
contestant's inbox (approve, or deny with a refund).

Everything that costs money is decided here on the server: the photo's rank is counted
from the database when the request is made, the fee follows from that rank, and the
request is delivered to the contestant only once a payment event has marked it paid.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import update
from sqlmodel import Session, func, select

from prettyscore.accounts.models import User
from prettyscore.billing import checkout, refunds
from prettyscore.billing.fulfilment import KIND_CONTACT_REQUEST
from prettyscore.billing.models import CheckoutSession, PaymentStatus
from prettyscore.contact import names
from prettyscore.contact.models import ContactPaymentStatus, ContactRequest, ContactStatus
from prettyscore.core import messages, routes
from prettyscore.core.errors import DomainError, NotFound, PermissionDenied, ValidationFailed
from prettyscore.core.member_limits import count_member_action
from prettyscore.core.settings import get_settings
from prettyscore.core.text import storable
from prettyscore.leaderboard import service as leaderboard
from prettyscore.photos.models import Photo

#: Document 001 §9: max(1000 - (rank - 1) * 50, 100) dollars.
TOP_FEE_DOLLARS = 1000
FEE_STEP_DOLLARS = 50
MIN_FEE_DOLLARS = 100
PLATFORM_PERCENT = 25
MESSAGE_MIN_CHARS = 10
MESSAGE_MAX_CHARS = 1000

SUCCESS_PATH = f"{routes.LEADERBOARD}?contact=sent"

#: A request is open while it waits for the contestant or its chat is open, unless its
#: fee was refunded or a newer request of the same member replaced it unpaid.
OPEN_STATUSES = (ContactStatus.PENDING, ContactStatus.APPROVED)
LIVE_PAYMENTS = (ContactPaymentStatus.PENDING_PAYMENT, ContactPaymentStatus.PAID)
SETTLED_PAYMENTS = (ContactPaymentStatus.PAID, ContactPaymentStatus.REFUNDED)


@dataclass(frozen=True)
class ContactOffer:
    """What the contact dialog shows before sending: who, their rank and the fee."""

    photo_id: str
    contestant_name: str
    rank: int
    fee_cents: int
    fee: str  # formatted, e.g. "$950.00"


@dataclass(frozen=True)
class InboxEntry:
    """One paid request in the contestant's inbox."""

    id: str
    requester: str
    message: str
    rank: int
    fee: str
    share: str
    status: str


@dataclass(frozen=True)
class SentEntry:
    """One paid request in the requester's Sent list (pending, approved or denied)."""

    id: str
    contestant: str
    message: str
    rank: int
    fee: str
    status: str  # pending | approved | denied
    refunded: bool
    chat_url: str  # the chat of an approved request, else ""


class RequestAlreadyOpen(DomainError):
    """The member already has an open request for this contestant."""


# ---------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------
def fee_for_rank(rank: int) -> int:
    """The contact fee in cents for a contestant at ``rank`` (1 is the top)."""
    if rank < 1:
        raise ValueError("Ranks start at 1")
    dollars = max(TOP_FEE_DOLLARS - (rank - 1) * FEE_STEP_DOLLARS, MIN_FEE_DOLLARS)
    return dollars * 100


def shares(fee_cents: int) -> tuple[int, int]:
    """(platform, contestant) shares of a fee in cents; they always add up to the fee."""
    platform = fee_cents * PLATFORM_PERCENT // 100
    return platform, fee_cents - platform


def check_message(text: str | None) -> str:
    """The trimmed message, or ValidationFailed with the first rule it breaks."""
    message = storable(text).strip()
    if len(message) < MESSAGE_MIN_CHARS:
        raise ValidationFailed(messages.CONTACT_MESSAGE_TOO_SHORT)
    if len(message) > MESSAGE_MAX_CHARS:
        raise ValidationFailed(messages.CONTACT_MESSAGE_TOO_LONG)
    return message


def _parse_id(raw: uuid.UUID | str, not_found_text: str) -> uuid.UUID:
    try:
        return raw if isinstance(raw, uuid.UUID) else uuid.UUID(str(raw))
    except ValueError as error:
        raise NotFound(not_found_text) from error


def _listed_photo(db: Session, photo_id: uuid.UUID | str) -> Photo:
    photo = db.get(Photo, _parse_id(photo_id, messages.CONTESTANT_NOT_FOUND))
    if photo is None or not photo.public_listing:
        raise NotFound(messages.CONTESTANT_NOT_FOUND)
    return photo


def rank_of_photo(db: Session, photo_id: uuid.UUID | str) -> int:
    """The listed photo's leaderboard rank (the leaderboard's own count), refused with the
    contact area's text when the photo is no longer listed."""
    photo = _listed_photo(db, photo_id)
    return leaderboard.rank_of(db, photo.id)


def _contestant_name(photo: Photo) -> str:
    return photo.display_name or messages.APP_NAME


def contact_offer(db: Session, requester_id: uuid.UUID, photo_id: str) -> ContactOffer:
    """What contacting the photo's owner costs now (for the dialog); not one's own photo."""
    photo = _listed_photo(db, photo_id)
    if photo.user_id == requester_id:
        raise PermissionDenied(messages.CANNOT_CONTACT_YOURSELF)
    _refuse_a_second_paid_request(_open_request(db, requester_id, photo.user_id))
    rank = rank_of_photo(db, photo.id)
    fee = fee_for_rank(rank)
    return ContactOffer(
        photo_id=str(photo.id),
        contestant_name=_contestant_name(photo),
        rank=rank,
        fee_cents=fee,
        fee=checkout.format_amount(fee),
    )


# ---------------------------------------------------------------------------
# Requesting and paying
# ---------------------------------------------------------------------------
def _open_request(
    db: Session, requester_id: uuid.UUID, contestant_id: uuid.UUID
) -> ContactRequest | None:
    """The member's open request for the contestant (paid, or still in its checkout)."""
    return db.exec(
        select(ContactRequest)
        .where(
            ContactRequest.requester_id == requester_id,
            ContactRequest.contestant_id == contestant_id,
            ContactRequest.status.in_(OPEN_STATUSES),
            ContactRequest.payment_status.in_(LIVE_PAYMENTS),
        )
        .order_by(ContactRequest.paid.desc(), ContactRequest.created_at.desc())
    ).first()


def _refuse_a_second_paid_request(earlier: ContactRequest | None) -> None:
    """One open request per member and contestant: a paid one waits for its answer or
    has its chat, so a second fee for the same contestant is refused."""
    if earlier is not None and earlier.paid:
        raise RequestAlreadyOpen(messages.CONTACT_REQUEST_ALREADY_OPEN)


def _hold_requester(db: Session, requester_id: uuid.UUID) -> None:
    """Take the member's row for this transaction (a write that changes nothing: a row
    lock on PostgreSQL, the write lock on SQLite), so that two requests of one member
    are judged one after the other, each seeing the other's result."""
    db.connection().execute(update(User).where(User.id == requester_id).values(email=User.email))


def _replace_unpaid(db: Session, requester: User, earlier: ContactRequest) -> None:
    """A new request replaces the member's unpaid one for the same contestant: its open
    checkout ends (at Stripe too; CheckoutFailed when Stripe has just been paid, and then
    nothing changes), so only the newest can be paid."""
    checkout.end_open_checkout(db, requester.id, KIND_CONTACT_REQUEST, str(earlier.id))
    earlier.payment_status = ContactPaymentStatus.SUPERSEDED
    db.add(earlier)
    db.flush()


def create_request(
    db: Session, requester: User, photo_id: uuid.UUID | str, message: str
) -> ContactRequest:
    """A new, unpaid request to the owner of a listed photo, priced by its rank now.

    One open request per member and contestant: while a paid one is pending or approved
    a new one is refused (``RequestAlreadyOpen``); an unpaid one still in its checkout is
    replaced by the new one. Each request opens a checkout and reaches a stranger once
    paid, so a member may make only so many (``RATE_LIMIT_CONTACT_REQUESTS_PER_MEMBER``);
    a valid one is counted before it is stored, a refused one stores nothing."""
    text = check_message(message)
    offer = contact_offer(db, requester.id, str(photo_id))
    photo = _listed_photo(db, offer.photo_id)
    _hold_requester(db, requester.id)
    earlier = _open_request(db, requester.id, photo.user_id)
    _refuse_a_second_paid_request(earlier)
    count_member_action(
        get_settings().rate_limit_contact_requests_per_member,
        "contact-requests-member",
        requester.id,
        messages.CONTACT_REQUESTS_RATE_LIMITED,
    )
    if earlier is not None:
        _replace_unpaid(db, requester, earlier)
    platform_share, contestant_share = shares(offer.fee_cents)
    request = ContactRequest(
        requester_id=requester.id,
        contestant_id=photo.user_id,
        photo_id=photo.id,
        rank_at_request=offer.rank,
        fee_amount=offer.fee_cents,
        platform_share=platform_share,
        contestant_share=contestant_share,
        message_preview=text,
        paid=False,
        payment_status=ContactPaymentStatus.PENDING_PAYMENT,
        status=ContactStatus.PENDING,
    )
    db.add(request)
    db.flush()
    return request


def start_payment(
    db: Session, requester: User, request: ContactRequest, promo_code: str | None = None
) -> str:
    """Open the checkout for the request's fee; returns the URL to send the member to.
    ``promo_code``: a partner's promo code typed at checkout (refused codes start nothing)."""
    if (
        request.requester_id != requester.id
        or request.paid
        or request.payment_status != ContactPaymentStatus.PENDING_PAYMENT
    ):
        raise NotFound(messages.CONTACT_REQUEST_NOT_FOUND)
    return checkout.start_checkout(
        db,
        requester,
        KIND_CONTACT_REQUEST,
        amount_cents=request.fee_amount,
        reference_id=str(request.id),
        description=messages.CONTACT_CHECKOUT_DESCRIPTION.format(rank=request.rank_at_request),
        success_path=SUCCESS_PATH,
        cancel_path=routes.LEADERBOARD,
        promo_code=promo_code,
    )


def request_contact(
    db: Session, requester: User, photo_id: str, message: str, promo_code: str | None = None
) -> str:
    """Create the request and open its checkout in one go (nothing is kept if either fails)."""
    checkout.checked_promo_code(db, requester.id, promo_code)  # a refused code: nothing made
    request = create_request(db, requester, photo_id, message)
    return start_payment(db, requester, request, promo_code)


# ---------------------------------------------------------------------------
# The requester's side: what they sent, and the notice after paying
# ---------------------------------------------------------------------------
def sent(db: Session, requester_id: uuid.UUID) -> list[SentEntry]:
    """The member's paid requests, newest first: pending, approved (with the chat) and
    denied or otherwise refunded ones. Unpaid or replaced ones never reached anyone."""
    rows = db.exec(
        select(ContactRequest, Photo)
        .outerjoin(Photo, Photo.id == ContactRequest.photo_id)
        .where(
            ContactRequest.requester_id == requester_id,
            ContactRequest.payment_status.in_(
                (ContactPaymentStatus.PAID, ContactPaymentStatus.REFUNDED)
            ),
        )
        .order_by(ContactRequest.created_at.desc())
    ).all()
    return [
        SentEntry(
            id=str(request.id),
            contestant=_contestant_name(photo) if photo else messages.APP_NAME,
            message=request.message_preview,
            rank=request.rank_at_request,
            fee=checkout.format_amount(request.fee_amount),
            status=request.status,
            # a denial refunds at once (Stripe confirms the refund a moment later)
            refunded=request.status == ContactStatus.DENIED
            or request.payment_status == ContactPaymentStatus.REFUNDED,
            chat_url=routes.chat(request.id) if request.status == ContactStatus.APPROVED else "",
        )
        for request, photo in rows
    ]


def sent_notice(db: Session, requester_id: uuid.UUID) -> str:
    """The notice after paying a contact fee: only when the member's newest request is
    paid (so opening the success address without paying shows nothing)."""
    row = db.exec(
        select(ContactRequest, Photo)
        .outerjoin(Photo, Photo.id == ContactRequest.photo_id)
        .where(
            ContactRequest.requester_id == requester_id,
            ContactRequest.payment_status != ContactPaymentStatus.SUPERSEDED,
        )
        .order_by(ContactRequest.created_at.desc())
    ).first()
    if row is None:
        return ""
    request, photo = row
    if not request.paid or request.status != ContactStatus.PENDING:
        return ""
    name = _contestant_name(photo) if photo else messages.APP_NAME
    return messages.CONTACT_SENT_NOTICE.format(name=name)


# ---------------------------------------------------------------------------
# The contestant's inbox
# ---------------------------------------------------------------------------
def _inbox_entry(request: ContactRequest, requester_name: str) -> InboxEntry:
    return InboxEntry(
        id=str(request.id),
        requester=requester_name,
        message=request.message_preview,
        rank=request.rank_at_request,
        fee=checkout.format_amount(request.fee_amount),
        share=checkout.format_amount(request.contestant_share),
        status=request.status,
    )


def inbox(db: Session, contestant_id: uuid.UUID) -> list[InboxEntry]:
    """Paid requests addressed to the contestant, pending and approved, newest first; each
    sender by the name they show other members, never their email (``names``)."""
    requests = db.exec(
        select(ContactRequest)
        .where(
            ContactRequest.contestant_id == contestant_id,
            ContactRequest.paid,
            ContactRequest.status.in_((ContactStatus.PENDING, ContactStatus.APPROVED)),
        )
        .order_by(ContactRequest.created_at.desc())
    ).all()
    shown = {sender: names.public_name(db, sender) for sender in {r.requester_id for r in requests}}
    return [_inbox_entry(request, shown[request.requester_id]) for request in requests]


def pending_count(db: Session, contestant_id: uuid.UUID) -> int:
    """How many paid requests wait for the contestant's answer (the sidebar's count)."""
    return db.exec(
        select(func.count())
        .select_from(ContactRequest)
        .where(
            ContactRequest.contestant_id == contestant_id,
            ContactRequest.paid,
            ContactRequest.status == ContactStatus.PENDING,
        )
    ).one()


def _pending_for_contestant(
    db: Session, contestant_id: uuid.UUID, request_id: uuid.UUID | str
) -> ContactRequest:
    """A paid, pending request addressed to the contestant; NotFound for anyone else."""
    request = db.exec(
        select(ContactRequest)
        .where(ContactRequest.id == _parse_id(request_id, messages.CONTACT_REQUEST_NOT_FOUND))
        .with_for_update()
    ).first()
    if (
        request is None
        or request.contestant_id != contestant_id
        or not request.paid
        or request.status != ContactStatus.PENDING
    ):
        raise NotFound(messages.CONTACT_REQUEST_NOT_FOUND)
    return request


def approve(db: Session, contestant_id: uuid.UUID, request_id: uuid.UUID | str) -> ContactRequest:
    """The contestant accepts the request: the chat opens for both of them."""
    request = _pending_for_contestant(db, contestant_id, request_id)
    request.status = ContactStatus.APPROVED
    db.add(request)
    db.flush()
    return request


def deny(db: Session, contestant_id: uuid.UUID, request_id: uuid.UUID | str) -> ContactRequest:
    """The contestant declines: the request is closed and every payment of its fee
    refunded."""
    request = _pending_for_contestant(db, contestant_id, request_id)
    request.status = ContactStatus.DENIED
    db.add(request)
    db.flush()
    payments = db.exec(
        select(CheckoutSession).where(
            CheckoutSession.kind == KIND_CONTACT_REQUEST,
            CheckoutSession.reference_id == str(request.id),
            CheckoutSession.status == PaymentStatus.PAID,
        )
    ).all()
    for payment in payments:  # every one: a second payment may not be refunded yet
        refunds.refund_payment(db, payment, failure_text=messages.FAILED_TO_DENY_REQUEST)
    return request
