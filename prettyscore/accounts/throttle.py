"""How often the authentication service lets one client, or one account, try again.

The limits (settings, each overridable by env):

* failed password sign-ins: per email and client address together
  (``RATE_LIMIT_SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS``: 5 per minute, 10 per 15 minutes,
  20 per hour, so the waits grow with the failures) and per client address
  (``..._PER_ADDRESS``, 30 per 15 minutes). Wrong mailed codes and links count against the
  same per-address budget. Once a budget is used up, even the right password is refused
  from that address until the window moves on, or guessing could go on; nobody can lock
  an owner out of their account from another address;
* a wrong current password sent to change the email or password (``update_user``)
  counts as a failed sign-in of that email from that address;
* sign-ups per client address (``RATE_LIMIT_SIGN_UPS_PER_ADDRESS``, 30 per hour);
* mails (recovery, sign-in code, resend, reauthentication, email change) per client
  address (``RATE_LIMIT_MAILS_PER_ADDRESS``, 30 per hour) and per recipient
  (``RATE_LIMIT_MAILS_PER_EMAIL``, 1 per minute: GoTrue's ``over_email_send_rate_limit``);
* wrong guesses of a mailed code: after ``OTP_MAX_FAILED_ATTEMPTS`` (5) wrong codes for an
  email, every code outstanding for it is void, and the member asks for a new mail.

Every check runs before the account is looked up, so a limited unknown email and a
limited known one get the same answer.

The /auth pages and the API call these same functions (``password_sign_in``, ``sign_up``,
``before_mail``, ...) with the same budgets: a wrong password typed on the page and one
sent to the API count together for that email and that address.
"""

from __future__ import annotations

from prettyscore.accounts import flows, service
from prettyscore.core import messages
from prettyscore.core.errors import NotAuthenticated
from prettyscore.core.rate_limits import get_rate_limiter
from prettyscore.core.settings import get_settings


def _email_key(email: str | None) -> str:
    return (email or "").strip().lower()


def _pair_tiers() -> list[str]:
    """The per email-and-address limits, longest window first (it decides the wait)."""
    tiers = get_settings().rate_limit_sign_in_failures_per_email_and_address.split(";")
    return [tier.strip() for tier in reversed(tiers) if tier.strip()]


def before_password_sign_in(email: str | None, client: str) -> None:
    """Refuse a sign-in while a failure budget of this email from this address, or of
    this address, is used up (counts nothing)."""
    limiter = get_rate_limiter()
    for tier in _pair_tiers():
        limiter.enforce(
            tier,
            "sign-in-failures-email-address",
            _email_key(email),
            client,
            count=False,
            message=messages.OVER_REQUEST_RATE_LIMIT,
        )
    before_guess(client)


def after_failed_sign_in(email: str | None, client: str) -> None:
    limiter = get_rate_limiter()
    for tier in _pair_tiers():
        limiter.hit(tier, "sign-in-failures-email-address", _email_key(email), client)
    after_wrong_guess(client)


def password_sign_in(db, email: str | None, password: str | None, client: str, **options):
    """``service.sign_in`` within both failure budgets: refused while one is used up, and a
    wrong email/password pair counted against both (``options`` go to the service)."""
    before_password_sign_in(email, client)
    try:
        return service.sign_in(db, email, password, **options)
    except NotAuthenticated:
        after_failed_sign_in(email, client)
        raise


def update_user(db, current: service.CurrentUser, mailer, client: str, **changes):
    """``flows.update_user`` within the same failure budgets as a sign-in: a current
    password is checked only while this email and address may still guess, and a wrong
    one counts as a failed sign-in, or a stolen access token would guess freely
    (``changes`` go to ``flows.update_user``)."""
    if changes.get("current_password") is not None:
        before_password_sign_in(current.email, client)
    try:
        return flows.update_user(db, current, mailer, **changes)
    except flows.WrongCurrentPassword:
        after_failed_sign_in(current.email, client)
        raise


def before_guess(client: str) -> None:
    """Refuse a password, code or link check from an address out of failure budget."""
    get_rate_limiter().enforce(
        get_settings().rate_limit_sign_in_failures_per_address,
        "sign-in-failures-address",
        client,
        count=False,
        message=messages.OVER_REQUEST_RATE_LIMIT,
    )


def after_wrong_guess(client: str) -> None:
    limit = get_settings().rate_limit_sign_in_failures_per_address
    get_rate_limiter().hit(limit, "sign-in-failures-address", client)


def after_wrong_code(email: str, client: str) -> bool:
    """Count a wrong code for ``email``; True when its budget is now spent, so the caller
    voids the codes sent to it (the count starts again for the next mail)."""
    after_wrong_guess(client)
    settings, limiter = get_settings(), get_rate_limiter()
    limit = f"{settings.otp_max_failed_attempts} per {settings.otp_ttl_seconds} seconds"
    key = _email_key(email)
    limiter.hit(limit, "code-failures-email", key)
    if limiter.remaining(limit, "code-failures-email", key) > 0:
        return False
    limiter.clear(limit, "code-failures-email", key)
    return True


def before_sign_up(client: str) -> None:
    """Count a sign-up attempt from this address, refusing it past the limit."""
    get_rate_limiter().enforce(
        get_settings().rate_limit_sign_ups_per_address,
        "sign-ups-address",
        client,
        message=messages.OVER_REQUEST_RATE_LIMIT,
    )


def sign_up(db, email: str | None, password: str | None, client: str, **options):
    """A sign-up (with the referral its cookie names) counted against the address's
    budget; a request missing its email or password is refused by the service without
    being counted (``options`` go to ``service.sign_up``)."""
    if (email or "").strip() and password:
        before_sign_up(client)
    return service.sign_up(db, email, password, **options)


def before_mail(email: str | None, client: str) -> None:
    """Count a mail to ``email`` requested from this address, refusing it past either limit."""
    settings, limiter = get_settings(), get_rate_limiter()
    limiter.enforce(
        settings.rate_limit_mails_per_address,
        "mails-address",
        client,
        message=messages.OVER_REQUEST_RATE_LIMIT,
    )
    limiter.enforce(
        settings.rate_limit_mails_per_email,
        "mails-email",
        _email_key(email),
        code="over_email_send_rate_limit",
        message=messages.OVER_EMAIL_SEND_RATE_LIMIT,
    )
