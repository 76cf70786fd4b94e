"""Admin pages. Each is guarded on the server: visitors go to /auth, members are refused.

The tools themselves (partners, payouts, verification review) arrive with their areas;
the guards and their messages are the documents' from the start.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.core import messages
from prettyscore.ui.layout import page_layout

# (route, heading, on_load guard): the verification page has its own refusal text.
ADMIN_PAGES = (
    ("/admin/partners", "Partner Management", AuthState.require_admin),
    ("/admin/payouts", "Partner Payouts", AuthState.require_admin),
    ("/admin/verification", "Verification Requests", AuthState.require_verification_admin),
)


def _admin_page(heading: str):
    def page() -> rx.Component:
        return page_layout(
            rx.cond(
                AuthState.is_admin,
                rx.vstack(
                    rx.heading(heading, size="7"),
                    rx.text(messages.COMING_SOON, color_scheme="gray"),
                    spacing="3",
                ),
                rx.center(rx.spinner(size="3"), padding="4em", width="100%"),
            )
        )

    page.__name__ = f"admin_{heading.lower().replace(' ', '_')}"
    return page


def register(app: rx.App) -> None:
    """Add the admin pages to the app."""
    for route, heading, guard in ADMIN_PAGES:
        app.add_page(
            _admin_page(heading), route=route, title=f"{heading} | PrettyScore", on_load=guard
        )
