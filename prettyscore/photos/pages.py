"""My Photos (/dashboard): the member's saved photos.

The foundation shows the member's dashboard frame (email, Sign Out, the photo count and
the empty state); saving photos and the grid arrive with face scoring.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.core import messages
from prettyscore.ui.layout import page_layout


def dashboard_page() -> rx.Component:
    """/dashboard: only for signed-in members (others go to /auth and come back)."""
    return page_layout(
        rx.cond(
            AuthState.signed_in,
            rx.vstack(
                rx.hstack(
                    rx.vstack(
                        rx.heading("My Dashboard", size="7"),
                        rx.text(
                            AuthState.user_email, color_scheme="gray", data_testid="dashboard-email"
                        ),
                        spacing="1",
                    ),
                    rx.spacer(),
                    rx.button(messages.SIGN_OUT, variant="outline", on_click=AuthState.sign_out),
                    width="100%",
                    align="center",
                ),
                rx.heading(messages.MY_PHOTOS_COUNT.format(count=0), size="5"),
                rx.card(
                    rx.vstack(
                        rx.icon("image", size=40, color=rx.color("pink", 9)),
                        rx.text("You haven't saved any photos yet."),
                        rx.link(rx.button(messages.UPLOAD_YOUR_FIRST_PHOTO), href="/upload"),
                        align="center",
                        spacing="3",
                        padding="2em",
                    ),
                    width="100%",
                ),
                spacing="5",
                width="100%",
            ),
            rx.center(rx.spinner(size="3"), padding="4em", width="100%"),
        )
    )


def register(app: rx.App) -> None:
    """Add the photos pages to the app."""
    app.add_page(
        dashboard_page,
        route="/dashboard",
        title="My Dashboard | PrettyScore",
        on_load=AuthState.require_user,
    )
