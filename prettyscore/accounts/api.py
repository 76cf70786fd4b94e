"""The authentication service, ``/auth/v1``: GoTrue's REST API, so Supabase clients work.

Thin: each route reads its request, counts it against the rate limits
(``accounts.throttle``), calls the accounts services (``service``, ``flows``) in one unit
of work on a worker thread, and answers GoTrue's JSON (``api_shapes``). Multi-factor
routes (``/factors``) live with the MFA service.

What this service does not offer (phone, OAuth, SSO, ID tokens, Web3) answers GoTrue's
error for a disabled provider, never a crash.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Annotated
from urllib.parse import urlencode, urlsplit, urlunsplit

from fastapi import APIRouter, BackgroundTasks, Depends, Query, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict
from sqlmodel import Session

from prettyscore.accounts import flows, service, throttle
from prettyscore.accounts.api_shapes import session_json, user_json
from prettyscore.accounts.bearer import INSUFFICIENT_AAL, bearer_token, require_session
from prettyscore.accounts.models import User
from prettyscore.accounts.service import SIGN_OUT_SCOPES, CurrentUser
from prettyscore.api.bodies import AuthRoute
from prettyscore.api.errors import AUTH_ERRORS
from prettyscore.core import messages
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import (
    DomainError,
    NotFound,
    PermissionDenied,
    ValidationFailed,
)
from prettyscore.core.mail import after_answer, mail_on_commit

# The signed-in user at any assurance level (see ``accounts.bearer``).
SessionUser = Annotated[CurrentUser, Depends(require_session)]

router = APIRouter(prefix="/auth/v1", tags=["auth"], route_class=AuthRoute, responses=AUTH_ERRORS)

SERVICE_NAME = "PrettyScore Auth"
SERVICE_VERSION = "1.0.0"
# Providers GoTrue lists in /settings; only email is enabled here.
EXTERNAL_PROVIDERS = (
    "anonymous_users", "apple", "azure", "bitbucket", "discord", "facebook", "figma",
    "fly", "github", "gitlab", "google", "kakao", "keycloak", "linkedin", "linkedin_oidc",
    "notion", "phone", "saml", "slack", "slack_oidc", "spotify", "twitch", "twitter",
    "workos", "zoom",
)  # fmt: skip
# GoTrue's statuses for the accounts service's errors.
_GOTRUE_STATUS = {
    "invalid_credentials": 400,
    "email_address_invalid": 400,
    "email_required": 400,
    "password_required": 400,
    "refresh_token_not_found": 400,
    "refresh_token_already_used": 400,
    "user_already_exists": 422,
    "weak_password": 422,
}
# The "error" of an error redirect, by status (OAuth 2's names, as GoTrue sends them).
_OAUTH_ERRORS = {
    400: "invalid_request",
    401: "unauthorized_client",
    403: "access_denied",
    429: "temporarily_unavailable",
}
PHONE_TYPES = ("sms", "phone_change")
RESEND_TYPES = ("signup", "email_change", *PHONE_TYPES)


class _Body(BaseModel):
    """A request body: fields a client may send; unknown ones (captcha) are ignored."""

    model_config = ConfigDict(extra="ignore")


class SignUpBody(_Body):
    email: str | None = None
    phone: str | None = None
    password: str | None = None
    data: dict | None = None
    code_challenge: str | None = None
    code_challenge_method: str | None = None


class TokenBody(_Body):
    email: str | None = None
    phone: str | None = None
    password: str | None = None
    refresh_token: str | None = None
    auth_code: str | None = None
    code_verifier: str | None = None


class OtpBody(_Body):
    email: str | None = None
    phone: str | None = None
    create_user: bool | None = None
    data: dict | None = None
    code_challenge: str | None = None
    code_challenge_method: str | None = None


class VerifyBody(_Body):
    type: str | None = None
    email: str | None = None
    phone: str | None = None
    token: str | None = None
    token_hash: str | None = None


class RecoverBody(_Body):
    email: str | None = None
    code_challenge: str | None = None
    code_challenge_method: str | None = None


class ResendBody(_Body):
    type: str | None = None
    email: str | None = None
    phone: str | None = None
    code_challenge: str | None = None
    code_challenge_method: str | None = None


class UserUpdateBody(_Body):
    email: str | None = None
    phone: str | None = None
    password: str | None = None
    current_password: str | None = None
    nonce: str | None = None
    data: dict | None = None
    code_challenge: str | None = None
    code_challenge_method: str | None = None


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------
def _client(request: Request) -> str:
    """The caller's address (the proxy's, unless the server trusts its forwarded headers)."""
    return request.client.host if request.client else "unknown"


def _bad_request(message: str, code: str = "validation_failed") -> ValidationFailed:
    return ValidationFailed(message, code=code, status=400)


def _phone_disabled(message: str = messages.PHONE_LOGINS_DISABLED) -> ValidationFailed:
    return _bad_request(message, code="phone_provider_disabled")


@contextlib.contextmanager
def _gotrue_errors(*, credentials_rule: bool = False):
    """Give the accounts service's errors GoTrue's statuses (and weak_password's reasons).

    ``credentials_rule``: a missing email or password is the documents' one sentence.
    """
    try:
        yield
    except DomainError as error:
        if credentials_rule and error.code in ("email_required", "password_required"):
            raise _bad_request(messages.MUST_PROVIDE_EMAIL_OR_PHONE) from error
        error.status = _GOTRUE_STATUS.get(error.code, error.status)
        if error.code == "weak_password":
            error.details = {"weak_password": {"reasons": ["length"]}}
        raise


def _normalized_email(email: str | None) -> str:
    with _gotrue_errors():
        return service.normalize_email(email)


def _user_body(db: Session, user_id) -> dict:
    """GoTrue's user, with the email change waiting for confirmation, if any."""
    body = user_json(db, db.get(User, user_id))
    pending = flows.pending_email_change(db, user_id)
    if pending is not None:
        body["new_email"], body["email_change_sent_at"] = pending[0], pending[1].isoformat()
    return body


def _redirect_with(target: str, *, query: dict | None = None, fragment: dict | None = None):
    """A 303 to ``target`` with ``query`` merged into its query and ``fragment`` set."""
    parts = urlsplit(target)
    merged_query = "&".join(part for part in (parts.query, urlencode(query or {})) if part)
    location = urlunsplit(
        (parts.scheme, parts.netloc, parts.path, merged_query, urlencode(fragment or {}))
    )
    return RedirectResponse(location, status_code=303)


# ---------------------------------------------------------------------------
# Service description
# ---------------------------------------------------------------------------
@router.get("/health", summary="Whether the service is up")
async def health() -> dict:
    return {
        "version": SERVICE_VERSION,
        "name": SERVICE_NAME,
        "description": "PrettyScore's authentication service, compatible with GoTrue",
    }


@router.get("/settings", summary="Which sign-in methods are enabled")
async def settings() -> dict:
    external = dict.fromkeys(EXTERNAL_PROVIDERS, False)
    external["email"] = True
    return {
        "external": external,
        "disable_signup": False,
        "mailer_autoconfirm": True,
        "phone_autoconfirm": False,
        "sms_provider": "",
        "saml_enabled": False,
    }


@router.get("/.well-known/jwks.json", summary="The public keys that verify access tokens")
async def jwks() -> dict:
    from prettyscore.accounts import keys

    return await run_in_session(keys.public_jwks)


# ---------------------------------------------------------------------------
# Sign-up and tokens
# ---------------------------------------------------------------------------
@router.post("/signup", summary="Create an account (confirmed at once) and sign in")
async def sign_up(request: Request, body: SignUpBody | None = None) -> dict:
    body = body or SignUpBody()
    email, phone = (body.email or "").strip(), (body.phone or "").strip()
    if not body.password or not (email or phone):
        raise _bad_request(messages.MUST_PROVIDE_EMAIL_OR_PHONE)
    if not email:
        raise _phone_disabled(messages.PHONE_SIGNUPS_DISABLED)
    flows.parse_pkce(body.code_challenge, body.code_challenge_method)  # checked, not needed
    metadata = flows.check_metadata(body.data)
    cookies = request.headers.get("cookie")
    return await run_in_session(
        _sign_up, email, body.password, metadata, cookies, _client(request),
        request.headers.get("user-agent"),
    )  # fmt: skip


def _sign_up(db, email, password, metadata, cookies, client, user_agent) -> dict:
    with _gotrue_errors(credentials_rule=True):
        tokens = throttle.sign_up(
            db,
            email,
            password,
            client,
            user_agent=user_agent,
            cookies=cookies,
            user_metadata=metadata,
        )
    return session_json(db, tokens)


@router.post("/token", summary="Sign in: password, refresh_token or pkce grant")
async def token(request: Request, grant_type: str | None = None, body: TokenBody | None = None):
    body = body or TokenBody()
    user_agent, client = request.headers.get("user-agent"), _client(request)
    if grant_type == "password":
        if (body.phone or "").strip() and not (body.email or "").strip():
            raise _phone_disabled()
        if not (body.email or "").strip() or not body.password:
            raise _bad_request(messages.MUST_PROVIDE_EMAIL_OR_PHONE)
        return await run_in_session(_password_grant, body.email, body.password, client, user_agent)
    if grant_type == "refresh_token":
        return await run_in_session(_refresh_grant, body.refresh_token)
    if grant_type == "pkce":
        return await run_in_session(_pkce_grant, body.auth_code, body.code_verifier, user_agent)
    if grant_type == "id_token":
        raise _bad_request(messages.PROVIDER_NOT_ENABLED, code="provider_disabled")
    if grant_type == "web3":
        raise _bad_request(messages.WEB3_PROVIDER_DISABLED, code="web3_provider_disabled")
    raise _bad_request(messages.UNSUPPORTED_GRANT_TYPE, code="unsupported_grant_type")


def _password_grant(db, email, password, client, user_agent) -> dict:
    with _gotrue_errors(credentials_rule=True):
        tokens = throttle.password_sign_in(db, email, password, client, user_agent=user_agent)
    return session_json(db, tokens)


def _refresh_grant(db, refresh_token) -> dict:
    with _gotrue_errors():
        return session_json(db, service.refresh_session(db, refresh_token))


def _pkce_grant(db, auth_code, code_verifier, user_agent) -> dict:
    tokens = flows.exchange_pkce(db, auth_code, code_verifier, user_agent=user_agent)
    return session_json(db, tokens)


@router.post("/logout", status_code=204, summary="Sign out: scope local, others or global")
async def logout(request: Request, user: SessionUser, scope: str = "global") -> Response:
    if scope not in SIGN_OUT_SCOPES:
        raise _bad_request(f"{messages.LOGOUT_SCOPE_UNSUPPORTED} {scope!r}")
    await run_in_session(service.sign_out, bearer_token(request), scope)
    return Response(status_code=204)


# ---------------------------------------------------------------------------
# The user
# ---------------------------------------------------------------------------
@router.get("/user", summary="The signed-in user")
async def get_user(user: SessionUser) -> dict:
    return await run_in_session(_user_body, user.id)


@router.put(
    "/user",
    summary="Update metadata, or the password or email (with current_password or nonce)",
)
async def update_user(
    request: Request,
    user: SessionUser,
    body: UserUpdateBody | None = None,
    redirect_to: str | None = None,
) -> dict:
    body = body or UserUpdateBody()
    if (body.phone or "").strip():
        raise _phone_disabled()
    pkce = flows.parse_pkce(body.code_challenge, body.code_challenge_method)
    new_email = _normalized_email(body.email) if body.email is not None else None
    if new_email is not None or body.password is not None:
        await _require_full_session(user)
    client = _client(request)
    try:
        return await run_in_session(_update_user, user, body, new_email, redirect_to, pkce, client)
    except ValidationFailed as error:
        if error.code == "reauthentication_not_valid":
            await run_in_session(_count_wrong_code, user.email, client)
        raise


async def _require_full_session(user: CurrentUser) -> None:
    """Credentials change only from an aal2 session when the member has a second factor,
    or a stolen password alone would take the account over."""
    if user.aal != "aal2" and await run_in_session(service.has_verified_factor, user.id):
        raise PermissionDenied(INSUFFICIENT_AAL, code="insufficient_aal")


def _update_user(db, user: CurrentUser, body, new_email, redirect_to, pkce, client) -> dict:
    if new_email is not None and new_email != user.email:
        throttle.before_mail(new_email, client)
    with _gotrue_errors():
        throttle.update_user(
            db, user, mail_on_commit(db), client, data=body.data, password=body.password,
            current_password=body.current_password, nonce=body.nonce, email=new_email,
            redirect_to=redirect_to, pkce=pkce,
        )  # fmt: skip
    return _user_body(db, user.id)


def _count_wrong_code(db, address: str, client: str) -> None:
    """A wrong code: past the budget, void the codes sent to ``address``. Runs in a unit of
    work of its own, after the failed request's has been rolled back."""
    if throttle.after_wrong_code(address, client):
        flows.void_codes_sent_to(db, address)


# ---------------------------------------------------------------------------
# Mailed codes and links
# ---------------------------------------------------------------------------
@router.post("/recover", summary="Mail a password recovery code and link (answers {} always)")
async def recover(
    request: Request,
    after: BackgroundTasks,
    body: RecoverBody | None = None,
    redirect_to: str | None = None,
):
    body = body or RecoverBody()
    if not (body.email or "").strip():
        raise _bad_request(messages.EMAIL_REQUIRED)
    address = _normalized_email(body.email)
    pkce = flows.parse_pkce(body.code_challenge, body.code_challenge_method)
    after.add_task(await run_in_session(_recover, address, redirect_to, pkce, _client(request)))
    return {}


def _recover(db, address, redirect_to, pkce, client) -> Callable[[], None]:
    """Count the request; the code and link are written and mailed once the answer has
    gone out (``after_answer``), so a known address takes no longer to answer than an
    unknown one. What starts that work."""
    throttle.before_mail(address, client)
    return after_answer(flows.request_recovery, address, redirect_to=redirect_to, pkce=pkce)


@router.post("/otp", summary="Mail a sign-in code and magic link")
async def otp(request: Request, body: OtpBody | None = None, redirect_to: str | None = None):
    body = body or OtpBody()
    if not (body.email or "").strip():
        if (body.phone or "").strip():
            raise _phone_disabled()
        raise _bad_request(messages.OTP_NEEDS_EMAIL_OR_PHONE)
    address = _normalized_email(body.email)
    pkce = flows.parse_pkce(body.code_challenge, body.code_challenge_method)
    options = {
        "create_user": body.create_user is not False,
        "user_metadata": flows.check_metadata(body.data),
        "redirect_to": redirect_to,
        "pkce": pkce,
    }
    cookies = request.headers.get("cookie")
    await run_in_session(_otp, address, options, cookies, _client(request))
    return {}


def _otp(db, address, options, cookies, client) -> None:
    throttle.before_mail(address, client)
    created = flows.send_magic_link(db, address, mail_on_commit(db), **options)
    if created is not None:
        service.signed_up(db, created, cookies)


@router.post("/resend", summary="Mail a pending confirmation again (answers {} always)")
async def resend(
    request: Request,
    after: BackgroundTasks,
    body: ResendBody | None = None,
    redirect_to: str | None = None,
):
    body = body or ResendBody()
    if body.type not in RESEND_TYPES:
        raise _bad_request(messages.RESEND_NEEDS_TYPE)
    if body.type in PHONE_TYPES or ((body.phone or "").strip() and not body.email):
        raise _phone_disabled()
    if not (body.email or "").strip():
        raise _bad_request(messages.RESEND_NEEDS_EMAIL_OR_PHONE)
    address = _normalized_email(body.email)
    pkce = flows.parse_pkce(body.code_challenge, body.code_challenge_method)
    client = _client(request)
    after.add_task(await run_in_session(_resend, body.type, address, redirect_to, pkce, client))
    return {}


def _resend(db, resend_type, address, redirect_to, pkce, client) -> Callable[[], None]:
    throttle.before_mail(address, client)
    return after_answer(flows.resend, resend_type, address, redirect_to=redirect_to, pkce=pkce)


@router.get("/reauthenticate", summary="Mail a nonce for a password change")
async def reauthenticate(request: Request, user: SessionUser):
    await run_in_session(_reauthenticate, user, _client(request))
    return {}


def _reauthenticate(db, user: CurrentUser, client) -> None:
    throttle.before_mail(user.email, client)
    flows.request_reauthentication(db, user.id, mail_on_commit(db))


def _verify_type(verify_type: str | None) -> str:
    if not verify_type:
        raise _bad_request(messages.VERIFY_NEEDS_TYPE)
    if verify_type in PHONE_TYPES:
        raise _phone_disabled()
    if verify_type not in flows.ACCEPTED_TOKEN_TYPES:
        raise _bad_request(messages.VERIFY_UNSUPPORTED_TYPE)
    return verify_type


@router.post("/verify", summary="Spend a mailed code (email, token) or link (token_hash)")
async def verify(request: Request, body: VerifyBody | None = None) -> dict:
    body = body or VerifyBody()
    verify_type = _verify_type(body.type)
    client, user_agent = _client(request), request.headers.get("user-agent")
    if body.token_hash:
        return await run_in_session(
            _verify_link_post, verify_type, body.token_hash, client, user_agent
        )
    if not body.token:
        raise _bad_request(messages.VERIFY_NEEDS_TOKEN)
    if not (body.email or "").strip():
        if (body.phone or "").strip():
            raise _phone_disabled()
        raise _bad_request(messages.OTP_NEEDS_EMAIL_OR_PHONE)
    address = _normalized_email(body.email)
    try:
        return await run_in_session(
            _verify_code, verify_type, address, body.token, client, user_agent
        )
    except flows.OtpInvalid:
        await run_in_session(_count_wrong_code, address, client)
        raise


def _verify_code(db, verify_type, address, code, client, user_agent) -> dict:
    throttle.before_guess(client)
    tokens = flows.verify_code(db, verify_type, address, code, user_agent=user_agent)
    return session_json(db, tokens)


def _verify_link_post(db, verify_type, secret, client, user_agent) -> dict:
    outcome = _open_link(db, verify_type, secret, client, user_agent, allow_pkce=False)
    return session_json(db, outcome.session)


def _open_link(db, verify_type, secret, client, user_agent, *, allow_pkce):
    throttle.before_guess(client)
    try:
        return flows.verify_link(
            db, verify_type, secret, user_agent=user_agent, allow_pkce=allow_pkce
        )
    except flows.OtpInvalid:
        throttle.after_wrong_guess(client)
        raise


@router.get(
    "/verify",
    summary="Open a mailed link: 303 to redirect_to with the session (or ?code=) or the error",
)
async def verify_link(
    request: Request,
    token: str | None = None,
    link_type: Annotated[str | None, Query(alias="type")] = None,
    redirect_to: str | None = None,
) -> Response:
    verify_type = _verify_type(link_type)
    if not token:
        raise _bad_request(messages.VERIFY_NEEDS_TOKEN)
    target = flows.safe_redirect(redirect_to)
    try:
        outcome = await run_in_session(
            _open_link, verify_type, token, _client(request),
            request.headers.get("user-agent"), allow_pkce=True,
        )  # fmt: skip
    except DomainError as error:
        return _error_redirect(target, error, pkce=token.startswith(flows.PKCE_PREFIX))
    if outcome.auth_code is not None:
        return _redirect_with(target, query={"code": outcome.auth_code})
    session = outcome.session
    fragment = {
        "access_token": session.access_token,
        "expires_at": session.expires_at,
        "expires_in": session.expires_in,
        "refresh_token": session.refresh_token,
        "token_type": session.token_type,
        "type": verify_type,
    }
    return _redirect_with(target, fragment=fragment)


def _error_redirect(target: str, error: DomainError, *, pkce: bool) -> Response:
    """GoTrue's error redirect: in the fragment, and in the query too for PKCE clients."""
    details = {
        "error": _OAUTH_ERRORS.get(error.status, "invalid_request"),
        "error_code": error.code,
        "error_description": error.message,
    }
    return _redirect_with(target, query=details if pkce else None, fragment=details)


# ---------------------------------------------------------------------------
# Not offered here: OAuth, SSO, identity linking
# ---------------------------------------------------------------------------
@router.get("/authorize", summary="OAuth sign-in (no OAuth provider is enabled)")
async def authorize(provider: str | None = None) -> JSONResponse:
    raise _bad_request(messages.PROVIDER_NOT_ENABLED, code="provider_disabled")


@router.post("/sso", summary="Single sign-on (no SSO provider is configured)")
async def sso() -> JSONResponse:
    raise _bad_request(messages.SSO_PROVIDER_NOT_FOUND, code="sso_provider_not_found")


@router.get("/user/identities/authorize", summary="Link an OAuth identity (none is enabled)")
async def link_identity(user: SessionUser) -> JSONResponse:
    raise _bad_request(messages.PROVIDER_NOT_ENABLED, code="provider_disabled")


@router.delete("/user/identities/{identity_id}", summary="Unlink an identity")
async def unlink_identity(identity_id: str, user: SessionUser) -> JSONResponse:
    """The member's one identity is their email; it cannot go."""
    if identity_id == str(user.id):
        raise ValidationFailed(
            messages.SINGLE_IDENTITY_NOT_DELETABLE, code="single_identity_not_deletable"
        )
    raise NotFound(messages.IDENTITY_NOT_FOUND, code="identity_not_found")
