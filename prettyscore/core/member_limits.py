"""How often one member may do something that reaches another person or costs us work.

A thin layer over ``core.rate_limits``: the services call :func:`count_member_action`
just before they store what the member asked for, so every caller (the pages, the REST
API, a future one) is limited alike, and a refused attempt stores nothing. Only
attempts that passed the service's own checks are counted: a typo in a form does not
use up the member's budget.

The refusal carries a text for people ("Please try again in 12 minutes"), not the raw
seconds the ``Retry-After`` header gets.
"""

from __future__ import annotations

import math
import uuid

from prettyscore.core.rate_limits import RateLimited, get_rate_limiter

#: Below this many seconds a wait is told in seconds; from it on, in whole minutes.
SECONDS_SHOWN_UP_TO = 90


def wait_phrase(seconds: int) -> str:
    """How long to wait, as a page says it: "1 second", "45 seconds", "15 minutes"."""
    seconds = max(1, int(seconds))
    if seconds < SECONDS_SHOWN_UP_TO:
        return "1 second" if seconds == 1 else f"{seconds} seconds"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minutes"


def refusal_text(template: str, retry_after: int) -> str:
    """A ``{wait}`` template of messages.py filled for a wait of ``retry_after`` seconds."""
    return template.format(wait=wait_phrase(retry_after))


def count_member_action(limit: str, purpose: str, member_id: uuid.UUID, template: str) -> None:
    """Count one ``purpose`` for the member, or raise ``RateLimited`` (nothing counted)
    with ``template`` filled in when ``limit`` (e.g. "10 per hour") is used up."""
    limiter, key = get_rate_limiter(), str(member_id)
    if limiter.hit(limit, purpose, key):
        return
    seconds = limiter.retry_after(limit, purpose, key)
    raise RateLimited(refusal_text(template, seconds), retry_after=seconds)
