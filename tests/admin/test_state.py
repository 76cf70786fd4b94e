"""The admin pages' event handlers, called directly as a forged event would call them:
visitors and members are refused and nothing changes; admins get the documents' toasts."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from sqlmodel import func, select

from prettyscore.accounts.models import Profile
from prettyscore.accounts.service import SessionTokens
from prettyscore.admin.state import PartnersAdminState, PayoutsAdminState, VerificationAdminState
from prettyscore.core import messages
from prettyscore.partners.models import (
    PartnerAccount,
    PartnerConversion,
    PartnerPayout,
    PartnerStatus,
)
from prettyscore.verification import service as verification
from prettyscore.verification.models import VerificationRequest
from tests.fixtures.handlers import as_user, call
from tests.fixtures.people import admin_session, conversion, member_session, partner

DENIED = messages.ACCESS_DENIED_ADMIN_ONLY
REQUIRED = messages.ADMIN_ACCESS_REQUIRED


@dataclass(frozen=True)
class World:
    admin: SessionTokens
    member: SessionTokens
    partner_id: str
    request_id: str
    requester_id: object


@pytest.fixture
def world(db_factory, app_database) -> World:
    """An admin, a member, a pending partner owed 12.50, and a pending verification request."""
    with db_factory() as db:
        boss, someone = admin_session(db), member_session(db)
        account = partner(db, PartnerStatus.PENDING, name="Pending Partner")
        conversion(db, account, 1_250)
        requester = member_session(db, "requester")
        request = verification.submit_request(
            db,
            requester.user_id,
            verification.VerificationForm(full_name="Req Uester", reason="Please"),
        )
    return World(boss, someone, str(account.id), str(request.id), requester.user_id)


def snapshot(db_factory, world: World) -> tuple:
    """Everything an admin handler could change."""
    with db_factory() as db:
        account = db.get(PartnerAccount, uuid.UUID(world.partner_id))
        conversions = db.exec(select(PartnerConversion.status)).all()
        payouts = db.exec(select(func.count()).select_from(PartnerPayout)).one()
        request = db.exec(select(VerificationRequest)).one()
        verified = db.get(Profile, world.requester_id).is_verified
        return (
            account.status,
            account.tier,
            account.commission_percent,
            sorted(conversions),
            payouts,
            request.status,
            verified,
        )


# (state, handler, its arguments, the refusal a member gets)
ADMIN_HANDLERS = [
    (PartnersAdminState, "show_status", lambda w: (PartnerStatus.PENDING,), DENIED),
    (PartnersAdminState, "set_status", lambda w: (w.partner_id, PartnerStatus.APPROVED), DENIED),
    (PartnersAdminState, "set_tier", lambda w: (w.partner_id, "elite"), DENIED),
    (PayoutsAdminState, "mark_paid", lambda w: (w.partner_id,), DENIED),
    (VerificationAdminState, "approve", lambda w: (w.request_id,), REQUIRED),
    (VerificationAdminState, "reject", lambda w: (w.request_id,), REQUIRED),
]
HANDLER_PARAMS = ("state_class", "handler", "args", "refusal")
HANDLER_IDS = [f"{state.__name__}.{name}" for state, name, _, _ in ADMIN_HANDLERS]
# (state, the list its page shows)
OPEN_PAGES = [
    (PartnersAdminState, "partners"),
    (PayoutsAdminState, "unpaid"),
    (PayoutsAdminState, "payouts"),
    (VerificationAdminState, "requests"),
]


@pytest.mark.parametrize(
    ("state_class", "handler", "args", "refusal"), ADMIN_HANDLERS, ids=HANDLER_IDS
)
def test_a_member_calling_an_admin_handler_is_refused_sent_home_and_nothing_changes(
    db_factory, world, state_class, handler, args, refusal
):
    before = snapshot(db_factory, world)
    reply = call(as_user(state_class, world.member), handler, *args(world))
    assert reply.toasts == [("error", refusal)]
    assert reply.redirects == ["/"]
    assert snapshot(db_factory, world) == before


@pytest.mark.parametrize(
    ("state_class", "handler", "args", "refusal"), ADMIN_HANDLERS, ids=HANDLER_IDS
)
def test_a_visitor_calling_an_admin_handler_is_sent_to_sign_in(
    db_factory, world, state_class, handler, args, refusal
):
    before = snapshot(db_factory, world)
    reply = call(as_user(state_class, None), handler, *args(world))
    assert [path.split("?")[0] for path in reply.redirects] == ["/auth"]
    assert snapshot(db_factory, world) == before


@pytest.mark.parametrize(("state_class", "listed"), OPEN_PAGES)
def test_loading_an_admin_page_shows_a_member_nothing(world, state_class, listed):
    for tokens in (world.member, None):
        state = as_user(state_class, tokens)
        call(state, "open_page")
        assert getattr(state, listed) == []
    admin_view = as_user(state_class, world.admin)
    call(admin_view, "open_page")
    if listed != "payouts":  # no payout recorded yet
        assert len(getattr(admin_view, listed)) == 1


def test_an_admin_filters_approves_and_sets_a_tier(db_factory, world):
    state = as_user(PartnersAdminState, world.admin)
    call(state, "open_page")
    assert [(row.display_name, row.status, row.commission) for row in state.partners] == [
        ("Pending Partner", "pending", "15%")
    ]
    call(state, "show_status", PartnerStatus.APPROVED)
    assert state.partners == []

    call(state, "show_status", "all")
    reply = call(state, "set_status", world.partner_id, PartnerStatus.APPROVED)
    assert reply.toasts == [("success", messages.PARTNER_STATUS_CHANGED.format(status="approved"))]
    assert reply.toasts[0][1] == "Partner approved"
    reply = call(state, "set_tier", world.partner_id, "pro")
    assert reply.toasts == [("success", messages.TIER_UPDATED.format(tier="Pro"))]
    assert [(row.status, row.tier, row.commission) for row in state.partners] == [
        ("approved", "pro", "20%")
    ]
    reply = call(state, "set_status", world.partner_id, PartnerStatus.APPROVED)
    assert reply.toasts == [
        ("error", messages.PARTNER_TRANSITION_REFUSED.format(current="approved", status="approved"))
    ]
    assert snapshot(db_factory, world)[:3] == ("approved", "pro", 20)


def test_an_admin_marks_a_payout_paid_once_and_sees_it(db_factory, world):
    state = as_user(PayoutsAdminState, world.admin)
    call(state, "open_page")
    assert [(row.conversions, row.amount) for row in state.unpaid] == [(1, "$12.50")]

    reply = call(state, "mark_paid", world.partner_id)
    assert reply.toasts == [("success", messages.PAYOUT_MARKED_SENT)]
    assert state.unpaid == []
    today = datetime.now(UTC).date()
    assert [(row.total, row.status) for row in state.payouts] == [("$12.50", "sent")]
    assert state.payouts[0].period.endswith(f"{today.year}")

    reply = call(state, "mark_paid", world.partner_id)
    assert reply.toasts == [("error", messages.NO_UNPAID_CONVERSIONS)]
    assert len(state.payouts) == 1
    assert snapshot(db_factory, world)[3:5] == (["paid"], 1)


def test_an_admin_approves_a_request_with_notes_and_the_member_is_verified(db_factory, world):
    state = as_user(VerificationAdminState, world.admin)
    call(state, "open_page")
    assert [(row.full_name, row.status_label) for row in state.requests] == [
        ("Req Uester", "Pending")
    ]
    call(state, "set_note", world.request_id, "Welcome aboard")
    reply = call(state, "approve", world.request_id)
    assert reply.toasts == [("success", messages.VERIFICATION_APPROVED)]
    assert [(row.status, row.admin_notes) for row in state.requests] == [
        ("approved", "Welcome aboard")
    ]
    assert snapshot(db_factory, world)[5:] == ("approved", True)

    reply = call(state, "reject", world.request_id)
    assert reply.toasts == [("error", messages.VERIFICATION_ALREADY_REVIEWED)]


def test_an_admin_rejects_a_request(db_factory, world):
    state = as_user(VerificationAdminState, world.admin)
    reply = call(state, "reject", world.request_id)
    assert reply.toasts == [("success", messages.VERIFICATION_REJECTED)]
    assert snapshot(db_factory, world)[5:] == ("rejected", False)
