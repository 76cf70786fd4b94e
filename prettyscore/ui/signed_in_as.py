"""Who is signed in, said where it matters: next to every photo upload and every button
that starts a payment.

A page on another port of the same host can set this site's cookies over plain http
(browsers do not keep cookies apart by port, and ``__Host-`` needs https): it could
sign a visitor in to someone else's account, whose photos and payments would then be
theirs. On https ``__Host-`` cookies refuse that; everywhere, the member sees whose
account a photo or a payment goes to before it goes, and can sign out at once.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.core import messages

# The sign-out inside the sentence looks like a link: it is a button (it does something).
_LINK_STYLE = {
    "background": "none",
    "border": "none",
    "padding": "0",
    "font": "inherit",
    "color": "var(--gray-12)",
    "text_decoration": "underline",
    "cursor": "pointer",
}


def signed_in_as(**props) -> rx.Component:
    """'Signed in as <email>. Not you? Sign Out' for a member; nothing for a visitor."""
    return rx.cond(
        AuthState.signed_in,
        rx.text(
            messages.SIGNED_IN_AS,
            " ",
            rx.el.strong(AuthState.user_email, overflow_wrap="anywhere"),
            ". ",
            messages.NOT_YOU,
            " ",
            rx.el.button(
                messages.SIGN_OUT,
                on_click=AuthState.sign_out,
                type="button",
                style=_LINK_STYLE,
            ),
            size="1",
            color_scheme="gray",
            text_align="center",
            width="100%",
            data_testid="signed-in-as",
            **props,
        ),
    )
