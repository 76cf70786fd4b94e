"""GoTrue's factor endpoints: enrol, challenge, verify and remove a second factor.

Thin: who is asking (any assurance level: proving the second factor is what a
half-signed-in session is for), then ``mfa.py``. Bodies and answers have GoTrue's shape,
so ``supabase.auth.mfa.*`` works against these routes unchanged.
"""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel

from prettyscore.accounts import api_shapes, mfa
from prettyscore.accounts.bearer import require_session
from prettyscore.accounts.service import CurrentUser
from prettyscore.api.bodies import AuthRoute
from prettyscore.api.errors import AUTH_ERRORS
from prettyscore.core.db import run_in_session

router = APIRouter(prefix="/auth/v1", tags=["mfa"], route_class=AuthRoute, responses=AUTH_ERRORS)
# Any assurance level: a session opened by the password alone proves its factor here.
SignedIn = Annotated[CurrentUser, Depends(require_session)]


class EnrollBody(BaseModel):
    factor_type: str | None = None
    friendly_name: str | None = None
    issuer: str | None = None
    phone: str | None = None


class ChallengeBody(BaseModel):
    channel: str | None = None


class VerifyBody(BaseModel):
    challenge_id: uuid.UUID
    code: str = ""


def _client_address(request: Request) -> str | None:
    return request.client.host if request.client else None


@router.post("/factors", summary="Enrol a second factor (TOTP)")
async def enroll_factor(body: EnrollBody, user: SignedIn) -> dict:
    """A new unverified factor: its id, and the secret as text, otpauth URI and SVG QR
    code (prefix ``data:image/svg+xml;utf-8,`` to show it). Prove it with a challenge."""
    enrolment = await run_in_session(
        mfa.enroll, user, body.factor_type, body.friendly_name, body.issuer
    )
    return {
        "id": str(enrolment.factor_id),
        "type": mfa.TOTP,
        "friendly_name": enrolment.friendly_name,
        "totp": {"qr_code": enrolment.qr_svg, "secret": enrolment.secret, "uri": enrolment.uri},
    }


@router.post("/factors/{factor_id}/challenge", summary="Challenge a factor")
async def challenge_factor(
    factor_id: str,
    request: Request,
    user: SignedIn,
    body: ChallengeBody | None = None,
) -> dict:
    """A challenge valid for five minutes, to be verified from the same address."""
    record = await run_in_session(mfa.challenge, user, factor_id, _client_address(request))
    return {"id": str(record.id), "type": record.factor_type, "expires_at": record.expires_at}


@router.post("/factors/{factor_id}/verify", summary="Verify a factor with a code")
async def verify_factor(
    factor_id: str,
    body: VerifyBody,
    request: Request,
    user: SignedIn,
) -> dict:
    """Check the code; the session becomes aal2 and a new token pair is returned."""

    def verify_and_answer(db) -> dict:
        tokens = mfa.verify(
            db, user, factor_id, body.challenge_id, body.code, _client_address(request)
        )
        return api_shapes.session_json(db, tokens)

    return await run_in_session(verify_and_answer)


@router.delete("/factors/{factor_id}", summary="Remove a factor")
async def unenroll_factor(factor_id: str, user: SignedIn) -> dict:
    """Remove a factor; a verified one only from an aal2 session."""
    removed = await run_in_session(mfa.unenroll, user, factor_id)
    return {"id": str(removed)}
