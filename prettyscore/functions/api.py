"""``POST /functions/v1/{name}``: the documents' server functions, invoked by name.

Who calls is known only from the bearer access token (``require_user``: a member with a
verified second factor must have proved it); track-referral alone is open to visitors.
Each route reads its body, calls the service the page calls for the same action, and
shapes the answer as the documents do. Slow work (an edit, a data URL's decoding, a
render) runs on worker threads, never on the event loop.

A photo sent inline, and each edit made, are temporary files of the member
(``photos.media_files``): kept for a day, unless a generation starts from one.

Status codes: 400 bad input, 401 no or bad token, 402 a detailed analysis not paid for,
403 a limit or permission (the free edits, the free videos, a gate, someone else's
checkout; the documents' dashboard reads 402 as 'add credits', so limits are 403), 404
someone else's (or no) video task or an unknown function, 413 a body over the limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response, Security

from prettyscore.accounts.bearer import bearer_scheme, require_user
from prettyscore.accounts.service import CurrentUser
from prettyscore.billing import service as billing
from prettyscore.billing.checkout import CheckoutFailed
from prettyscore.core import messages
from prettyscore.core.db import run_in_session, session_scope
from prettyscore.core.errors import DomainError, NotFound
from prettyscore.core.media import MediaOwner, get_media_store, media_url
from prettyscore.core.rate_limits import RateLimited
from prettyscore.core.workers import edit_work, photo_work
from prettyscore.editing import service as editing
from prettyscore.functions import service
from prettyscore.functions.routing import FunctionRoute
from prettyscore.functions.shapes import (
    CheckoutRequest,
    CheckoutResponse,
    EditPhotoRequest,
    EditPhotoResponse,
    FeatureAccessResponse,
    FeatureRequest,
    FeatureUsageResponse,
    FunctionError,
    GenerateVideoRequest,
    GenerateVideoResponse,
    PersonalityRequest,
    PersonalityResponse,
    ReferralRequest,
    ReferralResponse,
    SubscriptionResponse,
    VideoStatusRequest,
    VideoStatusResponse,
)
from prettyscore.gates import service as gates
from prettyscore.partners import referrals
from prettyscore.partners.api import clicker_of, remember_referral
from prettyscore.photos import media_files
from prettyscore.video import jobs as video_jobs
from prettyscore.video import service as video
from prettyscore.video.models import VideoStatus

log = logging.getLogger(__name__)

Member = Annotated[CurrentUser, Depends(require_user)]
#: Shows the bearer scheme on a route in the OpenAPI description (``Member`` checks it).
SIGNED_IN = [Security(bearer_scheme)]


def _error(description: str) -> dict:
    return {"model": FunctionError, "description": description}


router = APIRouter(
    prefix="/functions/v1",
    tags=["functions"],
    route_class=FunctionRoute,
    responses={
        400: _error("Invalid input"),
        401: _error("No bearer token, or an invalid or ended session"),
        403: _error("A limit, a permission, or aal2 required"),
        413: _error("Body over the limit (a 10 MB photo as base64)"),
        # Stands for every other client error, and keeps FastAPI from listing a 422 that
        # these routes never answer (a bad body is a 400 here).
        "4XX": _error("Other client errors, in the same shape"),
    },
)


@contextlib.contextmanager
def _unexpected_as(text: str, code: str):
    """Turn an unexpected failure into the documents' text (logged with its trace)."""
    try:
        yield
    except DomainError:
        raise
    except Exception as error:
        log.exception("Server function failed: %s", code)
        raise DomainError(text, code=code, status=500) from error


def _origins(request: Request) -> set[str]:
    return service.own_origins(str(request.base_url))


def _temporary_files(kind: str) -> media_files.TemporaryFiles:
    """The media store, noting what it writes for the member as their temporary files."""
    return media_files.TemporaryFiles(get_media_store(), session_scope, kind)


async def _source(request: Request, user: CurrentUser, image_url: str) -> service.SourceImage:
    files = _temporary_files(media_files.API_UPLOAD)
    return await photo_work(service.source_image, files, user.id, image_url, _origins(request))


def _discard(source: service.SourceImage) -> None:
    """Remove a photo this call stored from a data URL (nothing else refers to it)."""
    if source.staged:
        get_media_store().delete(source.key)


# ---------------------------------------------------------------------------
# Photos and videos
# ---------------------------------------------------------------------------
@router.post("/edit-photo", dependencies=SIGNED_IN, response_model=EditPhotoResponse)
async def edit_photo(body: EditPhotoRequest, request: Request, user: Member):
    """Edit one of your photos. Free members have 5 edits in all (counted only when an
    edit succeeds; the same allowance as the pages), Premium is unlimited."""
    source = await _source(request, user, body.imageUrl)
    try:
        with _unexpected_as(messages.FAILED_TO_EDIT_PHOTO, "edit_failed"):
            outcome = await edit_work(
                editing.edit_photo,
                session_scope,
                _temporary_files(media_files.API_EDIT),
                owner_key=editing.allowance_key(user.id, None),
                image_key=source.key,
                prompt=body.prompt,
                media_owner=MediaOwner.member(user.id),
            )
    finally:
        _discard(source)
    remaining = None if outcome.remaining == editing.UNLIMITED else outcome.remaining
    return EditPhotoResponse(
        editedImageUrl=service.absolute_url(media_url(outcome.image_key)),
        editsRemaining=remaining,
    )


@router.post("/generate-video", dependencies=SIGNED_IN, response_model=GenerateVideoResponse)
async def generate_video(body: GenerateVideoRequest, request: Request, user: Member):
    """Start animating one of your photos; poll check-video-status with the taskId.
    Free members may start 2 generations in all, Premium unlimited."""
    source = await _source(request, user, body.imageUrl)
    try:
        with _unexpected_as(messages.FAILED_TO_GENERATE_VIDEO, "video_failed"):
            job = await run_in_session(
                video.start_generation,
                user.id,
                source_image_url=media_url(source.key),
                prompt=(body.prompt or "").strip() or messages.VIDEO_DEFAULT_PROMPT,
                duration_seconds=body.duration,
            )
    except BaseException:
        _discard(source)
        raise
    # The render is a job (video.jobs), as the page starts it: the call returns now.
    await asyncio.to_thread(video_jobs.start_render, job.id)
    return GenerateVideoResponse(taskId=str(job.id))


def _video_status(db, user_id, task_id: str) -> VideoStatusResponse:
    job = video.get_generation(db, user_id, task_id)
    done = job.status == VideoStatus.COMPLETED
    return VideoStatusResponse(
        status=job.status, video_url=service.absolute_url(job.video_url) if done else None
    )


@router.post(
    "/check-video-status",
    dependencies=SIGNED_IN,
    response_model=VideoStatusResponse,
    responses={404: _error("No such task of yours")},
)
async def check_video_status(body: VideoStatusRequest, user: Member):
    """Where a generation of yours is: processing, completed (with video_url) or failed."""
    with _unexpected_as(messages.FAILED_TO_CHECK_VIDEO_STATUS, "status_failed"):
        return await run_in_session(_video_status, user.id, body.taskId)


# ---------------------------------------------------------------------------
# Premium and the feature gates
# ---------------------------------------------------------------------------
@router.post("/check-subscription", dependencies=SIGNED_IN, response_model=SubscriptionResponse)
async def check_subscription(user: Member):
    """Whether you have Premium (no body: the bearer token says who you are)."""
    summary = await run_in_session(billing.subscription_summary, user.id)
    end = summary.renews_at if summary.is_premium else None
    return SubscriptionResponse(
        subscribed=summary.is_premium, subscription_end=end.isoformat() if end else None
    )


def _access(access: gates.FeatureAccess) -> dict:
    return {
        "hasAccess": access.has_access,
        "reason": access.reason,
        "trialRemaining": access.trial_remaining,
    }


@router.post("/check-feature-access", dependencies=SIGNED_IN, response_model=FeatureAccessResponse)
async def check_feature_access(body: FeatureRequest, user: Member):
    """Whether you may use a gated feature now (Premium, or an activated free trial)."""
    with _unexpected_as(messages.FAILED_TO_CHECK_FEATURE_ACCESS, "access_check_failed"):
        access = await run_in_session(gates.check_feature_access, user.id, body.featureName)
    return FeatureAccessResponse(**_access(access))


@router.post("/record-feature-usage", dependencies=SIGNED_IN, response_model=FeatureUsageResponse)
async def record_feature_usage(body: FeatureRequest, user: Member):
    """With access: record one use (it spends an activated trial). Locked with a trial
    left: activate it (trialActivated true; check-feature-access then grants access).
    Otherwise 403 with the gate's reason as the code."""
    recorded = await run_in_session(service.record_feature_usage, user.id, body.featureName)
    return FeatureUsageResponse(
        success=True, trialActivated=recorded.trial_activated, **_access(recorded.access)
    )


# ---------------------------------------------------------------------------
# The personality test
# ---------------------------------------------------------------------------
@router.post(
    "/personality-analysis",
    dependencies=SIGNED_IN,
    response_model=PersonalityResponse,
    responses={402: _error("The detailed analysis of these answers is not paid for")},
)
async def personality_analysis(body: PersonalityRequest, user: Member):
    """basic: the test's result, as Finish on the page gives it (behind the
    personality_test gate; the result is saved). detailed: the trait-by-trait analysis
    of these answers, once bought (create-checkout, type personality_analysis)."""
    with _unexpected_as(messages.FAILED_TO_ANALYZE_PERSONALITY, "analysis_failed"):
        view = await run_in_session(
            service.personality_analysis, user.id, body.answers, body.quizType
        )
    return PersonalityResponse(
        score=view.score,
        personalityType=view.personality_type,
        analysis="\n\n".join(view.paragraphs),
        resultId=view.id,
    )


# ---------------------------------------------------------------------------
# Payments
# ---------------------------------------------------------------------------
@router.post(
    "/create-checkout",
    dependencies=SIGNED_IN,
    response_model=CheckoutResponse,
    responses={404: _error("No such unpaid request or result of yours")},
)
async def create_checkout(body: CheckoutRequest, user: Member):
    """Open a checkout for yourself: Premium (subscription), a contact request's fee, or
    a detailed personality analysis. The amount is always the server's: priceId,
    fee_amount, rank and plan_name are ignored, and userId/email may only be your own."""
    service.check_payer(user, body.userId, body.email)
    metadata = body.metadata.model_dump()
    try:
        with _unexpected_as(messages.FAILED_TO_START_CHECKOUT, "checkout_failed"):
            url = await run_in_session(service.start_checkout, user, body.type, metadata)
    except CheckoutFailed as error:  # the payment provider, not the caller
        raise DomainError(error.message, code="checkout_failed", status=502) from error
    return CheckoutResponse(url=url)


# ---------------------------------------------------------------------------
# Partners (open to visitors)
# ---------------------------------------------------------------------------
@router.post("/track-referral", response_model=ReferralResponse)
async def track_referral(body: ReferralRequest, request: Request, response: Response):
    """Count a click on a partner's link. For an approved partner's code the answer sets
    the affiliate_code cookie (60 days, path /, SameSite Lax, HttpOnly), exactly as
    /r/{code} does; any other code gives success false and changes nothing. A browser's
    calls count one click a day; an address calling too often for one code gets 429."""
    try:
        code = await run_in_session(referrals.track_referral, body.code, clicker_of(request))
    except RateLimited:
        raise
    except Exception:
        log.exception("Tracking a referral failed")
        code = None
    if code is not None:
        remember_referral(response, code, secure=request.url.scheme == "https")
    return ReferralResponse(success=code is not None)


@router.post("/{name}", include_in_schema=False)
async def unknown_function(name: str):
    """Any other name (registered last, so it never hides a function)."""
    raise NotFound(messages.FUNCTION_NOT_FOUND)
