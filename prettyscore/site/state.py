"""Small Reflex states for the public site pages (Home, Privacy Policy).

They hold no user data: the home upload placeholder only navigates, and the privacy page
only needs today's date.
"""

from datetime import UTC, datetime

import reflex as rx

from prettyscore.core import messages


def today_label(now: datetime | None = None) -> str:
    """Today's date as the privacy page prints it, e.g. 'November 21, 2026' (UTC)."""
    moment = now or datetime.now(UTC)
    return f"{moment:%B} {moment.day}, {moment.year}"


class HomeState(rx.State):
    """The home page hero's upload zone."""

    @rx.event
    def open_upload_flow(self, accepted_count: int):
        """Placeholder for the hero's drop/pick: go to /upload once an image was accepted.

        The dropzone reports every drop, including one whose only file was rejected (that
        one gets its own toast), so only a drop with an accepted image moves on. The real
        hand-over (keep the chosen photo for the session and carry it to the upload flow,
        document 000 §2 Home) belongs to the upload issue. Only the number of accepted files
        reaches the server: sending the File objects themselves would ship the image bytes
        over the websocket as binary attachments.
        """
        if accepted_count > 0:
            return rx.redirect("/upload")
        return None


class PrivacyState(rx.State):
    """The Privacy Policy page: its 'Last updated' date is always today (document 000 §2)."""

    # 'Last updated: <today>', set on every load; empty until the first load event runs.
    last_updated: str = ""

    @rx.event
    def stamp_today(self):
        """on_load: compute today's date on the server at view time, not at build time."""
        self.last_updated = messages.LAST_UPDATED.format(date=today_label())
