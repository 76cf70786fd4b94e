"""Applying to the partner programme (document 001 §5) and reading partner data: the
short code's rules at every edge, one account per member, a code owned once even when two
people claim it at the same moment, the portal and the leaderboard. Both databases."""

from __future__ import annotations

import re
import threading
import time
from datetime import timedelta

import pytest
from sqlmodel import select

from prettyscore.core import messages
from prettyscore.core.errors import Conflict, ValidationFailed
from prettyscore.core.model_types import utcnow
from prettyscore.partners import service
from prettyscore.partners.models import PartnerAccount, PartnerConversion, PartnerStatus


def accounts(db) -> list[PartnerAccount]:
    return list(db.exec(select(PartnerAccount)).all())


# ---------------------------------------------------------------------------
# The short code
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("abc", "ABC"),
        ("my-code_1!", "MYCODE1"),
        ("  a b c  ", "ABC"),
        ("ABCDEFGHIJK", "ABCDEFGHIJ"),  # the field stops at 10
        ("été2026", "T2026"),  # only A-Z and 0-9
        ("", ""),
    ],
)
def test_the_code_field_keeps_upper_case_letters_and_digits_as_typed(typed, kept):
    assert service.code_as_typed(typed) == kept


@pytest.mark.parametrize("code", ["AB", "a1", "ABCDEFGHIJK", "x-y"])
def test_codes_outside_3_to_10_characters_are_refused(db, make_member, code):
    member = make_member()
    with pytest.raises(ValidationFailed) as refusal:
        service.apply(db, member.id, "Anna", code)
    assert refusal.value.message == messages.SHORT_CODE_INVALID
    assert refusal.value.field == "short_code"
    assert accounts(db) == []


@pytest.mark.parametrize(
    ("code", "stored"),
    [("abc", "ABC"), ("ab-c", "ABC"), ("anna2026xy", "ANNA2026XY"), ("Summer 24!", "SUMMER24")],
)
def test_codes_of_3_to_10_are_stored_upper_case_without_symbols(db, make_member, code, stored):
    account = service.apply(db, make_member().id, "Anna", code)
    db.commit()
    assert account.code == stored
    assert [row.code for row in accounts(db)] == [stored]


@pytest.mark.parametrize("blank", [None, "", "   ", "--!"])
def test_a_blank_code_gets_a_random_5_character_one(db, make_member, blank):
    account = service.apply(db, make_member().id, "Anna", blank)
    assert re.fullmatch(r"[A-Z0-9]{5}", account.code)


def test_random_codes_differ():
    assert len({service.random_code() for _ in range(50)}) > 45


# ---------------------------------------------------------------------------
# The rest of the application
# ---------------------------------------------------------------------------
def test_a_new_account_is_pending_at_starter_with_its_promo_code_upper_case(db, make_member):
    member = make_member()
    account = service.apply(db, member.id, "  Anna Lee ", "anna", " summer10 ")
    db.commit()
    stored = db.get(PartnerAccount, account.id)
    assert (stored.user_id, stored.display_name, stored.code) == (member.id, "Anna Lee", "ANNA")
    assert (stored.promo_code, stored.status, stored.tier) == (
        "SUMMER10",
        PartnerStatus.PENDING,
        "starter",
    )
    assert stored.commission_percent == 15
    assert (stored.total_clicks, stored.total_conversions, stored.total_earned) == (0, 0, 0)


@pytest.mark.parametrize("promo", [None, "", "   "])
def test_a_blank_promo_code_is_stored_empty(db, make_member, promo):
    assert service.apply(db, make_member().id, "Anna", "ANNA", promo).promo_code == ""


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", messages.PARTNER_DISPLAY_NAME_REQUIRED),
        ("   ", messages.PARTNER_DISPLAY_NAME_REQUIRED),
        ("\x00\x08\x1f\u2028", messages.PARTNER_DISPLAY_NAME_REQUIRED),
        ("x" * 101, messages.PARTNER_DISPLAY_NAME_TOO_LONG),
    ],
)
def test_a_display_name_is_required(db, make_member, name, message):
    with pytest.raises(ValidationFailed) as refusal:
        service.apply(db, make_member().id, name, "ANNA")
    assert (refusal.value.field, refusal.value.message) == ("display_name", message)


def test_a_promo_code_longer_than_32_is_refused(db, make_member):
    assert service.apply(db, make_member().id, "A", "AAA", "p" * 32).promo_code == "P" * 32
    with pytest.raises(ValidationFailed) as refusal:
        service.apply(db, make_member().id, "B", "BBB", "p" * 33)
    assert refusal.value.message == messages.PARTNER_PROMO_CODE_TOO_LONG


def test_one_partner_account_per_member(db, make_member):
    member = make_member()
    service.apply(db, member.id, "Anna", "ANNA")
    db.commit()
    with pytest.raises(Conflict) as refusal:
        service.apply(db, member.id, "Anna again", "ANNA2")
    assert refusal.value.message == messages.ALREADY_PARTNER
    assert [row.code for row in accounts(db)] == ["ANNA"]


def test_a_taken_code_is_refused_whatever_case_it_was_typed_in(db, make_member):
    service.apply(db, make_member().id, "Anna", "ANNA")
    db.commit()
    with pytest.raises(Conflict) as refusal:
        service.apply(db, make_member().id, "Other", "anna")
    assert refusal.value.message == messages.SHORT_CODE_TAKEN
    assert len(accounts(db)) == 1


def test_a_taken_promo_code_is_refused(db, make_member):
    service.apply(db, make_member().id, "Anna", "ANNA", "SUMMER")
    db.commit()
    with pytest.raises(Conflict) as refusal:
        service.apply(db, make_member().id, "Other", "OTHER", "summer")
    assert refusal.value.message == messages.PARTNER_PROMO_CODE_TAKEN


def test_a_random_code_that_is_taken_is_drawn_again(db, make_member, monkeypatch):
    service.apply(db, make_member().id, "Anna", "TAKEN")
    db.commit()
    draws = iter(["TAKEN", "TAKEN", "FRESH"])
    monkeypatch.setattr(service, "random_code", lambda: next(draws))
    assert service.apply(db, make_member().id, "Other", "").code == "FRESH"


def test_two_people_claiming_one_code_at_the_same_moment(db_factory, make_member):
    """The first insert is still uncommitted when the second arrives: both pass every
    check in Python, and the database's unique code decides."""
    first, second = make_member(), make_member()
    first_inserted = threading.Event()
    outcomes: dict[str, str] = {}

    def claim_and_hold():
        with db_factory() as db:
            service.apply(db, first.id, "First", "SAMECODE")
            first_inserted.set()
            time.sleep(0.5)  # the second claim is now waiting on this transaction
        outcomes["first"] = "stored"

    def claim():
        first_inserted.wait(timeout=10)
        try:
            with db_factory() as db:
                service.apply(db, second.id, "Second", "samecode")
            outcomes["second"] = "stored"
        except Conflict as refusal:
            outcomes["second"] = refusal.message

    threads = [threading.Thread(target=claim_and_hold), threading.Thread(target=claim)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert outcomes == {"first": "stored", "second": messages.SHORT_CODE_TAKEN}
    with db_factory() as db:
        assert [(row.user_id, row.code) for row in accounts(db)] == [(first.id, "SAMECODE")]


def test_two_tabs_of_one_member_applying_at_once_make_one_account(db_factory, make_member):
    member = make_member()
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def apply(code: str) -> None:
        start.wait()
        try:
            with db_factory() as db:
                service.apply(db, member.id, "Anna", code)
            outcomes.append("stored")
        except Conflict as refusal:
            outcomes.append(refusal.message)

    threads = [threading.Thread(target=apply, args=(code,)) for code in ("TABONE", "TABTWO")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == sorted(["stored", messages.ALREADY_PARTNER])
    with db_factory() as db:
        assert len(accounts(db)) == 1


# ---------------------------------------------------------------------------
# Reading partner data
# ---------------------------------------------------------------------------
def test_partners_are_found_by_member_code_and_ids(db, make_member, make_partner):
    anna, bob = make_partner("ANNA"), make_partner("BOB", status=PartnerStatus.PENDING)
    assert service.partner_of(db, anna.user_id).id == anna.id
    assert service.partner_of(db, make_member().id) is None
    assert service.partner_by_code(db, "anna").id == anna.id
    assert service.partner_by_code(db, "NOBODY") is None
    found = service.partners_by_ids(db, [anna.id, bob.id, anna.id])
    assert set(found) == {anna.id, bob.id}


def test_the_portal_shows_the_account_and_its_10_latest_conversions(db, make_member, make_partner):
    anna = make_partner("ANNA", tier="pro")
    assert service.portal(db, make_member().id) is None
    start = utcnow() - timedelta(days=30)
    for day in range(12):
        db.add(
            PartnerConversion(
                partner_id=anna.id,
                payment_ref=f"pi_{day}",
                amount=999,
                commission=199,
                created_at=start + timedelta(days=day),
            )
        )
    db.commit()
    view = service.portal(db, anna.user_id)
    assert view.account.code == "ANNA"
    assert (view.terms.name, view.terms.commission_percent) == ("Pro", 20)
    assert [row.payment_ref for row in view.conversions] == [f"pi_{d}" for d in range(11, 1, -1)]


def test_the_leaderboard_lists_the_10_approved_partners_who_earned_most(db, make_partner):
    earned = {}
    for index in range(12):
        partner = make_partner(f"TOP{index}", tier="elite" if index == 11 else "starter")
        partner.total_earned = index * 1000
        db.add(partner)
        earned[partner.code] = partner.total_earned
    pending = make_partner("WAITING", status=PartnerStatus.PENDING)
    suspended = make_partner("GONE", status=PartnerStatus.SUSPENDED)
    for other in (pending, suspended):
        other.total_earned = 1_000_000
        db.add(other)
    db.commit()

    board = service.leaderboard(db)
    assert [entry.rank for entry in board] == list(range(1, 11))
    assert [entry.display_name for entry in board] == [f"Partner TOP{i}" for i in range(11, 1, -1)]
    assert [entry.total_earned for entry in board][:2] == [11_000, 10_000]
    assert (board[0].tier.name, board[1].tier.name) == ("Elite", "Starter")


def test_an_empty_leaderboard(db, make_partner):
    make_partner("WAITING", status=PartnerStatus.PENDING)
    assert service.leaderboard(db) == []
