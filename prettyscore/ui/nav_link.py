"""Client-side navigation links that know whether they point at the current page.

React Router's ``NavLink`` marks the link to the current location with
``aria-current="page"``. Styling on that attribute highlights the active sidebar entry in
the browser alone, with no state var and no server round trip on every navigation, and it
gives screen readers the "current page" cue for free.
"""

from typing import Any

import reflex as rx
from reflex_components_core.react_router.dom import ReactRouterLink


class ReactRouterNavLink(ReactRouterLink):
    """React Router's ``NavLink``: a ``Link`` that sets ``aria-current`` when active."""

    tag = "NavLink"

    alias = "ReactRouterNavLink"

    # True: active only on exactly this path. False (default): also on sub-paths, so
    # /partners stays lit on /partners/apply. "/" is never active on other pages either way.
    end: rx.Var[bool]


def nav_link(*children: Any, href: str, **props: Any) -> rx.Component:
    """A client-side link to ``href`` whose active state is styled with ``[aria-current]``.

    Without ``end`` the match also accepts a trailing slash, which the production static
    server adds on a full page load (``/privacy`` is served as ``/privacy/``).
    """
    return ReactRouterNavLink.create(*children, to=href, **props)


def plain_link(*children: Any, href: str, **props: Any) -> rx.Component:
    """A client-side link with no Radix styling, for use as a ``button``'s ``as_child``.

    ``rx.link`` wraps its router link in a memoised Radix ``Link``; a bare router link is
    what Radix ``Slot`` parents (``as_child`` buttons, menu items, drawer close) need to
    merge their props and click handlers into a single ``<a>``.
    """
    return ReactRouterLink.create(*children, to=href, **props)
