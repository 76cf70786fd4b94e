"""Password hashing with passlib's argon2 (bcrypt's passlib backend breaks on bcrypt >= 4.1)."""

from __future__ import annotations

from passlib.context import CryptContext

# Argon2id with OWASP's recommended minimum (19 MiB, 2 passes, 1 lane): about 50 ms of
# one core per sign-in. passlib's default (64 MiB, 3 passes, 4 lanes) took six times the
# CPU and every core at once, so a few simultaneous sign-ins stalled everyone's pages on
# a small server. Hashes made with other parameters still verify (they carry their own).
_context = CryptContext(
    schemes=["argon2"],
    deprecated="auto",
    argon2__type="ID",
    argon2__memory_cost=19 * 1024,
    argon2__rounds=2,
    argon2__parallelism=1,
)

# Longer passwords are refused (passlib refuses over 4,096 bytes; a thousand characters
# of up to four bytes each stay under it), and never hashed at sign-in.
MAX_PASSWORD_LENGTH = 1000

# Hashed once, compared against when an email is unknown, so that a wrong email and a
# wrong password take the same time and cannot be told apart.
_DUMMY_HASH = _context.hash("not-a-real-password")


def hash_password(password: str) -> str:
    """The stored form of a password."""
    return _context.hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    """Whether ``password`` matches; an absent hash, or a password too long to be one,
    still costs one verification, so neither can be told from a wrong password."""
    if password_hash is None or len(password) > MAX_PASSWORD_LENGTH:
        _context.verify("not-the-password", _DUMMY_HASH)
        return False
    try:
        return _context.verify(password, password_hash)
    except (ValueError, TypeError):
        return False
