"""Every setting PrettyScore reads, typed, from the environment.

One place so that a deployment is described by its environment alone and nothing else in
the code calls ``os.environ``. Defaults give a working local app: SQLite in ``data/``,
the in-memory Reflex state manager, mail written to an outbox folder, and the built-in
test checkout instead of Stripe.
"""

from __future__ import annotations

import functools
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from prettyscore.core import constants

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _env(name: str) -> str | None:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def _text(value: str) -> str:
    return value


def _url(value: str) -> str:
    return value.rstrip("/")


def _folder(value: str) -> Path:
    return Path(value).resolve()


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
class _Reading:
    """How one setting is read from its variable (the field's name in capitals)."""

    # Used when the variable is unset or blank: a value, or a function of the settings
    # read before this one. None: the setting is None.
    default: Any
    # Turns the variable's text (or the default) into the setting's value.
    parse: Callable[[Any], Any]


def _setting(default: Any = None, parse: Callable[[Any], Any] = _text, *, secret=False) -> Any:
    """A field of :class:`Settings`, read from the environment by :func:`load_settings`."""
    return field(repr=not secret, metadata={"reading": _Reading(default, parse)})


def _one_of(*choices: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        chosen = str(value).strip().lower()
        if chosen not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, not {value!r}")
        return chosen

    return parse


def _between(low: int, high: int) -> Callable[[Any], int]:
    return lambda value: min(high, max(low, int(value)))


@dataclass(frozen=True)
class Settings:
    """The app's configuration; build it with :func:`get_settings`.

    Each field is one environment variable, its name in capitals (``DATA_DIR``), declared
    once here with its default; :data:`VARIABLES` lists them. Fields are read in this
    order, so a default may depend on a setting above it.
    """

    data_dir: Path = _setting(str(PROJECT_ROOT / "data"), _folder)
    database_url: str = _setting(
        lambda read: f"sqlite:///{read['data_dir'] / 'prettyscore.db'}", _sqlalchemy_url
    )
    redis_url: str | None = _setting()
    # Where slow jobs (video renders, AI edits) run: "redis", a Dramatiq queue on REDIS_URL served
    # by worker processes (`make worker`), or "inline", a thread of the web process.
    job_queue: str = _setting(
        lambda read: "redis" if read["redis_url"] else "inline", _one_of("inline", "redis")
    )
    # The queue's keys in Redis: processes sharing one are one deployment.
    job_namespace: str = _setting("prettyscore-jobs")
    # A worker silent this long is taken for dead, and its unfinished jobs run again.
    job_heartbeat_timeout_seconds: float = _setting(60.0, float)
    secret_key: str = _setting(lambda read: _load_or_create_secret(read["data_dir"]))
    media_dir: Path = _setting(lambda read: str(read["data_dir"] / "media"), _folder)
    # Where stored photos and videos live: "local" (MEDIA_DIR) or "s3" (the bucket below,
    # on any S3-compatible service: AWS, R2, MinIO, SeaweedFS); see core.media_s3.
    media_store: str = _setting("local", _one_of("local", "s3"))
    # Unset: AWS itself (for the region). Without keys, boto3's own chain is used
    # (AWS_* variables, an instance's role).
    s3_endpoint_url: str | None = _setting(None, _url)
    s3_bucket: str | None = _setting()
    s3_access_key_id: str | None = _setting()
    s3_secret_access_key: str | None = _setting(secret=True)
    s3_region: str = _setting("us-east-1")
    outbox_dir: Path = _setting(lambda read: str(read["data_dir"] / "outbox"), _folder)
    smtp_url: str | None = _setting()
    mail_from: str = _setting("PrettyScore <no-reply@prettyscore.local>")
    # The port `make run` serves on; the default public URL's port.
    port: str = _setting("3000")
    public_url: str = _setting(lambda read: f"http://localhost:{read['port']}", _url)
    # The reverse proxies whose X-Forwarded-For is believed ("127.0.0.1, 10.0.0.0/8", or
    # "*"); unset, nobody's: the connection's own address is the client (web/client_address).
    forwarded_allow_ips: str = _setting("")
    access_token_ttl_seconds: int = _setting(3600, int)
    refresh_token_ttl_seconds: int = _setting(60 * 60 * 24 * 30, int)
    recovery_link_ttl_seconds: int = _setting(3600, int)
    stripe_secret_key: str | None = _setting()
    stripe_publishable_key: str | None = _setting()
    stripe_webhook_secret: str | None = _setting()
    stripe_api_base: str | None = _setting()
    premium_monthly_cents: int = _setting(constants.PREMIUM_MONTHLY_CENTS, int)
    detailed_personality_cents: int = _setting(constants.DETAILED_PERSONALITY_CENTS, int)
    payment_currency: str = _setting("usd", str.lower)
    subscription_recheck_seconds: float = _setting(
        constants.SUBSCRIPTION_RECHECK_SECONDS, lambda value: max(1.0, float(value))
    )
    analysis_wait_seconds: float = _setting(3.0, float)
    body_analysis_wait_seconds: float = _setting(constants.BODY_ANALYSIS_WAIT_SECONDS, float)
    # Built into the pages: the frontend is compiled with the value set then.
    no_answer_seconds: float = _setting(
        constants.NO_ANSWER_SECONDS, lambda value: max(1.0, float(value))
    )
    scoring_engine: str = _setting("analysis")
    edit_engine: str = _setting("local")
    edit_api_base: str = _setting("https://api.openai.com/v1", _url)
    edit_api_key: str | None = _setting(secret=True)  # never printed with the settings
    edit_model: str = _setting("gpt-image-1")
    edit_timeout_seconds: float = _setting(120.0, float)
    video_engine: str = _setting("local")
    video_api_base: str = _setting("https://api.dev.runwayml.com/v1", _url)
    video_api_key: str | None = _setting(secret=True)
    video_model: str = _setting("gen4_turbo")
    video_timeout_seconds: float = _setting(150.0, float)
    video_poll_seconds: float = _setting(5.0, float)
    # Photo work (decode, analyse, encode) running at once per process; see core.workers.
    photo_work_threads: int = _setting(
        lambda read: (os.cpu_count() or 2) // 2, lambda value: max(1, int(value))
    )
    # The authentication service (/auth/v1). Rate limits are written as the ``limits``
    # library parses them: "10 per 15 minutes", "1 per minute".
    otp_ttl_seconds: int = _setting(3600, int)
    otp_max_failed_attempts: int = _setting(5, int)
    flow_state_ttl_seconds: int = _setting(300, int)
    # Growing waits, each tier counted on its own: ";" separates them.
    rate_limit_sign_in_failures_per_email_and_address: str = _setting(
        "5 per minute; 10 per 15 minutes; 20 per hour"
    )
    rate_limit_sign_in_failures_per_address: str = _setting("30 per 15 minutes")
    rate_limit_sign_ups_per_address: str = _setting("30 per hour")
    rate_limit_mails_per_address: str = _setting("30 per hour")
    rate_limit_mails_per_email: str = _setting("1 per minute")
    # What one member may do on the pages (and any other caller of the services).
    rate_limit_contact_requests_per_member: str = _setting("10 per hour")
    rate_limit_chat_messages_per_member: str = _setting("30 per minute")
    # Each event socket's budget (web/socket_budget): this many events at once (at most
    # 500), and this many more each second; a socket past it is disconnected.
    socket_event_burst: int = _setting(120, _between(1, 500))
    socket_events_per_second: float = _setting(20.0, lambda value: max(0.1, float(value)))
    # The partner programme's second tier: a partner earns this whole percent of the
    # sales of the partners they referred (0 turns the second tier off).
    partner_second_tier_percent: int = _setting(5, _between(0, 100))

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


#: Every environment variable the app reads, in the order of :class:`Settings`.
VARIABLES: tuple[str, ...] = tuple(item.name.upper() for item in fields(Settings))


def load_settings() -> Settings:
    """Read the environment now (tests call this after changing it)."""
    read: dict[str, Any] = {}
    for item in fields(Settings):
        reading: _Reading = item.metadata["reading"]
        value = _env(item.name.upper())
        if value is None:
            default = reading.default
            value = default(read) if callable(default) else default
        try:
            read[item.name] = None if value is None else reading.parse(value)
        except ValueError as error:  # say which variable is wrong
            raise ValueError(f"{item.name.upper()}: {error}") from error
    return Settings(**read)


@functools.cache
def get_settings() -> Settings:
    """The settings of this process, read once."""
    return load_settings()
