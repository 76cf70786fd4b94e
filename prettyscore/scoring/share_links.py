"""Links to a shown score (document 000 §8: Copy Link, and the links X/Twitter and
Facebook carry): each scored photo gets its own page, ``/s/{token}``, with the score and
its label, and never the photo."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlmodel import Session

from prettyscore.analysis.service import ScoreResult
from prettyscore.core import routes
from prettyscore.core.settings import get_settings
from prettyscore.scoring.models import SharedScore

#: Random bytes in a token: 96 bits, written as 16 URL-safe characters.
TOKEN_BYTES = 12


@dataclass(frozen=True)
class SharedView:
    """What a shared score's page shows."""

    score: float
    label: str
    tier_key: str
    emoji: str
    color: str


def create_link(db: Session, result: ScoreResult) -> str:
    """Write the shared page's row for ``result``; its token."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    db.add(
        SharedScore(
            token=token,
            score=result.score,
            label=result.label,
            tier_key=result.tier_key,
            emoji=result.emoji,
            color=result.color,
        )
    )
    return token


def link_url(token: str) -> str:
    """The shared page's absolute address (the site's own address without a token)."""
    base = get_settings().public_url.rstrip("/")
    return f"{base}{routes.shared_score(token)}" if token else base


def find(db: Session, token: str) -> SharedView | None:
    """The shared score behind ``token``, or None for a token no one was given."""
    row = db.get(SharedScore, token[:32]) if token else None
    if row is None:
        return None
    return SharedView(row.score, row.label, row.tier_key, row.emoji, row.color)
