"""Public site pages: Home, How It Works, Privacy Policy (with the Terms), and Not found.

Texts the documents spell out come from ``messages``; our longer copy from ``site.copy``.
Pages here only lay out components; the little behaviour they have lives in
``site.state``.
"""

import reflex as rx

from prettyscore import analysis
from prettyscore.accounts.state import AuthState
from prettyscore.core import messages, routes
from prettyscore.scoring.pages import upload_progress_bar
from prettyscore.scoring.state import HOME_UPLOAD_ID, ScoreState
from prettyscore.site import copy
from prettyscore.site.state import PrivacyState
from prettyscore.ui import styles
from prettyscore.ui.components import (
    REJECTED_DROP_CODES,
    TERMS_ANCHOR,
    UPLOAD_FORMATS_HINT,
    card,
    disclaimer,
    feature_card,
    image_drop_zone,
    link_button,
    page_header,
    responsive_grid,
    score_example_card,
    section,
    terms_link,
)
from prettyscore.ui.layout import page_layout
from prettyscore.ui.upload_watch import upload_on_drop

# Scrolls to the element named by the URL's #fragment, if it exists. Client-side
# navigation does not do this by itself, and /privacy#terms must land on the Terms.
_SCROLL_TO_HASH = rx.call_script(
    "window.location.hash && document.getElementById(window.location.hash.slice(1))"
    "?.scrollIntoView({behavior: 'smooth', block: 'start'})"
)


# ---------------------------------------------------------------------------
# Home
# ---------------------------------------------------------------------------
def _trusted_by() -> rx.Component:
    """Five stars and 'Trusted by 100,000+ users'."""
    return rx.hstack(
        rx.hstack(
            *[rx.icon("star", size=16, fill="#f59e0b", color="#f59e0b") for _ in range(5)],
            spacing="0",
        ),
        rx.text(messages.TRUSTED_BY, size="2", weight="medium", color_scheme="gray"),
        align="center",
        spacing="2",
        wrap="wrap",
    )


def _upload_zone() -> rx.Component:
    """Drag-and-drop zone and file picker: the chosen photo is kept for the session and
    carried to /upload ('Processing...' and the upload's progress while it travels)."""
    _busy = ScoreState.uploading | ScoreState.staging
    return image_drop_zone(
        rx.vstack(
            rx.center(
                rx.icon("image-up", size=30, color=styles.PINK),
                width="64px",
                height="64px",
                border_radius="50%",
                background="var(--pink-a3)",
            ),
            rx.heading(messages.TRY_IT_NOW_FREE, size="5", align="center"),
            rx.text(copy.HOME_DROP_HINT, size="2", color_scheme="gray", align="center"),
            rx.button(
                rx.icon("camera", size=18),
                rx.cond(_busy, messages.PROCESSING, messages.CHOOSE_PHOTO),
                loading=_busy,
                size="3",
                radius="full",
                style={**styles.GRADIENT_BUTTON, "white_space": "nowrap"},
                type="button",
            ),
            upload_progress_bar(),
            rx.text(UPLOAD_FORMATS_HINT, size="1", color_scheme="gray"),
            align="center",
            spacing="3",
            width="100%",
        ),
        upload_id=HOME_UPLOAD_ID,
        input_label=copy.HOME_DROP_HINT,
        on_drop=upload_on_drop(ScoreState, ScoreState.upload_from_home, HOME_UPLOAD_ID),
        on_drop_rejected=ScoreState.reject_drop(REJECTED_DROP_CODES),
        data_testid="home-upload-zone",
    )


def _hero() -> rx.Component:
    """Headline, promise and trust line beside the upload card."""
    return rx.grid(
        rx.vstack(
            rx.badge(rx.icon("sparkles", size=14), copy.HOME_HERO_BADGE, radius="full", size="2"),
            rx.heading(
                copy.HOME_HERO_TITLE,
                size=rx.breakpoints(initial="8", md="9"),
                style=styles.GRADIENT_TEXT,
                line_height="1.1",
            ),
            rx.text(copy.HOME_HERO_SUBTITLE, size="4", color_scheme="gray"),
            _trusted_by(),
            spacing="4",
            justify="center",
        ),
        card(_upload_zone(), padding="0.75rem"),
        columns=rx.breakpoints(initial="1", md="2"),
        spacing="6",
        align="center",
        width="100%",
        padding_y=rx.breakpoints(initial="0.5rem", sm="2rem"),
    )


def _testimonial(item: copy.Testimonial) -> rx.Component:
    """One static testimonial card."""
    return card(
        rx.vstack(
            rx.icon("quote", size=24, color=styles.PURPLE),
            rx.text(item.quote, size="3"),
            rx.hstack(
                rx.avatar(fallback=item.name[0], radius="full", size="2"),
                rx.vstack(
                    rx.text(item.name, weight="bold", size="2"),
                    rx.text(item.detail, size="1", color_scheme="gray"),
                    spacing="0",
                ),
                align="center",
            ),
            spacing="3",
            justify="between",
            height="100%",
        ),
        height="100%",
    )


def _final_call_to_action() -> rx.Component:
    """Closing banner: one more invitation to /upload, with the Terms of Use link."""
    return rx.box(
        rx.vstack(
            rx.heading(copy.HOME_CTA_TITLE, size="7", color="white", align="center"),
            rx.text(copy.HOME_CTA_BODY, size="4", color="white", align="center", opacity="0.9"),
            link_button(
                messages.TRY_IT_NOW_FREE,
                routes.UPLOAD,
                "sparkles",
                size="4",
                style={"background": "white", "color": styles.PINK_TEXT, "font_weight": "600"},
                data_testid="home-cta",
            ),
            terms_link(color="white", opacity="0.85"),
            align="center",
            spacing="4",
        ),
        background=styles.BRAND_GRADIENT,
        border_radius="28px",
        padding=rx.breakpoints(initial="2.5rem 1.25rem", sm="3.5rem 2rem"),
        margin_top="1.5rem",
    )


def home() -> rx.Component:
    """Home (document 000 §2): hero with upload, examples, steps, values, voices, call."""
    return page_layout(
        _hero(),
        section(
            copy.HOME_EXAMPLES_TITLE,
            responsive_grid(
                *[score_example_card(s, label) for s, label in messages.EXAMPLE_SCORES]
            ),
        ),
        section(
            copy.HOME_STEPS_TITLE,
            responsive_grid(
                *[
                    feature_card(b.icon, b.title, b.body, step=n)
                    for n, b in enumerate(copy.HOME_STEPS, 1)
                ]
            ),
        ),
        section(
            copy.HOME_VALUES_TITLE,
            responsive_grid(*[feature_card(b.icon, b.title, b.body) for b in copy.HOME_VALUES]),
        ),
        section(
            copy.HOME_TESTIMONIALS_TITLE,
            responsive_grid(*[_testimonial(t) for t in copy.HOME_TESTIMONIALS]),
        ),
        _final_call_to_action(),
    )


# ---------------------------------------------------------------------------
# How It Works
# ---------------------------------------------------------------------------
_HOW_STEPS = (
    ("upload", messages.STEP_UPLOAD),
    ("scan-face", messages.STEP_AI_ANALYSIS),
    ("sparkles", messages.STEP_GET_SCORE),
)
_HOW_ASPECTS = (
    ("scale", messages.ASPECT_FACIAL_SYMMETRY),
    ("ratio", messages.ASPECT_GOLDEN_RATIO),
    ("gem", messages.ASPECT_FEATURE_HARMONY),
    ("heart", messages.ASPECT_OVERALL_BALANCE),
)


def how_it_works() -> rx.Component:
    """How It Works (document 000 §2): steps, analysed aspects, privacy, disclaimer, CTA."""
    steps = zip(_HOW_STEPS, copy.HOW_STEP_BODIES, strict=True)
    aspects = zip(_HOW_ASPECTS, copy.how_aspect_bodies(analysis.term_shares()), strict=True)
    return page_layout(
        page_header(messages.NAV_HOW_IT_WORKS, copy.HOW_SUBTITLE, icon="wand-sparkles"),
        responsive_grid(
            *[
                feature_card(icon, title, body, step=n)
                for n, ((icon, title), body) in enumerate(steps, 1)
            ]
        ),
        section(
            copy.HOW_ASPECTS_TITLE,
            rx.grid(
                *[feature_card(icon, title, body) for (icon, title), body in aspects],
                columns=rx.breakpoints(initial="1", xs="2", md="4"),
                spacing="4",
                width="100%",
            ),
        ),
        section(
            copy.HOW_PRIVACY_TITLE,
            responsive_grid(
                *[feature_card(b.icon, b.title, b.body) for b in copy.HOW_PRIVACY_CARDS]
            ),
        ),
        card(disclaimer(), margin_y="1rem"),
        rx.center(
            link_button(messages.TRY_IT_NOW, routes.UPLOAD, "sparkles", size="4"),
            padding_y="1.5rem",
        ),
    )


# ---------------------------------------------------------------------------
# Privacy Policy and Terms of Use
# ---------------------------------------------------------------------------
def _policy_section(title: str, paragraphs: tuple[str, ...]) -> rx.Component:
    """A headed block of the policy."""
    return rx.vstack(
        rx.heading(title, size="5"),
        *[rx.text(p, size="3", color_scheme="gray") for p in paragraphs],
        spacing="2",
        width="100%",
    )


def _bullets(items: tuple[str, ...]) -> rx.Component:
    """A bulleted list of short statements."""
    return rx.list.unordered(
        *[rx.list.item(rx.text(item, size="3", color_scheme="gray")) for item in items],
        spacing="2",
        padding_left="1.25rem",
    )


def _contact_line() -> rx.Component:
    """The policy's contact link (a mailto)."""
    address = messages.PRIVACY_CONTACT_EMAIL
    return rx.text(
        copy.PRIVACY_CONTACT_BODY,
        " ",
        rx.link(address, href=f"mailto:{address}", weight="medium", color_scheme="pink"),
        ".",
        size="3",
        color_scheme="gray",
    )


def _terms_section() -> rx.Component:
    """The Terms of Use, anchored at #terms: the target of every Terms of Use link."""
    return rx.vstack(
        rx.heading(messages.TERMS_OF_USE, size="6"),
        rx.text(copy.TERMS_INTRO, size="3", color_scheme="gray"),
        _bullets(copy.TERMS_ITEMS),
        id=TERMS_ANCHOR,
        spacing="3",
        width="100%",
        style={"scroll_margin_top": "80px"},
    )


def privacy() -> rx.Component:
    """Privacy Policy (document 000 §2), dated today on every view, followed by the Terms."""
    return page_layout(
        page_header(messages.PRIVACY_POLICY, icon="shield-check"),
        rx.center(
            rx.cond(
                PrivacyState.last_updated != "",
                rx.badge(PrivacyState.last_updated, size="2", radius="full", variant="soft"),
            ),
            data_testid="privacy-last-updated",
            margin_bottom="1.5rem",
        ),
        card(
            rx.vstack(
                rx.text(copy.PRIVACY_INTRO, size="4"),
                *[_policy_section(title, body) for title, body in copy.PRIVACY_SECTIONS],
                rx.heading(copy.PRIVACY_RIGHTS_TITLE, size="5"),
                _bullets(copy.PRIVACY_RIGHTS),
                rx.heading(copy.PRIVACY_CONTACT_TITLE, size="5"),
                _contact_line(),
                rx.divider(margin_y="1rem"),
                _terms_section(),
                spacing="4",
                width="100%",
            ),
            padding=rx.breakpoints(initial="1.25rem", sm="2.5rem"),
        ),
        max_width="860px",
    )


# ---------------------------------------------------------------------------
# Not found and placeholders
# ---------------------------------------------------------------------------
def not_found() -> rx.Component:
    """Any unknown path (document 000 §2 Not found): 404, the apology, a way home."""
    return page_layout(
        rx.center(
            rx.vstack(
                rx.text(
                    messages.NOT_FOUND_CODE,
                    font_size=rx.breakpoints(initial="6rem", sm="8rem"),
                    weight="bold",
                    line_height="1",
                    style=styles.GRADIENT_TEXT,
                ),
                rx.heading(messages.NOT_FOUND_TITLE, size="7", align="center"),
                link_button(messages.RETURN_TO_HOME, "/", "house"),
                align="center",
                spacing="5",
            ),
            padding_y="5rem",
        ),
    )


def register(app: rx.App) -> None:
    """Add the site pages and the 404 page to ``app``."""
    load = AuthState.load_session
    app.add_page(
        home, route=routes.HOME, title=messages.page_title(copy.HOME_HERO_TITLE), on_load=load
    )
    app.add_page(
        how_it_works,
        route=routes.HOW_IT_WORKS,
        title=messages.page_title(messages.NAV_HOW_IT_WORKS),
        on_load=load,
    )
    app.add_page(
        privacy,
        route=routes.PRIVACY,
        title=messages.page_title(messages.PRIVACY_POLICY),
        on_load=[load, PrivacyState.stamp_today, _SCROLL_TO_HASH],
    )
    app.add_page(
        not_found,
        route="404",
        title=messages.page_title(messages.NOT_FOUND_TITLE),
        on_load=load,
    )
