"""Every setting PrettyScore reads, typed, from the environment.

One place so that a deployment is described by its environment alone and nothing else in
the code calls ``os.environ``. Defaults give a working local app: SQLite in ``data/``,
the in-memory Reflex state manager, mail written to an outbox folder, and the built-in
test checkout instead of Stripe.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from prettyscore.core import constants

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip()


def _env_int(name: str, default: int) -> int:
    raw = _env(name)
    return int(raw) if raw is not None else default


def _env_float(name: str, default: float) -> float:
    raw = _env(name)
    return float(raw) if raw is not None else default


def _sqlalchemy_url(url: str) -> str:
    """Accept the common ``postgres://`` and ``postgresql://`` forms and use psycopg 3."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def _load_or_create_secret(data_dir: Path) -> str:
    """A local secret kept in the data folder, so tokens survive a restart of `make run`.

    Production sets SECRET_KEY; this is only the fallback for a developer machine.
    """
    path = data_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    path.write_text(key)
    path.chmod(0o600)
    return key


@dataclass(frozen=True)
class Settings:
    """The app's configuration; build it with :func:`get_settings`."""

    data_dir: Path
    database_url: str
    redis_url: str | None
    secret_key: str
    media_dir: Path
    outbox_dir: Path
    smtp_url: str | None
    mail_from: str
    public_url: str
    access_token_ttl_seconds: int
    refresh_token_ttl_seconds: int
    recovery_link_ttl_seconds: int
    stripe_secret_key: str | None
    stripe_publishable_key: str | None
    stripe_webhook_secret: str | None
    stripe_api_base: str | None
    premium_monthly_cents: int
    detailed_personality_cents: int
    payment_currency: str
    analysis_wait_seconds: float
    body_analysis_wait_seconds: float
    scoring_engine: str
    edit_engine: str
    edit_api_base: str
    edit_api_key: str | None = field(repr=False)  # never printed with the settings
    edit_model: str
    edit_timeout_seconds: float
    video_engine: str
    video_api_base: str
    video_api_key: str | None = field(repr=False)
    video_model: str
    video_timeout_seconds: float
    video_poll_seconds: float
    # Photo work (decode, analyse, encode) running at once per process; see core.workers.
    photo_work_threads: int
    # The authentication service (/auth/v1). Rate limits are written as the ``limits``
    # library parses them: "10 per 15 minutes", "1 per minute".
    otp_ttl_seconds: int = 3600
    otp_max_failed_attempts: int = 5
    flow_state_ttl_seconds: int = 300
    # Growing waits, each tier counted on its own: ";" separates them.
    rate_limit_sign_in_failures_per_email_and_address: str = (
        "5 per minute; 10 per 15 minutes; 20 per hour"
    )
    rate_limit_sign_in_failures_per_address: str = "30 per 15 minutes"
    rate_limit_sign_ups_per_address: str = "30 per hour"
    rate_limit_mails_per_address: str = "30 per hour"
    rate_limit_mails_per_email: str = "1 per minute"
    # What one member may do on the pages (and any other caller of the services).
    rate_limit_contact_requests_per_member: str = "10 per hour"
    rate_limit_chat_messages_per_member: str = "30 per minute"
    # The partner programme's second tier: a partner earns this whole percent of the
    # sales of the partners they referred (0 turns the second tier off).
    partner_second_tier_percent: int = 5

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def stripe_enabled(self) -> bool:
        return bool(self.stripe_secret_key)

    @property
    def secure_cookies(self) -> bool:
        """Cookies are sent only over https wherever the site is served over https."""
        return self.public_url.startswith("https://")


def load_settings() -> Settings:
    """Read the environment now (tests call this after changing it)."""
    data_dir = Path(_env("DATA_DIR", str(PROJECT_ROOT / "data"))).resolve()
    database_url = _env("DATABASE_URL", f"sqlite:///{data_dir / 'prettyscore.db'}")
    port = _env("PORT", "3000")
    return Settings(
        data_dir=data_dir,
        database_url=_sqlalchemy_url(database_url),
        redis_url=_env("REDIS_URL"),
        secret_key=_env("SECRET_KEY") or _load_or_create_secret(data_dir),
        media_dir=Path(_env("MEDIA_DIR", str(data_dir / "media"))).resolve(),
        outbox_dir=Path(_env("OUTBOX_DIR", str(data_dir / "outbox"))).resolve(),
        smtp_url=_env("SMTP_URL"),
        mail_from=_env("MAIL_FROM", "PrettyScore <no-reply@prettyscore.local>"),
        public_url=_env("PUBLIC_URL", f"http://localhost:{port}").rstrip("/"),
        access_token_ttl_seconds=_env_int("ACCESS_TOKEN_TTL_SECONDS", 3600),
        refresh_token_ttl_seconds=_env_int("REFRESH_TOKEN_TTL_SECONDS", 60 * 60 * 24 * 30),
        recovery_link_ttl_seconds=_env_int("RECOVERY_LINK_TTL_SECONDS", 3600),
        stripe_secret_key=_env("STRIPE_SECRET_KEY"),
        stripe_publishable_key=_env("STRIPE_PUBLISHABLE_KEY"),
        stripe_webhook_secret=_env("STRIPE_WEBHOOK_SECRET"),
        stripe_api_base=_env("STRIPE_API_BASE"),
        premium_monthly_cents=_env_int("PREMIUM_MONTHLY_CENTS", constants.PREMIUM_MONTHLY_CENTS),
        detailed_personality_cents=_env_int(
            "DETAILED_PERSONALITY_CENTS", constants.DETAILED_PERSONALITY_CENTS
        ),
        payment_currency=(_env("PAYMENT_CURRENCY", "usd") or "usd").lower(),
        analysis_wait_seconds=_env_float("ANALYSIS_WAIT_SECONDS", 3.0),
        body_analysis_wait_seconds=_env_float(
            "BODY_ANALYSIS_WAIT_SECONDS", constants.BODY_ANALYSIS_WAIT_SECONDS
        ),
        scoring_engine=_env("SCORING_ENGINE", "analysis"),
        edit_engine=_env("EDIT_ENGINE", "local"),
        edit_api_base=_env("EDIT_API_BASE", "https://api.openai.com/v1").rstrip("/"),
        edit_api_key=_env("EDIT_API_KEY"),
        edit_model=_env("EDIT_MODEL", "gpt-image-1"),
        edit_timeout_seconds=_env_float("EDIT_TIMEOUT_SECONDS", 120.0),
        video_engine=_env("VIDEO_ENGINE", "local"),
        video_api_base=_env("VIDEO_API_BASE", "https://api.dev.runwayml.com/v1").rstrip("/"),
        video_api_key=_env("VIDEO_API_KEY"),
        video_model=_env("VIDEO_MODEL", "gen4_turbo"),
        video_timeout_seconds=_env_float("VIDEO_TIMEOUT_SECONDS", 150.0),
        video_poll_seconds=_env_float("VIDEO_POLL_SECONDS", 5.0),
        photo_work_threads=max(1, _env_int("PHOTO_WORK_THREADS", (os.cpu_count() or 2) // 2)),
        partner_second_tier_percent=min(100, max(0, _env_int("PARTNER_SECOND_TIER_PERCENT", 5))),
        **_auth_settings(),
    )


def _auth_settings() -> dict:
    """The authentication service's lifetimes and the rate limits, each overridable by env."""
    defaults = {field.name: field.default for field in dataclasses.fields(Settings)}
    names = (
        "rate_limit_sign_in_failures_per_email_and_address",
        "rate_limit_sign_in_failures_per_address",
        "rate_limit_sign_ups_per_address",
        "rate_limit_mails_per_address",
        "rate_limit_mails_per_email",
        "rate_limit_contact_requests_per_member",
        "rate_limit_chat_messages_per_member",
    )
    return {
        "otp_ttl_seconds": _env_int("OTP_TTL_SECONDS", defaults["otp_ttl_seconds"]),
        "otp_max_failed_attempts": _env_int(
            "OTP_MAX_FAILED_ATTEMPTS", defaults["otp_max_failed_attempts"]
        ),
        "flow_state_ttl_seconds": _env_int(
            "FLOW_STATE_TTL_SECONDS", defaults["flow_state_ttl_seconds"]
        ),
        **{name: _env(name.upper(), defaults[name]) for name in names},
    }


@functools.cache
def get_settings() -> Settings:
    """The settings of this process, read once."""
    return load_settings()
