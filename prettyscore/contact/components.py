"""STAND-IN (leaderboard branch only): replaced by the contact area's real contact_dialog.

Renders nothing; it exists so the leaderboard page compiles before the contact area is
merged.
"""

from __future__ import annotations

import reflex as rx


def contact_dialog() -> rx.Component:
    """Stand-in: the contact dialog, rendered once on the leaderboard page."""
    return rx.fragment()
