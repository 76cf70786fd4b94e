"""``GET /r/{code}``: a partner's referral link (document 001 §2, §7 track-referral).

A plain HTTP route, so the click is counted and the cookie set by the response itself,
before any page loads: an approved partner's code counts one click and the browser
keeps ``affiliate_code`` for 60 days on path ``/``; any other code changes nothing. A
browser's clicks count once a day, and an address calling too often for one code is
just sent home (``referrals.track_referral``).
Either way the answer is a redirect to ``/`` whose body says 'Redirecting...'.
Mount with ``Starlette(routes=partner_routes())`` through ``rx.App(api_transformer=...)``.
"""

from __future__ import annotations

import html
import logging

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from prettyscore.core import messages
from prettyscore.core.db import run_in_session
from prettyscore.core.rate_limits import RateLimited
from prettyscore.partners import referrals
from prettyscore.partners.programme import AFFILIATE_COOKIE, AFFILIATE_COOKIE_DAYS
from prettyscore.web.browser_key import browser_key_from

log = logging.getLogger(__name__)

REFERRAL_PATH = "/r/{code}"
LANDING_PATH = "/"
COOKIE_MAX_AGE = AFFILIATE_COOKIE_DAYS * 24 * 60 * 60
_REDIRECT_BODY = (
    '<!doctype html><html><head><meta charset="utf-8">'
    f"<title>{html.escape(messages.REDIRECTING)}</title></head>"
    f'<body><p><a href="{LANDING_PATH}">{html.escape(messages.REDIRECTING)}</a></p></body></html>'
)


def partner_routes() -> list[Route]:
    """The referral link routes (with and without the trailing slash), to mount on the
    backend's Starlette app ahead of the frontend."""
    return [
        Route(REFERRAL_PATH, follow_referral_link, methods=["GET"]),
        Route(REFERRAL_PATH + "/", follow_referral_link, methods=["GET"]),
    ]


def _redirect_home() -> Response:
    return HTMLResponse(
        _REDIRECT_BODY,
        status_code=302,
        headers={"Location": LANDING_PATH, "Cache-Control": "no-store"},
    )


async def follow_referral_link(request: Request) -> Response:
    """Count the click and remember the code (approved partners only), then go home.

    Failures are ignored, as the documents say: the visitor is sent home regardless.
    """
    response = _redirect_home()
    if request.method != "GET":
        return response  # a HEAD (a link preview) neither counts nor sets anything
    try:
        code = await run_in_session(
            referrals.track_referral, request.path_params["code"], clicker_of(request)
        )
    except RateLimited:
        return response  # nothing counted, nothing remembered
    except Exception:
        log.exception("Tracking a referral click failed")
        return response
    if code is not None:
        remember_referral(response, code, secure=request.url.scheme == "https")
    return response


def clicker_of(request: Request) -> referrals.Clicker:
    """Who follows the link: the caller's address (the proxy's, unless the server trusts
    its forwarded headers) and the browser's key (``web.browser_key``)."""
    address = request.client.host if request.client else ""
    return referrals.Clicker(address, browser_key_from(request.headers.get("cookie")))


def remember_referral(response: Response, code: str, *, secure: bool) -> None:
    """Keep an approved partner's code in the browser: ``affiliate_code``, 60 days, the
    whole site, sent on top-level navigation, never readable by scripts."""
    response.set_cookie(
        AFFILIATE_COOKIE,
        code,
        max_age=COOKIE_MAX_AGE,
        path="/",
        samesite="lax",
        httponly=True,
        secure=secure,
    )
