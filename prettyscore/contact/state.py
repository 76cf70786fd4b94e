"""STAND-IN (leaderboard branch only): replaced by the contact area's real ContactState.

Only the interface the leaderboard uses exists here, so the leaderboard compiles before
the contact area is merged.
"""

from __future__ import annotations

import reflex as rx


class ContactState(rx.State):
    """Stand-in: the contact dialog's state."""

    open: bool = False
    photo_id: str = ""

    @rx.event
    def open_contact(self, photo_id: str):
        """Stand-in: remembers the entry; the real one opens the contact dialog."""
        self.photo_id = photo_id
        self.open = True
