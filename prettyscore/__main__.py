"""Command line: ``python -m prettyscore admin grant EMAIL`` / ``admin revoke EMAIL``, and
``python -m prettyscore keys rotate`` (a new access-token signing key; see accounts/keys.py)."""

from __future__ import annotations

import argparse
import sys

from prettyscore.accounts import keys, service
from prettyscore.core.db import session_scope
from prettyscore.core.errors import DomainError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m prettyscore")
    areas = parser.add_subparsers(dest="area", required=True)
    admin = areas.add_parser("admin", help="grant or revoke the admin role")
    admin.add_argument("action", choices=["grant", "revoke"])
    admin.add_argument("email")
    signing = areas.add_parser("keys", help="rotate the key that signs access tokens")
    signing.add_argument("action", choices=["rotate"])
    return parser


def _run(db, args) -> None:
    if args.area == "keys":
        print(f"Access tokens are now signed with key {keys.rotate(db)}")
    elif args.action == "grant":
        changed = service.grant_role(db, args.email)
        print(f"{args.email} is {'now' if changed else 'already'} an admin")
    else:
        changed = service.revoke_role(db, args.email)
        print(f"{args.email} is {'no longer' if changed else 'not'} an admin")


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit status says whether it worked."""
    args = _parser().parse_args(argv)
    try:
        with session_scope() as db:
            _run(db, args)
    except DomainError as error:
        print(error.message, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
