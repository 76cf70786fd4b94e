"""The frame around every page: sidebar, top bar, account menu, mobile drawer and footer.

Navigation follows document 000 §2 exactly: the sidebar groups (Main, Premium, Account,
Info), the top bar entries and the 'My Account' menu. Signed-in and signed-out variants
switch on ``AuthState.signed_in``. Admins also get an Admin group (the admin pages); the
account menu adds Request Verification, and the Partner Portal for partners. From 768 px
up the sidebar is always visible; below it the sidebar is hidden and a menu button opens
a drawer with the same navigation, whose links close the drawer as they navigate
(``rx.drawer.close`` around each link).

Other areas wrap their page bodies in ``page_layout`` and never rebuild navigation.
"""

from typing import Any, NamedTuple

import reflex as rx
from reflex.vars import FunctionStringVar
from reflex.vars.function import ArgsFunctionOperation

from prettyscore.accounts.state import AuthState
from prettyscore.billing.state import MembershipState
from prettyscore.contact.state import ContactBadgeState
from prettyscore.core import messages, routes
from prettyscore.partners.state import PartnerLinkState
from prettyscore.ui import styles
from prettyscore.ui.components import brand_mark, disclaimer, terms_link
from prettyscore.ui.nav_link import nav_link, plain_link

# Heading of the drawer group holding the top bar's extra entries (not a document text).
EXPLORE = "Explore"
CLOSE_MENU = "Close menu"
# Heading of the admins' own group (not a document text: the documents list the admin
# pages without saying how admins reach them).
ADMIN = "Admin"


class NavItem(NamedTuple):
    """One navigation entry: visible label, route and lucide icon name."""

    label: str
    href: str
    icon: str


HOME = NavItem(messages.NAV_HOME, routes.HOME, "house")
UPLOAD = NavItem(messages.NAV_UPLOAD_PHOTO, routes.UPLOAD, "upload")
LEADERBOARD = NavItem(messages.NAV_LEADERBOARD, routes.LEADERBOARD, "trophy")
PREMIUM = NavItem(messages.NAV_PREMIUM, routes.PREMIUM, "crown")
USER_DASHBOARD = NavItem(messages.NAV_USER_DASHBOARD, routes.USER_DASHBOARD, "layout-dashboard")
MY_PHOTOS = NavItem(messages.NAV_MY_PHOTOS, f"{routes.DASHBOARD}?tab=photos", "images")
CONTACT_REQUESTS = NavItem(messages.NAV_CONTACT_REQUESTS, routes.CONTESTANT_REQUESTS, "mail")
MESSAGES = NavItem(messages.NAV_MESSAGES, routes.MESSAGES, "message-circle")
SIGN_IN = NavItem(messages.NAV_SIGN_IN, routes.AUTH, "log-in")
HOW_IT_WORKS = NavItem(messages.NAV_HOW_IT_WORKS, routes.HOW_IT_WORKS, "info")
PRIVACY = NavItem(messages.NAV_PRIVACY, routes.PRIVACY, "shield")
WIN_50K = NavItem(messages.WIN_50K, routes.GLOBAL_RANKING, "badge-dollar-sign")
PARTNERS = NavItem(messages.NAV_PARTNERS, routes.PARTNERS, "handshake")
DASHBOARD = NavItem(messages.NAV_DASHBOARD, routes.DASHBOARD, "layout-dashboard")
VIDEO_GENERATION = NavItem(messages.NAV_VIDEO_GENERATION, routes.VIDEO_GENERATION, "video")
FEET_SCORE = NavItem(messages.TITLE_FEET_UPLOAD, routes.FEET_UPLOAD, "footprints")
HANDS_SCORE = NavItem(messages.TITLE_HANDS_UPLOAD, routes.HANDS_UPLOAD, "hand")
PET_SCORE = NavItem(messages.TITLE_PET_UPLOAD, routes.PET_UPLOAD, "paw-print")
PERSONALITY_TEST = NavItem(messages.TITLE_PERSONALITY_TEST, routes.PERSONALITY_TEST, "brain")
OPPORTUNITIES = NavItem(messages.TITLE_CLAIM_OPPORTUNITIES, routes.CLAIM_OPPORTUNITIES, "star")
SECURITY = NavItem(messages.NAV_SECURITY, routes.ACCOUNT_SECURITY, "shield-check")
REQUEST_VERIFICATION = NavItem(
    messages.TITLE_REQUEST_VERIFICATION, routes.REQUEST_VERIFICATION, "badge-check"
)
PARTNER_PORTAL = NavItem(messages.TITLE_PARTNER_PORTAL, routes.PARTNERS_PORTAL, "handshake")
ADMIN_PARTNERS = NavItem(messages.ADMIN_PARTNERS_TITLE, routes.ADMIN_PARTNERS, "users")
ADMIN_PAYOUTS = NavItem(messages.ADMIN_PAYOUTS_TITLE, routes.ADMIN_PAYOUTS, "wallet")
ADMIN_VERIFICATION = NavItem(
    messages.ADMIN_VERIFICATION_TITLE, routes.ADMIN_VERIFICATION, "shield-check"
)
ADMIN_LEADERBOARD = NavItem(
    messages.ADMIN_LEADERBOARD_TITLE, routes.ADMIN_LEADERBOARD, "list-checks"
)

# Sidebar groups (document 000 §2 Navigation). Account has a signed-out variant.
MAIN_GROUP = (HOME, UPLOAD, LEADERBOARD)
# The documents name the Premium group without its entries: the plan, then what it unlocks.
PREMIUM_GROUP = (PREMIUM, FEET_SCORE, HANDS_SCORE, PERSONALITY_TEST)
ACCOUNT_GROUP_SIGNED_IN = (
    USER_DASHBOARD,
    MY_PHOTOS,
    CONTACT_REQUESTS,
    MESSAGES,
    PET_SCORE,
    OPPORTUNITIES,
)
ACCOUNT_GROUP_SIGNED_OUT = (SIGN_IN,)
INFO_GROUP = (HOW_IT_WORKS, PRIVACY)
# Shown to admins only, after Info.
ADMIN_GROUP = (ADMIN_PARTNERS, ADMIN_PAYOUTS, ADMIN_VERIFICATION, ADMIN_LEADERBOARD)
# Top bar, before the final Dashboard / Sign In entry.
TOP_BAR_ITEMS = (PREMIUM, WIN_50K, PARTNERS, LEADERBOARD, HOW_IT_WORKS, PRIVACY)
# The 'My Account' menu, before Sign Out.
# Request Verification follows them; Partner Portal too, for members who are partners.
ACCOUNT_MENU_ITEMS = (USER_DASHBOARD, MY_PHOTOS, VIDEO_GENERATION, PREMIUM, SECURITY)
# Top bar entries the sidebar lacks, so the drawer can offer the whole navigation.
DRAWER_EXTRA_ITEMS = (WIN_50K, PARTNERS)
# Top bar entries the sidebar repeats: hidden from 768 to 1023 px, where the bar is short.
_IN_SIDEBAR_TOO = frozenset(item.href for item in MAIN_GROUP + PREMIUM_GROUP + INFO_GROUP)

_SIDEBAR_LINK_STYLE = {
    "display": "flex",
    "width": "100%",
    "align_items": "center",
    "gap": "0.75rem",
    "padding": "0.6rem 0.85rem",
    "border_radius": "12px",
    "color": "var(--gray-12)",
    "font_size": "0.95rem",
    "font_weight": "500",
    "text_decoration": "none",
    "transition": "background 120ms ease",
    "_hover": {"background": "var(--pink-a3)"},
    # pink-12 on pink-a4 reads at about 10:1 (pink-11 there was 4.2:1, under WCAG's 4.5).
    "&[aria-current='page']": {
        "background": "var(--pink-a4)",
        "color": "var(--pink-12)",
        "font_weight": "600",
    },
}

_TOP_LINK_STYLE = {
    "display": "inline-flex",
    "align_items": "center",
    "gap": "0.35rem",
    "padding": "0.4rem 0.6rem",
    "border_radius": "999px",
    "color": "var(--gray-11)",
    "font_size": "0.875rem",
    # Icons only where there is room for them beside the sidebar.
    "& svg": {"display": "none"},
    styles.WIDE_MEDIA: {"& svg": {"display": "inline"}},
    "font_weight": "500",
    "white_space": "nowrap",
    "text_decoration": "none",
    "_hover": {"background": "var(--pink-a3)", "color": "var(--gray-12)"},
    "&[aria-current='page']": {"color": "var(--pink-12)", "background": "var(--pink-a3)"},
}


# ---------------------------------------------------------------------------
# Sidebar (768 px and up) and the navigation it shares with the drawer
# ---------------------------------------------------------------------------
def _sidebar_link(item: NavItem, in_drawer: bool) -> rx.Component:
    """One sidebar entry; in the drawer it also closes the drawer when clicked."""
    extra = [_pending_requests_count()] if item == CONTACT_REQUESTS else []
    link = nav_link(
        rx.icon(item.icon, size=18),
        item.label,
        *extra,
        href=item.href,
        style=_SIDEBAR_LINK_STYLE,
    )
    return rx.drawer.close(link) if in_drawer else link


def _pending_requests_count() -> rx.Component:
    """Contact requests waiting for the member's answer, loaded when the entry shows
    (it shows only to signed-in members)."""
    return rx.box(
        rx.cond(
            ContactBadgeState.pending_requests > 0,
            rx.badge(
                ContactBadgeState.pending_requests,
                color_scheme="pink",
                radius="full",
                data_testid="contact-requests-count",
            ),
        ),
        margin_left="auto",
        on_mount=ContactBadgeState.refresh_pending_requests,
    )


def _nav_group(title: str, items: tuple[NavItem, ...], in_drawer: bool) -> rx.Component:
    """A titled group of sidebar entries."""
    return rx.vstack(
        rx.text(
            title,
            size="1",
            text_transform="uppercase",
            weight="bold",
            color_scheme="gray",
            letter_spacing="0.08em",
            padding_x="0.85rem",
        ),
        *[_sidebar_link(item, in_drawer) for item in items],
        spacing="1",
        width="100%",
    )


def _nav_groups(in_drawer: bool) -> rx.Component:
    """Main, Premium, Account (signed-in or signed-out variant) and Info groups."""
    return rx.vstack(
        _nav_group(messages.NAV_MAIN, MAIN_GROUP, in_drawer),
        _nav_group(messages.NAV_PREMIUM, PREMIUM_GROUP, in_drawer),
        rx.cond(
            AuthState.signed_in,
            _nav_group(messages.NAV_ACCOUNT, ACCOUNT_GROUP_SIGNED_IN, in_drawer),
            _nav_group(messages.NAV_ACCOUNT, ACCOUNT_GROUP_SIGNED_OUT, in_drawer),
        ),
        _nav_group(messages.NAV_INFO, INFO_GROUP, in_drawer),
        rx.cond(AuthState.is_admin, _nav_group(ADMIN, ADMIN_GROUP, in_drawer)),
        spacing="5",
        width="100%",
    )


def sidebar() -> rx.Component:
    """The fixed left sidebar, shown from 768 px up."""
    return rx.el.aside(
        rx.box(brand_mark(), padding="1.25rem 1rem 1.5rem 1.1rem"),
        rx.el.nav(_nav_groups(in_drawer=False), aria_label="Sidebar"),
        style={
            **styles.DESKTOP_ONLY,
            "flex_direction": "column",
            "position": "fixed",
            "top": "0",
            "left": "0",
            "bottom": "0",
            "width": styles.SIDEBAR_WIDTH,
            "padding": "0 0.75rem 1.5rem",
            "background": "white",
            "border_right": styles.BORDER,
            "overflow_y": "auto",
            "z_index": "20",
        },
    )


# ---------------------------------------------------------------------------
# Mobile drawer (below 768 px)
# ---------------------------------------------------------------------------
def _drawer_sign_out() -> rx.Component:
    """Sign Out inside the drawer: signs out and closes the drawer."""
    return rx.drawer.close(
        rx.button(
            rx.icon("log-out", size=18),
            messages.SIGN_OUT,
            on_click=AuthState.sign_out,
            variant="soft",
            color_scheme="gray",
            width="100%",
            justify="start",
        ),
    )


def mobile_drawer() -> rx.Component:
    """The menu button and the left drawer it opens, with the full navigation."""
    return rx.drawer.root(
        rx.drawer.trigger(
            rx.icon_button(
                rx.icon("menu", size=22),
                variant="ghost",
                size="3",
                aria_label=messages.NAV_OPEN_MENU,
            ),
        ),
        rx.drawer.portal(
            rx.drawer.overlay(),
            rx.drawer.content(
                _drawer_body(),
                custom_attrs={"data-testid": "nav-drawer"},
                style={
                    "right": "auto",
                    "width": "min(300px, 86vw)",
                    "height": "100%",
                    "background": "white",
                    "box_shadow": "0 0 40px rgba(0, 0, 0, 0.18)",
                    "outline": "none",
                },
            ),
        ),
        direction="left",
    )


def _drawer_body() -> rx.Component:
    """What the drawer shows: brand, close button, all groups, extras, account actions."""
    return rx.vstack(
        rx.hstack(
            rx.drawer.title(rx.drawer.close(brand_mark())),
            rx.drawer.close(
                rx.icon_button(
                    rx.icon("x", size=20),
                    variant="ghost",
                    color_scheme="gray",
                    aria_label=CLOSE_MENU,
                ),
            ),
            justify="between",
            align="center",
            width="100%",
        ),
        rx.cond(
            AuthState.signed_in,
            rx.text(AuthState.email_short, size="2", color_scheme="gray", padding_x="0.85rem"),
        ),
        rx.el.nav(
            rx.vstack(
                _nav_groups(in_drawer=True),
                _nav_group(EXPLORE, DRAWER_EXTRA_ITEMS, in_drawer=True),
                rx.cond(
                    AuthState.signed_in,
                    rx.vstack(
                        _sidebar_link(VIDEO_GENERATION, in_drawer=True),
                        _drawer_sign_out(),
                        spacing="1",
                        width="100%",
                    ),
                ),
                spacing="5",
                width="100%",
            ),
            aria_label="Menu",
            width="100%",
        ),
        spacing="4",
        width="100%",
        height="100%",
        padding="1rem 0.75rem 2rem",
        overflow_y="auto",
    )


# ---------------------------------------------------------------------------
# Top bar and account menu
# ---------------------------------------------------------------------------
def _top_link(item: NavItem) -> rx.Component:
    """A top bar entry; 'Win $50K' is drawn in the brand gradient to stand out."""
    highlight = item is WIN_50K
    label = rx.text(item.label, as_="span", style=styles.GRADIENT_TEXT) if highlight else item.label
    icon = (
        rx.icon(item.icon, size=16, color=styles.PINK) if highlight else rx.icon(item.icon, size=16)
    )
    style = _TOP_LINK_STYLE
    if item.href in _IN_SIDEBAR_TOO:
        style = {**style, "display": "none", styles.LARGE_MEDIA: {"display": "inline-flex"}}
    return nav_link(icon, label, href=item.href, style=style)


def _top_links() -> rx.Component:
    """The top bar entries (from 768 px up), ending with Dashboard when signed in."""
    return rx.el.nav(
        rx.hstack(
            *[_top_link(item) for item in TOP_BAR_ITEMS],
            # Signed out, the last entry (Sign In) is the button at the bar's right end.
            rx.cond(AuthState.signed_in, _top_link(DASHBOARD)),
            spacing="1",
            align="center",
        ),
        aria_label="Top",
        style={
            **styles.DESKTOP_ONLY,
            "flex": "1",
            "min_width": "0",
            "overflow_x": "auto",
            "scrollbar_width": "none",
        },
    )


def _account_menu_item(item: NavItem) -> rx.Component:
    """A 'My Account' entry that navigates like a link."""
    return rx.menu.item(
        plain_link(
            rx.hstack(rx.icon(item.icon, size=16), item.label, spacing="2", align="center"),
            href=item.href,
        ),
        as_child=True,
    )


_WIDE_ENOUGH_FOR_LABEL = {"display": "none", styles.LARGE_MEDIA: {"display": "inline"}}


def premium_badge(test_id: str, label_style: dict | None = None) -> rx.Component:
    """The small 'Premium' badge a member with Premium carries (nothing otherwise);
    ``label_style`` may hide its word where room is short, leaving the crown."""
    return rx.cond(
        MembershipState.is_premium,
        rx.badge(
            rx.icon("crown", size=12),
            rx.text(messages.PREMIUM_BADGE, as_="span", style=label_style or {}),
            color_scheme="pink",
            radius="full",
            size="1",
            title=messages.PREMIUM_BADGE,
            # Named as an image: the word may be hidden, leaving the crown alone.
            role="img",
            aria_label=messages.PREMIUM_BADGE,
            data_testid=test_id,
            flex_shrink="0",
        ),
    )


def account_menu() -> rx.Component:
    """The signed-in 'My Account' menu: the truncated email (with the Premium badge),
    account pages and Sign Out. Mounting it asks the server whether the member has
    Premium."""
    return rx.hstack(
        premium_badge("header-premium-badge", _WIDE_ENOUGH_FOR_LABEL),
        rx.menu.root(
            rx.menu.trigger(
                rx.button(
                    rx.icon("circle-user", size=18),
                    # The label shows from 1024 px; narrower, the icon and aria-label do.
                    rx.text(messages.MY_ACCOUNT, as_="span", style=_WIDE_ENOUGH_FOR_LABEL),
                    rx.icon("chevron-down", size=14),
                    variant="soft",
                    radius="full",
                    aria_label=messages.MY_ACCOUNT,
                ),
            ),
            _account_menu_content(),
        ),
        align="center",
        spacing="2",
        flex_shrink="0",
        on_mount=MembershipState.refresh_membership,
    )


def _account_menu_content() -> rx.Component:
    return rx.menu.content(
        rx.hstack(
            rx.text(
                AuthState.email_short,
                size="1",
                color_scheme="gray",
                title=AuthState.user_email,
                data_testid="account-email",
            ),
            premium_badge("account-premium-badge"),
            align="center",
            spacing="2",
            padding="0.35rem 0.75rem",
        ),
        rx.menu.separator(),
        *[_account_menu_item(item) for item in ACCOUNT_MENU_ITEMS],
        _account_menu_item(REQUEST_VERIFICATION),
        rx.cond(PartnerLinkState.is_partner, _account_menu_item(PARTNER_PORTAL)),
        rx.menu.separator(),
        rx.menu.item(
            rx.hstack(rx.icon("log-out", size=16), messages.SIGN_OUT, spacing="2"),
            on_select=AuthState.sign_out,
            color_scheme="red",
        ),
        align="end",
        # Never wider than the screen, less a margin each side.
        max_width="calc(100vw - 1.5rem)",
        on_mount=PartnerLinkState.refresh,
    )


def _sign_in_button() -> rx.Component:
    """Signed out: the top bar's Sign In entry, a button at the right at every width."""
    return rx.button(
        plain_link(rx.icon("log-in", size=16), messages.SIGN_IN, href=SIGN_IN.href),
        as_child=True,
        radius="full",
        style=styles.GRADIENT_BUTTON,
    )


def top_bar() -> rx.Component:
    """Sticky header: menu button and logo on phones, links on wider screens, account."""
    return rx.el.header(
        rx.hstack(
            rx.hstack(
                mobile_drawer(),
                brand_mark(),
                align="center",
                spacing="3",
                min_width="0",
                style=styles.MOBILE_ONLY,
            ),
            _top_links(),
            rx.spacer(style=styles.MOBILE_ONLY),
            rx.cond(AuthState.signed_in, account_menu(), _sign_in_button()),
            align="center",
            spacing="3",
            height=styles.TOP_BAR_HEIGHT,
            padding_x=rx.breakpoints(initial="0.75rem", sm="1.5rem"),
            width="100%",
        ),
        style={
            "position": "sticky",
            "top": "0",
            "z_index": "10",
            "background": "rgba(255, 255, 255, 0.82)",
            "backdrop_filter": "blur(12px)",
            "border_bottom": styles.BORDER,
        },
    )


# ---------------------------------------------------------------------------
# Footer and the page frame
# ---------------------------------------------------------------------------
def footer() -> rx.Component:
    """Entertainment disclaimer and the Terms of Use link, at the bottom of every page."""
    return rx.el.footer(
        rx.vstack(
            disclaimer(justify="center"),
            rx.hstack(
                rx.text(f"© {messages.APP_NAME}", size="2", color_scheme="gray"),
                rx.text("·", size="2", color_scheme="gray"),
                terms_link(),
                rx.text("·", size="2", color_scheme="gray"),
                rx.link(messages.PRIVACY_POLICY, href=PRIVACY.href, size="2"),
                spacing="2",
                align="center",
                wrap="wrap",
                justify="center",
            ),
            align="center",
            spacing="3",
            max_width=styles.CONTENT_MAX_WIDTH,
            margin_x="auto",
        ),
        style={
            "padding": "2rem 1.25rem 2.5rem",
            "border_top": styles.BORDER,
            "background": "white",
        },
    )


#: How long a page may stay not live before it asks for its state again.
PAGE_LOAD_RETRY_SECONDS = 12
_RELOAD_STATE_BUTTON = "ps-load-page-state-again"
# Clicks the hidden button every PAGE_LOAD_RETRY_SECONDS while it is on the page (the
# page is not live); one timer per window, gone once the page is live.
_WATCH_PAGE_LOAD = f"""
if (!window.__psPageLoadWatch) {{
  window.__psPageLoadWatch = setInterval(() => {{
    const again = document.getElementById("{_RELOAD_STATE_BUTTON}");
    if (!again) {{
      clearInterval(window.__psPageLoadWatch);
      window.__psPageLoadWatch = null;
      return;
    }}
    again.click();
  }}, {PAGE_LOAD_RETRY_SECONDS * 1000});
}}
"""


def page_ready_marker() -> rx.Component:
    """A hidden element present once the page is live (hydrated, its on_load events done).

    Browser tests wait for it before typing, as a person waits for a page to finish
    loading; forms use the same flag to keep their submit buttons disabled until then.

    Until then, a watch: a page whose load the server never answered (its events failed
    while Redis restarted, or were lost on the way) would stay not live, its buttons
    disabled, until the person reloads it. After ``PAGE_LOAD_RETRY_SECONDS`` the page
    asks for its state and its load events again, as a reconnecting socket does
    (removing a session-storage key makes Reflex's page send its initial events again).
    """
    return rx.cond(
        rx.State.is_hydrated,
        rx.el.span(data_testid="page-ready", style={"display": "none"}),
        rx.el.button(
            id=_RELOAD_STATE_BUTTON,
            type="button",
            tab_index=-1,
            aria_hidden="true",
            style={"display": "none"},
            on_click=rx.remove_session_storage(_RELOAD_STATE_BUTTON),
            on_mount=rx.call_script(_WATCH_PAGE_LOAD),
        ),
    )


# Off screen until focused: the first Tab on any page offers to jump past the navigation.
_SKIP_LINK_STYLE = {
    "position": "absolute",
    "left": "0.75rem",
    "top": "-3rem",
    "z_index": "50",
    "padding": "0.5rem 1rem",
    "border_radius": "999px",
    "background": "var(--gray-12)",
    "color": "white",
    "font_weight": "600",
    "text_decoration": "none",
    "&:focus": {"top": "0.75rem"},
}
MAIN_ID = "main-content"


# Browsers scroll to a fragment without moving the keyboard's focus there: do both.
_FOCUS_MAIN = ArgsFunctionOperation.create(
    (), FunctionStringVar.create(f"(() => document.getElementById('{MAIN_ID}').focus())").call()
)


def skip_link() -> rx.Component:
    """'Skip to content': keyboard users reach the page body without Tabbing the menus."""
    return rx.el.a(
        messages.SKIP_TO_CONTENT, href=f"#{MAIN_ID}", on_click=_FOCUS_MAIN, style=_SKIP_LINK_STYLE
    )


def page_layout(*children: rx.Component, **props: Any) -> rx.Component:
    """Wrap a page body in the app frame: sidebar, top bar, main content and footer.

    ``props`` go to the box holding the page body (e.g. ``max_width`` to widen it).
    """
    props.setdefault("max_width", styles.CONTENT_MAX_WIDTH)
    return rx.box(
        skip_link(),
        sidebar(),
        rx.flex(
            top_bar(),
            rx.el.main(
                rx.box(
                    *children,
                    width="100%",
                    margin_x="auto",
                    padding=rx.breakpoints(initial="1.25rem 1rem 3rem", sm="2rem 2rem 4rem"),
                    **props,
                ),
                id=MAIN_ID,
                tab_index=-1,
                style={"flex": "1", "width": "100%", "outline": "none"},
            ),
            footer(),
            direction="column",
            min_height="100vh",
            style={styles.DESKTOP_MEDIA: {"margin_left": styles.SIDEBAR_WIDTH}},
        ),
        page_ready_marker(),
        background=styles.SOFT_BACKGROUND,
        min_height="100vh",
    )
