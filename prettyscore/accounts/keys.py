"""The keys that sign access tokens: ES256 key pairs kept in the database, by ``kid``.

Access tokens are signed with a private key only the backend holds and verified with its
public half, which anyone may fetch from ``/auth/v1/.well-known/jwks.json``: other
services (and the Supabase client libraries) can then check our tokens without sharing a
secret. Keys live in the database so that every backend worker signs and verifies with
the same set.

Rotation (``python -m prettyscore keys rotate``) adds a new key that signs from then on
and retires the old one; a retired key still verifies until the longest-lived token it
signed has expired, so nobody is signed out by a rotation. Workers cache the key set for
a few minutes and reload it at once when a token names a ``kid`` they do not know.

The private halves are stored encrypted with ``SECRET_KEY``, so a copy of the database
alone cannot sign tokens. A key whose private half cannot be read with this
``SECRET_KEY`` (it was changed) still verifies through its public half, and a new
signing key is made.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt import PyJWK
from jwt.algorithms import ECAlgorithm
from sqlmodel import Session, select

from prettyscore.accounts.models import SigningKey
from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import get_settings

ALGORITHM = "ES256"
#: How long a worker trusts its cached key set before reading the table again.
CACHE_SECONDS = 300.0


@dataclass(frozen=True)
class KeySet:
    """The keys a worker uses: the one that signs now and every one that still verifies."""

    signing_kid: str | None
    signing_private_key: ec.EllipticCurvePrivateKey | None
    public_keys: dict[str, ec.EllipticCurvePublicKey]
    jwks: tuple[dict, ...]
    loaded_at: float


_cache: dict[str, KeySet] = {}
_lock = threading.Lock()


def new_key_row(now: datetime | None = None) -> SigningKey:
    """A fresh P-256 key pair as a table row (not yet added to a session)."""
    private = ec.generate_private_key(ec.SECP256R1())
    kid = str(uuid.uuid4())
    return SigningKey(
        kid=kid,
        algorithm=ALGORITHM,
        private_key_pem=private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(_passphrase()),
        ).decode("ascii"),
        public_jwk=public_jwk(private.public_key(), kid),
        created_at=now or utcnow(),
    )


def public_jwk(public_key: ec.EllipticCurvePublicKey, kid: str) -> dict:
    """The JSON Web Key of a public key, as the JWKS publishes it."""
    jwk = ECAlgorithm.to_jwk(public_key, as_dict=True)
    return {**jwk, "kid": kid, "alg": ALGORITHM, "use": "sig", "key_ops": ["verify"]}


def _passphrase() -> bytes:
    return get_settings().secret_key.encode("utf-8")


def _private_key(row: SigningKey) -> ec.EllipticCurvePrivateKey | None:
    """The row's private key, or None when this SECRET_KEY cannot open it."""
    try:
        return serialization.load_pem_private_key(row.private_key_pem.encode(), _passphrase())
    except (ValueError, TypeError):
        return None


def _still_verifies(row: SigningKey, now: datetime) -> bool:
    if row.retired_at is None:
        return True
    lifetime = timedelta(seconds=get_settings().access_token_ttl_seconds)
    return row.retired_at + lifetime > now


def _read_key_set(db: Session) -> KeySet:
    now = utcnow()
    rows = db.exec(select(SigningKey).order_by(SigningKey.created_at.desc())).all()
    live = [row for row in rows if _still_verifies(row, now)]
    signing_row = next((row for row in live if row.retired_at is None), None)
    signing_key = _private_key(signing_row) if signing_row else None
    return KeySet(
        signing_kid=signing_row.kid if signing_key else None,
        signing_private_key=signing_key,
        public_keys={row.kid: PyJWK(row.public_jwk).key for row in live},
        jwks=tuple(row.public_jwk for row in live),
        loaded_at=time.monotonic(),
    )


def _cache_key(db: Session) -> str:
    return str(db.get_bind().engine.url)


def key_set(db: Session, *, reload: bool = False) -> KeySet:
    """This database's key set, from the cache while it is fresh."""
    name = _cache_key(db)
    cached = _cache.get(name)
    if not reload and cached and time.monotonic() - cached.loaded_at < CACHE_SECONDS:
        return cached
    with _lock:
        fresh = _read_key_set(db)
        if fresh.signing_kid is not None:
            _cache[name] = fresh
        return fresh


def signing_key(db: Session) -> tuple[str, ec.EllipticCurvePrivateKey]:
    """The kid and private key that sign new tokens.

    The migration creates the first key; a database made some other way gets one here,
    in the caller's transaction (and cached only once it can be read back).
    """
    keys = key_set(db)
    if keys.signing_kid is None:
        row = new_key_row()
        for unreadable in db.exec(select(SigningKey).where(SigningKey.retired_at.is_(None))):
            unreadable.retired_at = row.created_at
            db.add(unreadable)
        db.add(row)
        db.flush()
        return row.kid, _private_key(row)
    return keys.signing_kid, keys.signing_private_key


def verifying_key(db: Session, kid: str | None) -> ec.EllipticCurvePublicKey | None:
    """The public key named ``kid``, reloading once for a kid another worker just made."""
    if not kid:
        return None
    keys = key_set(db)
    if kid not in keys.public_keys:
        keys = key_set(db, reload=True)
    return keys.public_keys.get(kid)


def public_jwks(db: Session) -> dict:
    """The JWKS document: every public key that may have signed a live token."""
    return {"keys": list(key_set(db).jwks)}


def rotate(db: Session) -> str:
    """Add a new signing key and retire the others; returns the new kid."""
    now = utcnow()
    for row in db.exec(select(SigningKey).where(SigningKey.retired_at.is_(None))).all():
        row.retired_at = now
        db.add(row)
    row = new_key_row(now + timedelta(microseconds=1))
    db.add(row)
    db.flush()
    _cache.pop(_cache_key(db), None)
    return row.kid


def forget_cached_keys() -> None:
    """Drop every cached key set (after a database was emptied or replaced)."""
    with _lock:
        _cache.clear()
