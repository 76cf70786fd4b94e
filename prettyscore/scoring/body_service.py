"""Feet, hands and pet scores on the server: who may score, the feature gate's use, what
a results page shows, saving, and the downloadable card (document 001 §2, §5, §9).

The browser only sends a photo and presses buttons. Whether a member may score a gated
kind, the analysis, the score, what a results page shows and what a save stores are all
decided here, from the result the server keeps for the tab; nothing the browser sends
can set a score or skip the gate.
"""

from __future__ import annotations

import secrets
import uuid

from sqlmodel import Session

from prettyscore.analysis import kinds, tiers
from prettyscore.analysis.kinds import BREAKDOWN_KEYS, BREAKDOWN_NAMES, FEET, HANDS, PET
from prettyscore.analysis.service import ScoreResult, score_body_photo, stage_photo
from prettyscore.core import constants, images, messages, routes
from prettyscore.core.db import DbFactory
from prettyscore.core.errors import NotAuthenticated, PermissionDenied, ValidationFailed
from prettyscore.core.media import MediaOwner, MediaStore
from prettyscore.gates import service as gates
from prettyscore.photos import card as result_card
from prettyscore.photos import service as photos_service
from prettyscore.photos.models import Photo

UPLOAD_ROUTES = {FEET: routes.FEET_UPLOAD, HANDS: routes.HANDS_UPLOAD, PET: routes.PET_UPLOAD}
RESULTS_ROUTES = {FEET: routes.FEET_RESULTS, HANDS: routes.HANDS_RESULTS, PET: routes.PET_RESULTS}

#: The gate of each gated kind; pets are free for every member (document 001 §2 Pet).
FEATURES = {FEET: gates.FEET_SCORING, HANDS: gates.HANDS_SCORING}

#: What a save may keep: feet and hands results (pet results are not saved).
SAVED_KINDS = (FEET, HANDS)

#: The documents' hands reading: a photo that reaches the results page without a score
#: scores 85 (document 001 §2 Hands). Kept as they give it, on their own scale.
HANDS_DEFAULT_SCORE = 85.0

#: How a kind is named in its share text.
SHARE_NAMES = {FEET: "feet", HANDS: "hands", PET: "pet cuteness"}


def require_kind(kind: str) -> str:
    """``kind`` if it is feet, hands or pet; anything else is refused."""
    if kind not in kinds.BODY_KINDS:
        raise ValidationFailed(messages.UNEXPECTED_ERROR, code="unknown_kind")
    return kind


# ---------------------------------------------------------------------------
# Before the analysis
# ---------------------------------------------------------------------------
def stage_body_photo(
    store: MediaStore,
    owner: MediaOwner,
    data: bytes,
    *,
    name: str | None = None,
    content_type: str | None = None,
) -> str:
    """Check an upload and keep it for this browser's session, as the face upload does
    (a real image, no bombs, EXIF stripped), with these pages' size message."""
    if len(data) > constants.MAX_UPLOAD_BYTES:
        raise ValidationFailed(messages.FILE_SIZE_LIMIT, code="file_too_large")
    return stage_photo(store, owner, data, name=name, content_type=content_type)


def check_may_score(db: Session, user_id: uuid.UUID | None, kind: str) -> None:
    """Members only; a gated kind also needs the gate's access (Premium or an activated
    trial). Raises NotAuthenticated or PermissionDenied (code: the gate's reason)."""
    require_kind(kind)
    if user_id is None:
        raise NotAuthenticated(messages.SIGN_IN_TO_ACCESS_FEATURE)
    feature = FEATURES.get(kind)
    if feature is None:
        return
    access = gates.check_feature_access(db, user_id, feature)
    if not access.has_access:
        raise PermissionDenied(messages.FEATURE_NEEDS_PREMIUM, code=access.reason)


def record_use(db: Session, user_id: uuid.UUID, kind: str) -> None:
    """Record one use of a gated kind (spending an activated trial); pets are free."""
    feature = FEATURES.get(kind)
    if feature is not None:
        gates.record_feature_usage(db, user_id, feature)


def analyse_for_member(
    sessions: DbFactory, store: MediaStore, user_id: uuid.UUID, image_key: str, kind: str
) -> ScoreResult:
    """Analyse a staged photo for a member (slow: call it off the event loop).

    Access is checked before the analysis and the gate's use is recorded after it, in
    its own transaction: a photo the analysis refuses costs no trial, and of two analyses
    started on one trial only the first to finish gets its result.
    """
    with sessions() as db:
        check_may_score(db, user_id, kind)
    result = score_body_photo(store, image_key, kind)
    with sessions() as db:
        record_use(db, user_id, kind)
    return result


# ---------------------------------------------------------------------------
# The results pages' navigation state, kept on the server
# ---------------------------------------------------------------------------
def photo_navigation(image_key: str) -> dict:
    """What an upload page passes on once a photo is chosen: the image, no score yet."""
    return {"image_key": image_key}


def result_navigation(result: ScoreResult, *, saved: bool = False) -> dict:
    """What an upload page passes on after the analysis: the image and its result."""
    return {"image_key": result.image_key, "result": result.to_dict(), "saved": saved}


def result_to_show(
    db: Session, user_id: uuid.UUID | None, kind: str, navigation: dict | None
) -> ScoreResult | None:
    """The result a results page shows from its navigation state, or None (the page
    then goes back to its upload page).

    An analysed result is shown as it is. A hands photo that arrives without a score
    reads as 85, the documents' default; that is a hands score like any other, so it
    records the gate's use (PermissionDenied without access).
    """
    require_kind(kind)
    navigation = navigation or {}
    if navigation.get("result"):
        return ScoreResult.from_dict(navigation["result"])
    image_key = navigation.get("image_key")
    if kind != HANDS or not image_key or user_id is None:
        return None
    record_use(db, user_id, HANDS)
    return default_hands_result(image_key)


def default_hands_result(image_key: str) -> ScoreResult:
    """The documents' default hands result: 85, and every sub-score capped at 10."""
    label = kinds.label_for(HANDS, HANDS_DEFAULT_SCORE)
    sub_score = min(HANDS_DEFAULT_SCORE, 10.0)
    return ScoreResult(
        result_id=secrets.token_urlsafe(16),
        image_key=image_key,
        score=HANDS_DEFAULT_SCORE,
        label=label.label,
        tier_key=HANDS,
        emoji=label.emoji,
        color=label.color,
        breakdown={key: sub_score for key in BREAKDOWN_KEYS[HANDS]},
        special_panel=tiers.NO_SPECIAL_PANEL,
        kind=HANDS,
    )


# ---------------------------------------------------------------------------
# What the results pages show
# ---------------------------------------------------------------------------
def score_text(result: ScoreResult) -> str:
    """The score as the page shows it and the card's file is named (``tiers.score_text``)."""
    return tiers.score_text(result.score)


def breakdown_rows(result: ScoreResult) -> list[dict]:
    """The four bars: each of the kind's sub-scores, named as that kind names it."""
    return [
        {"name": BREAKDOWN_NAMES[key], "value": float(result.breakdown[key])}
        for key in BREAKDOWN_KEYS[result.kind]
        if key in result.breakdown
    ]


def celebrates(result: ScoreResult) -> bool:
    """Confetti for 8.5 and up (document 001 §2 Feet, §9)."""
    return result.score >= constants.CELEBRATION_MIN_SCORE


def share_text(result: ScoreResult) -> str:
    """The text Share sends: the score out of 10 and the label (document 001 §9)."""
    return messages.BODY_SHARE_TEXT.format(
        score=score_text(result), label=result.label, kind=SHARE_NAMES[result.kind]
    )


def pet_summary(result: ScoreResult) -> str:
    """'Your pet scored X/10 on our AI cuteness analysis'."""
    return messages.PET_SCORED.format(score=score_text(result))


# ---------------------------------------------------------------------------
# Saving and the card
# ---------------------------------------------------------------------------
def save_body_result(
    db: Session, store: MediaStore, user_id: uuid.UUID, result: ScoreResult
) -> Photo:
    """Keep a feet or hands result in the member's photos, once (photo_type is the
    kind, with its breakdown); saving the same result again finds the same photo."""
    if result.kind not in SAVED_KINDS:
        raise ValidationFailed(messages.FAILED_TO_SAVE_RESULTS, code="not_saved_kind")
    return photos_service.save_result(db, store, user_id, result)


def card_filename(result: ScoreResult) -> str:
    """feet-score-{score}.png or hands-score-{score}.png (document 001 §9)."""
    return f"{result.kind}-score-{score_text(result)}.png"


def render_card(store: MediaStore, result: ScoreResult) -> bytes:
    """The 600×800 result card as PNG bytes (slow: call it off the event loop)."""
    photo = images.decode_upload(store.read(result.image_key))
    return result_card.render_result_card(
        photo,
        score=result.score,
        label=result.label,
        emoji=result.emoji,
        breakdown=result.breakdown,
        kind=result.kind,
        size=constants.BODY_RESULT_CARD_SIZE,
    )
