"""What the server functions need besides the areas' own services: reading the image a
call names, URLs a client on another origin can use, and which payment, trial step or
analysis a call stands for.

No limit, price or permission is decided here: each function ends in the service the
page uses for the same action (``editing``, ``video``, ``billing.checkout``, ``gates``,
``personality``, ``contact``), so the API and the pages can never disagree.
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sqlmodel import Session

from prettyscore.analysis.service import stage_photo
from prettyscore.billing import checkout
from prettyscore.billing.fulfilment import (
    KIND_CONTACT_REQUEST,
    KIND_PERSONALITY_ANALYSIS,
    KIND_SUBSCRIPTION,
)
from prettyscore.contact import service as contact
from prettyscore.contact.models import ContactRequest
from prettyscore.core import messages
from prettyscore.core.errors import DomainError, NotFound, PermissionDenied, ValidationFailed
from prettyscore.core.media import MediaOwner, MediaStore
from prettyscore.core.settings import get_settings
from prettyscore.gates import service as gates
from prettyscore.personality import service as personality
from prettyscore.personality.quiz import DETAILED
from prettyscore.video.service import member_source_key

#: A photo sent inline, as the documents' client holds it: ``data:image/<type>;base64,...``.
_DATA_URL = re.compile(r"data:image/[\w.+-]+;base64,(?P<payload>.*)", re.IGNORECASE | re.DOTALL)
_WHITESPACE = re.compile(rb"\s+")


# ---------------------------------------------------------------------------
# URLs
# ---------------------------------------------------------------------------
def absolute_url(url: str | None) -> str | None:
    """One of our paths (``/media/...``, ``/checkout/test?...``) as a full URL on the
    public origin, so a client on another origin can use it; full URLs pass unchanged."""
    if not url:
        return None
    if url.startswith("/"):
        return get_settings().public_url + url
    return url


def own_origins(request_base_url: str) -> set[str]:
    """The origins whose absolute media URLs are ours: the public one and the one the
    request came to (they differ behind a proxy)."""
    origins = {get_settings().public_url, request_base_url}
    return {_origin(url) for url in origins if url}


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _our_path(url: str, origins: Collection[str]) -> str:
    """The path of a media URL given relative or absolute on one of our origins; ""
    for anything else (another site's URL, a query, a fragment)."""
    parts = urlsplit(url)
    if parts.query or parts.fragment:
        return ""
    if not parts.scheme and not parts.netloc:
        return url
    return parts.path if _origin(url) in origins else ""


# ---------------------------------------------------------------------------
# The image a call names
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SourceImage:
    """The stored photo a call works on; ``staged`` when this call stored it (from a data
    URL), so it is removed again if the call fails."""

    key: str
    staged: bool


def _decoded(payload: str) -> bytes:
    try:
        return base64.b64decode(_WHITESPACE.sub(b"", payload.encode("ascii")), validate=True)
    except (binascii.Error, UnicodeEncodeError) as error:
        raise ValidationFailed(messages.FAILED_TO_READ_IMAGE, code="not_an_image") from error


def source_image(
    store: MediaStore, user_id: uuid.UUID, image_url: str | None, origins: Collection[str]
) -> SourceImage:
    """The member's photo that ``imageUrl`` names (slow for a data URL: call it on a
    worker thread).

    - One of our media URLs (relative, or absolute on our origin): only a file in the
      member's own folder that exists; anything else is 'Please upload an image file',
      the same answer whether the file is someone else's or missing.
    - A ``data:image/...;base64,`` URL: checked like an upload on the pages (10 MB, a real
      image, no bombs, EXIF removed) and stored in the member's folder first.
    """
    text = (image_url or "").strip()
    inline = _DATA_URL.fullmatch(text)
    if inline is not None:
        data = _decoded(inline["payload"])
        return SourceImage(stage_photo(store, MediaOwner.member(user_id), data), staged=True)
    key = member_source_key(user_id, _our_path(text, origins))
    if not store.exists(key):
        raise ValidationFailed(messages.PLEASE_UPLOAD_IMAGE_FILE, code="not_an_image")
    return SourceImage(key, staged=False)


# ---------------------------------------------------------------------------
# create-checkout
# ---------------------------------------------------------------------------
def check_payer(user: checkout.Payer, user_id: str | None, email: str | None) -> None:
    """A checkout is always the caller's own: a ``userId`` or ``email`` in the body may
    only repeat the bearer's, never name someone else."""
    if (user_id or "").strip() and user_id.strip().lower() != str(user.id):
        raise PermissionDenied(messages.CHECKOUT_ONLY_FOR_YOURSELF)
    if (email or "").strip() and email.strip().lower() != user.email.lower():
        raise PermissionDenied(messages.CHECKOUT_ONLY_FOR_YOURSELF)


def start_checkout(db: Session, user: checkout.Payer, kind: str, metadata: Mapping) -> str:
    """Open the checkout the page would open for ``kind``; returns its absolute URL.

    The amount is always the server's: Premium and the detailed analysis at the
    settings' prices, a contact request at the fee its rank fixed when it was made.
    ``metadata.promo_code``, a partner's promo code, is decided as at the pages' checkout.
    """
    promo_code = _promo_code(metadata)
    if kind == KIND_SUBSCRIPTION:
        url = checkout.start_checkout(
            db,
            user,
            KIND_SUBSCRIPTION,
            description=messages.PREMIUM_PLAN_NAME,
            promo_code=promo_code,
        )
    elif kind == KIND_CONTACT_REQUEST:
        url = _contact_checkout(db, user, metadata, promo_code)
    elif kind == KIND_PERSONALITY_ANALYSIS:
        result_id = metadata.get("result_id")
        if not result_id:
            raise ValidationFailed(messages.CHECKOUT_NAME_PERSONALITY_RESULT)
        url = personality.start_detailed_purchase(db, user, str(result_id), promo_code)
    else:
        raise ValueError(f"Unknown checkout type: {kind}")
    return absolute_url(url)


def _promo_code(metadata: Mapping) -> str | None:
    """The promo code the caller typed, as text (anything else counts as none)."""
    value = metadata.get("promo_code")
    return value if isinstance(value, str) else None


def _contact_checkout(
    db: Session, user: checkout.Payer, metadata: Mapping, promo_code: str | None = None
) -> str:
    """Pay one of the member's unpaid contact requests, or make one (a listed photo and a
    message) and pay it, as the leaderboard's contact dialog does."""
    request_id = metadata.get("contact_request_id")
    if request_id:
        try:
            request = db.get(ContactRequest, uuid.UUID(str(request_id)))
        except ValueError:
            request = None
        if request is None:
            raise NotFound(messages.CONTACT_REQUEST_NOT_FOUND)
        return contact.start_payment(db, user, request, promo_code)
    photo_id = metadata.get("photo_id")
    if photo_id:
        message = str(metadata.get("message") or "")
        return contact.request_contact(db, user, str(photo_id), message, promo_code)
    raise ValidationFailed(messages.CHECKOUT_NAME_CONTACT_REQUEST)


# ---------------------------------------------------------------------------
# record-feature-usage
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class RecordedUse:
    """What record-feature-usage did: a free trial activated, or a use recorded."""

    access: gates.FeatureAccess
    trial_activated: bool


def record_feature_usage(db: Session, user_id: uuid.UUID, feature: str) -> RecordedUse:
    """The gate's two steps under the documents' one function name.

    A member who may use the feature (Premium, or a trial activated and not yet used)
    records a use, which spends the trial. A locked member with a trial left activates it
    (the gate's 'Activate free trial' button: the documents' client calls this function
    for it, then checks access again). Otherwise the gate's refusal. Each trial thus
    gives exactly one use, as on the pages.
    """
    access = gates.check_feature_access(db, user_id, feature)
    if not access.has_access and access.trial_remaining > 0:
        return RecordedUse(gates.activate_trial(db, user_id, feature), trial_activated=True)
    return RecordedUse(gates.record_feature_usage(db, user_id, feature), trial_activated=False)


# ---------------------------------------------------------------------------
# personality-analysis
# ---------------------------------------------------------------------------
def personality_analysis(
    db: Session, user_id: uuid.UUID, answers: Any, quiz_type: str
) -> personality.ResultView:
    """The basic analysis as the page's Finish gives it (the gate's use recorded, the
    result saved), or the detailed analysis of these answers once the member paid for it
    (402 'Failed to get detailed analysis' before)."""
    if quiz_type == DETAILED:
        report = personality.paid_detailed_analysis(db, user_id, answers)
        if report is None:
            raise DomainError(
                messages.FAILED_TO_GET_DETAILED_ANALYSIS, code="payment_required", status=402
            )
        return report
    return personality.finish_test(db, user_id, answers)
