"""Small Reflex states for the public site pages (Home, Privacy Policy).

They hold no user data: the privacy page only needs today's date. (The home hero's
upload belongs to the scoring flow, ``scoring.state``.)
"""

from datetime import UTC, datetime

import reflex as rx

from prettyscore.core import messages


def today_label(now: datetime | None = None) -> str:
    """Today's date as the privacy page prints it, e.g. 'November 21, 2026' (UTC)."""
    moment = now or datetime.now(UTC)
    return f"{moment:%B} {moment.day}, {moment.year}"


class PrivacyState(rx.State):
    """The Privacy Policy page: its 'Last updated' date is always today (document 000 §2)."""

    # 'Last updated: <today>', set on every load; empty until the first load event runs.
    last_updated: str = ""

    @rx.event
    def stamp_today(self):
        """on_load: compute today's date on the server at view time, not at build time."""
        self.last_updated = messages.LAST_UPDATED.format(date=today_label())
