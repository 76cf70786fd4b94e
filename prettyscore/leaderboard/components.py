"""The leaderboard entry form of document 000 (display name, optional bio), shared by the
opt-in dialog on /results and the contest page /global-ranking. The server checks it
again (``photos.service.check_listing``)."""

from __future__ import annotations

import reflex as rx

from prettyscore.photos.service import MAX_BIO, MAX_DISPLAY_NAME

DISPLAY_NAME_FIELD = "display_name"
BIO_FIELD = "bio"


def entry_fields() -> rx.Component:
    """Display name and 'Short bio (optional)', named as the handlers read them."""
    return rx.vstack(
        rx.input(
            name=DISPLAY_NAME_FIELD,
            placeholder="Display name",
            aria_label="Display name",
            max_length=MAX_DISPLAY_NAME,
            width="100%",
        ),
        rx.text_area(
            name=BIO_FIELD,
            placeholder="Short bio (optional)",
            aria_label="Short bio (optional)",
            max_length=MAX_BIO,
            width="100%",
        ),
        spacing="3",
        width="100%",
    )
