"""Partner accounts: applying, what the portal shows, and the public leaderboard.

The application's rules (document 001 §5) are checked here, for the page and the REST
API alike. The two that can race are the database's: one account per member (unique
``user_id``) and one owner per short code (unique ``code``). Two people submitting the
same code at the same moment both reach the insert; the database keeps the first and
the second is told the code is taken.

Other areas (the admin tools) read partner data through ``partner_of``,
``partner_by_code``, ``partners_by_ids``, ``recent_conversions`` and ``account_terms``.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import secrets
import string
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from prettyscore.core import messages
from prettyscore.core.errors import Conflict, DomainError, ValidationFailed
from prettyscore.core.text import clean_name, storable
from prettyscore.partners.models import (
    ConversionStatus,
    PartnerAccount,
    PartnerConversion,
    PartnerStatus,
)
from prettyscore.partners.programme import (
    LEADERBOARD_SIZE,
    RECENT_CONVERSIONS,
    STARTER,
    TIERS,
    PartnerTier,
)

log = logging.getLogger(__name__)

MIN_CODE_LENGTH = 3
MAX_CODE_LENGTH = 10
RANDOM_CODE_LENGTH = 5
CODE_ALPHABET = string.ascii_uppercase + string.digits
MAX_DISPLAY_NAME = 100
MAX_PROMO_CODE = 32
# A random code that happens to be taken is drawn again, this many times at most.
RANDOM_CODE_ATTEMPTS = 5
# ``PartnerConversion.level`` of a second-tier conversion (``commissions``).
SECOND_TIER_LEVEL = 2

# Codes of the Conflicts ``apply`` raises, so callers can tell the refusals apart.
ALREADY_PARTNER = "already_partner"
CODE_TAKEN = "code_taken"
PROMO_CODE_TAKEN = "promo_code_taken"

_NOT_CODE_CHARACTERS = re.compile(r"[^A-Z0-9]")


@dataclass(frozen=True)
class Application:
    """A checked application: the code is None when the member left it blank."""

    display_name: str
    code: str | None
    promo_code: str


@dataclass(frozen=True)
class LeaderboardEntry:
    """One approved partner on the public leaderboard."""

    rank: int
    display_name: str
    tier: PartnerTier
    total_earned: int


@dataclass(frozen=True)
class PortalView:
    """What /partners/portal shows the partner: the account and its latest conversions."""

    account: PartnerAccount
    terms: PartnerTier
    conversions: list[PartnerConversion]
    #: Earned on sales of the partners this partner referred (not reversed), in cents.
    second_tier_earned: int = 0


# ---------------------------------------------------------------------------
# The application's rules
# ---------------------------------------------------------------------------
def clean_code(raw: str | None) -> str:
    """The short code as the field forces it: upper case, only letters and digits."""
    return _NOT_CODE_CHARACTERS.sub("", (raw or "").upper())


def code_as_typed(raw: str | None) -> str:
    """What the Custom Short Code field keeps while the member types (at most 10)."""
    return clean_code(raw)[:MAX_CODE_LENGTH]


def random_code() -> str:
    """A random 5-character code of upper-case letters and digits."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(RANDOM_CODE_LENGTH))


def check_code(raw: str | None) -> str | None:
    """The chosen code, None when left blank, or ValidationFailed when not 3-10 long."""
    code = clean_code(raw)
    if not code:
        return None
    if not MIN_CODE_LENGTH <= len(code) <= MAX_CODE_LENGTH:
        raise ValidationFailed(messages.SHORT_CODE_INVALID, field="short_code")
    return code


def check_application(
    display_name: str | None, short_code: str | None, promo_code: str | None
) -> Application:
    """The application the form describes, or ValidationFailed for its first problem."""
    name = clean_name(display_name)
    if not name:
        raise ValidationFailed(messages.PARTNER_DISPLAY_NAME_REQUIRED, field="display_name")
    if len(name) > MAX_DISPLAY_NAME:
        raise ValidationFailed(messages.PARTNER_DISPLAY_NAME_TOO_LONG, field="display_name")
    code = check_code(short_code)
    promo = storable(promo_code).strip().upper()
    if len(promo) > MAX_PROMO_CODE:
        raise ValidationFailed(messages.PARTNER_PROMO_CODE_TOO_LONG, field="promo_code")
    return Application(display_name=name, code=code, promo_code=promo)


# ---------------------------------------------------------------------------
# Applying
# ---------------------------------------------------------------------------
def _violated_constraint(error: IntegrityError) -> str:
    """Which unique rule the database enforced: its constraint name (PostgreSQL) or its
    message, which names the column (SQLite)."""
    diag = getattr(error.orig, "diag", None)
    return getattr(diag, "constraint_name", None) or str(error.orig)


def _refusal(error: IntegrityError) -> DomainError:
    """The member's message for a refused insert of a new partner account."""
    violated = _violated_constraint(error)
    if "promo_code" in violated:
        return Conflict(messages.PARTNER_PROMO_CODE_TAKEN, code=PROMO_CODE_TAKEN)
    if "user_id" in violated:
        return Conflict(messages.ALREADY_PARTNER, code=ALREADY_PARTNER)
    if "code" in violated:
        return Conflict(messages.SHORT_CODE_TAKEN, code=CODE_TAKEN)
    log.error("The database refused a partner application: %s", violated)
    return DomainError(messages.FAILED_TO_SUBMIT_APPLICATION)


def _open_account(
    db: Session, user_id: uuid.UUID, application: Application, code: str
) -> PartnerAccount:
    """Insert the pending account with ``code``; a unique rule's refusal as a Conflict."""
    account = PartnerAccount(
        user_id=user_id,
        display_name=application.display_name,
        code=code,
        promo_code=application.promo_code,
        status=PartnerStatus.PENDING,
        tier=STARTER.key,
        commission_percent=STARTER.commission_percent,
    )
    try:
        with db.begin_nested():
            db.add(account)
            db.flush()
    except IntegrityError as error:
        raise _refusal(error) from error
    return account


def apply(
    db: Session,
    user_id: uuid.UUID,
    display_name: str | None,
    short_code: str | None = None,
    promo_code: str | None = None,
) -> PartnerAccount:
    """Open the member's partner account, pending review.

    Raises ValidationFailed (the first problem), Conflict with 'You already have a
    partner account', 'This short code is already taken. Please choose another.' or the
    promo code's refusal, or DomainError('Failed to submit application').
    """
    application = check_application(display_name, short_code, promo_code)
    if partner_of(db, user_id) is not None:
        raise Conflict(messages.ALREADY_PARTNER, code=ALREADY_PARTNER)
    if application.code:
        return _open_account(db, user_id, application, application.code)
    # A blank code gets a random one; the rare one already taken is drawn again.
    for _ in range(RANDOM_CODE_ATTEMPTS - 1):
        try:
            return _open_account(db, user_id, application, random_code())
        except Conflict as refusal:
            if refusal.code != CODE_TAKEN:
                raise
    return _open_account(db, user_id, application, random_code())


# ---------------------------------------------------------------------------
# Reading partner data
# ---------------------------------------------------------------------------
def partner_of(db: Session, user_id: uuid.UUID) -> PartnerAccount | None:
    """The member's partner account, if they have one."""
    return db.exec(select(PartnerAccount).where(PartnerAccount.user_id == user_id)).first()


def partner_by_code(db: Session, code: str | None) -> PartnerAccount | None:
    """The account with this short code (any status); codes are matched in upper case."""
    cleaned = clean_code(code)
    if not cleaned or len(cleaned) > MAX_CODE_LENGTH:
        return None
    return db.exec(select(PartnerAccount).where(PartnerAccount.code == cleaned)).first()


def partners_by_ids(db: Session, ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, PartnerAccount]:
    """The accounts with these ids, by id (ids that name no account are left out)."""
    wanted = list(set(ids))
    if not wanted:
        return {}
    rows = db.exec(select(PartnerAccount).where(col(PartnerAccount.id).in_(wanted))).all()
    return {row.id: row for row in rows}


def account_terms(account: PartnerAccount) -> PartnerTier:
    """The account's tier with the commission the account holds (the admin sets both)."""
    tier = TIERS.get(account.tier, STARTER)
    return dataclasses.replace(tier, commission_percent=account.commission_percent)


def recent_conversions(
    db: Session, partner_id: uuid.UUID, limit: int = RECENT_CONVERSIONS
) -> list[PartnerConversion]:
    """The partner's latest conversions, newest first."""
    return list(
        db.exec(
            select(PartnerConversion)
            .where(PartnerConversion.partner_id == partner_id)
            .order_by(col(PartnerConversion.created_at).desc(), col(PartnerConversion.id))
            .limit(limit)
        ).all()
    )


def portal(db: Session, user_id: uuid.UUID) -> PortalView | None:
    """The member's partner portal, or None when they have no partner account."""
    account = partner_of(db, user_id)
    if account is None:
        return None
    return PortalView(
        account=account,
        terms=account_terms(account),
        conversions=recent_conversions(db, account.id),
        second_tier_earned=second_tier_earned(db, account.id),
    )


def second_tier_earned(db: Session, partner_id: uuid.UUID) -> int:
    """What the partner earned on the sales of partners they referred (the second tier,
    ``level`` 2), reversed conversions left out, in cents."""
    total = db.exec(
        select(func.coalesce(func.sum(PartnerConversion.commission), 0)).where(
            PartnerConversion.partner_id == partner_id,
            PartnerConversion.level == SECOND_TIER_LEVEL,
            PartnerConversion.status != ConversionStatus.REVERSED,
        )
    ).one()
    return int(total or 0)


def leaderboard(db: Session, limit: int = LEADERBOARD_SIZE) -> list[LeaderboardEntry]:
    """The approved partners who earned most, best first (earlier partners first on ties)."""
    rows = db.exec(
        select(PartnerAccount)
        .where(PartnerAccount.status == PartnerStatus.APPROVED)
        .order_by(
            col(PartnerAccount.total_earned).desc(),
            col(PartnerAccount.created_at),
            col(PartnerAccount.id),
        )
        .limit(limit)
    ).all()
    return [
        LeaderboardEntry(
            rank=rank,
            display_name=row.display_name,
            tier=account_terms(row),
            total_earned=row.total_earned,
        )
        for rank, row in enumerate(rows, start=1)
    ]
