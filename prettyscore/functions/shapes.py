"""The request and response bodies of the server functions, as the documents name them
(document 000 §7, document 001 §7: camelCase, plus ``video_url`` and the checkout
metadata's snake_case). Written as models so the OpenAPI description documents them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from prettyscore.core import messages
from prettyscore.video.engines.base import DEFAULT_DURATION_SECONDS

IMAGE_URL_HELP = (
    "One of your own photos: a URL this API or the app gave you (`/media/...`, relative "
    "or absolute), or the photo itself as a `data:image/...;base64,...` URL (at most "
    "10 MB; it is stored in your folder first)."
)


class _Body(BaseModel):
    """Unknown fields are ignored, as the documents' client may send more."""

    model_config = ConfigDict(extra="ignore")


# -- edit-photo ---------------------------------------------------------------------
class EditPhotoRequest(_Body):
    imageUrl: str = Field(description=IMAGE_URL_HELP)
    prompt: str = Field(
        description="The edit: a preset (e.g. 'Blur background') or your own words.",
        examples=["Change to studio background"],
    )


class EditPhotoResponse(BaseModel):
    editedImageUrl: str = Field(description="The edited photo, stored in your folder.")
    editsRemaining: int | None = Field(
        description="Free edits left after this one; null for Premium (unlimited)."
    )


# -- check-subscription -------------------------------------------------------------
class SubscriptionResponse(BaseModel):
    subscribed: bool = Field(description="Whether you have an active Premium plan.")
    subscription_end: str | None = Field(
        default=None, description="When the paid period ends (ISO 8601), while subscribed."
    )


# -- generate-video / check-video-status ---------------------------------------------
class GenerateVideoRequest(_Body):
    imageUrl: str = Field(description=IMAGE_URL_HELP)
    prompt: str | None = Field(
        default=None, description=f"Defaults to '{messages.VIDEO_DEFAULT_PROMPT}'."
    )
    duration: int | None = Field(
        default=DEFAULT_DURATION_SECONDS, description="Seconds, 1 to 10 (kept within)."
    )


class GenerateVideoResponse(BaseModel):
    taskId: str = Field(description="Poll it with check-video-status.")


class VideoStatusRequest(_Body):
    taskId: str


class VideoStatusResponse(BaseModel):
    status: Literal["processing", "completed", "failed"]
    video_url: str | None = Field(description="The MP4, once completed.")


# -- feature gates ------------------------------------------------------------------
class FeatureRequest(_Body):
    featureName: str = Field(examples=["feet_scoring", "hands_scoring", "personality_test"])


class FeatureAccessResponse(BaseModel):
    hasAccess: bool
    reason: Literal["trial_exceeded", "premium_required"] | None = Field(
        description="Why access is refused; null when granted."
    )
    trialRemaining: int = Field(description="Free trials not yet activated.")


class FeatureUsageResponse(FeatureAccessResponse):
    success: bool = True
    trialActivated: bool = Field(
        description="True when this call activated a free trial (no use recorded yet); "
        "false when it recorded a use (spending an activated trial)."
    )


# -- personality-analysis -----------------------------------------------------------
class PersonalityRequest(_Body):
    answers: dict[str, str] = Field(
        description='The 20 answers: question index ("0" to "19") to choice ("a", "b", "c").'
    )
    quizType: Literal["basic", "detailed"] = "basic"


class PersonalityResponse(BaseModel):
    score: int
    personalityType: str
    analysis: str = Field(description="Paragraphs separated by a blank line.")
    resultId: str = Field(
        description="The saved result; a basic one can be named in create-checkout "
        "(type personality_analysis) to buy its detailed analysis."
    )


# -- create-checkout ----------------------------------------------------------------
class CheckoutMetadata(_Body):
    contact_request_id: str | None = Field(
        default=None, description="contact_request: one of your unpaid requests."
    )
    photo_id: str | None = Field(
        default=None, description="contact_request: a leaderboard photo to contact (new request)."
    )
    message: str | None = Field(default=None, description="contact_request: 10-1000 characters.")
    result_id: str | None = Field(
        default=None, description="personality_analysis: your basic result."
    )
    fee_amount: int | float | None = Field(
        default=None, description="Ignored: the fee is the server's, fixed by the rank."
    )
    rank: int | None = Field(default=None, description="Ignored: the server counts the rank.")
    plan_name: str | None = Field(default=None, description="Ignored: there is one plan.")
    promo_code: str | None = Field(
        default=None,
        max_length=64,
        description="Any type: an approved partner's promo code, credited with the payment "
        "(an unknown code, or your own, is refused and no checkout starts).",
    )


class CheckoutRequest(_Body):
    type: Literal["subscription", "contact_request", "personality_analysis"]
    priceId: str | None = Field(
        default=None, description="Ignored: prices are decided by the server."
    )
    userId: str | None = Field(default=None, description="If given, must be your own id.")
    email: str | None = Field(default=None, description="If given, must be your own email.")
    metadata: CheckoutMetadata = Field(default_factory=CheckoutMetadata)


class CheckoutResponse(BaseModel):
    url: str = Field(description="Send the browser there to pay.")


# -- track-referral -----------------------------------------------------------------
class ReferralRequest(_Body):
    code: str = Field(max_length=64)


class ReferralResponse(BaseModel):
    success: bool = Field(
        description="True for an approved partner's code: the click counts and the "
        "affiliate_code cookie is set for 60 days."
    )


# -- errors -------------------------------------------------------------------------
class FunctionError(BaseModel):
    """GoTrue's error shape (``code``/``message`` for clients sending
    X-Supabase-Api-Version: 2024-01-01, else ``code``/``error_code``/``msg``) plus
    ``error``, the same text, as Supabase functions clients read it."""

    model_config = ConfigDict(extra="allow")

    error: str
