"""The partner programme's pages (document 001 §2 partner screens).

- /partners: 'Partner With Us', the three tiers, four benefits, 'Apply Now' and
  'View Leaderboard', and the two-tier sub-affiliate programme.
- /partners/apply: Display Name, Custom Short Code, Preferred Promo Code.
- /partners/portal: the partner's status, figures, link, promo code and conversions.
- /partners/leaderboard: the top 10 approved partners by total earned.

Display names are the partners' own words: shown as text, never as markup.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.core import messages, routes
from prettyscore.partners import service
from prettyscore.partners.models import PartnerStatus
from prettyscore.partners.programme import ELITE, TIERS, PartnerTier
from prettyscore.partners.state import (
    PARTNER_APPLY_WAIT,
    ConversionRow,
    LeaderRow,
    PartnerApplyState,
    PartnerLeaderboardState,
    PartnerPortalState,
    PartnerProgrammeState,
)
from prettyscore.ui import styles
from prettyscore.ui.components import (
    card,
    feature_card,
    icon_button,
    link_button,
    page_header,
    responsive_grid,
    section,
)
from prettyscore.ui.layout import page_layout
from prettyscore.ui.share import copy_text_action

FORM_WIDTH = "560px"
BENEFIT_ICONS = ("percent", "link", "chart-line", "cookie", "tag")
# Badges of these colours are high-contrast: Radix's blue, green and yellow text on their
# soft backgrounds reads at 4.2:1 to 4.3:1, below WCAG's 4.5:1.
TIER_COLOURS = {"starter": "gray", "pro": "blue", "elite": "purple"}
FIRST_PLACE_BACKGROUND = "linear-gradient(135deg, #fef3c7 0%, #fde68a 100%)"
FIRST_PLACE_BORDER = "2px solid #f59e0b"


def _spinner() -> rx.Component:
    return rx.center(rx.spinner(size="3"), padding="3rem", width="100%")


def _tier_badge(tier_key: rx.Var[str], tier_name: rx.Var[str]) -> rx.Component:
    return rx.match(
        tier_key,
        *[
            (
                key,
                rx.badge(
                    tier_name,
                    color_scheme=colour,
                    variant="soft",
                    radius="full",
                    high_contrast=True,
                ),
            )
            for key, colour in TIER_COLOURS.items()
        ],
        rx.badge(tier_name, variant="soft", radius="full"),
    )


# ---------------------------------------------------------------------------
# /partners
# ---------------------------------------------------------------------------
def _landing_actions() -> rx.Component:
    return rx.flex(
        link_button(messages.PARTNERS_APPLY_NOW, routes.PARTNERS_APPLY, "user-plus"),
        link_button(
            messages.PARTNERS_VIEW_LEADERBOARD, routes.PARTNERS_LEADERBOARD, "trophy", primary=False
        ),
        spacing="3",
        justify="center",
        wrap="wrap",
    )


def _tier_card(tier: PartnerTier) -> rx.Component:
    top = tier is ELITE
    return card(
        rx.vstack(
            rx.badge(
                tier.name,
                size="3",
                radius="full",
                color_scheme=TIER_COLOURS[tier.key],
                high_contrast=True,
            ),
            rx.heading(f"{tier.commission_percent}%", size="9", style=styles.GRADIENT_TEXT),
            rx.text(
                messages.PARTNERS_TIER_COMMISSION.format(percent=tier.commission_percent),
                weight="medium",
            ),
            rx.text(messages.PARTNERS_TIER_BLURBS[tier.key], size="2", color_scheme="gray"),
            align="center",
            spacing="2",
        ),
        data_testid=f"tier-{tier.key}",
        border=f"2px solid {styles.PURPLE}" if top else styles.BORDER,
    )


def _sub_affiliate() -> rx.Component:
    return card(
        rx.hstack(
            rx.icon("network", size=32, color=styles.PINK, flex_shrink="0"),
            rx.vstack(
                rx.heading(messages.PARTNERS_SUB_AFFILIATE_HEADING, size="4"),
                rx.text(messages.PARTNERS_SUB_AFFILIATE_BODY, color_scheme="gray"),
                rx.badge(
                    PartnerProgrammeState.second_tier_rate,
                    color_scheme="pink",
                    size="2",
                    radius="full",
                    data_testid="second-tier-rate",
                ),
                rx.text(PartnerProgrammeState.second_tier_body, size="2", color_scheme="gray"),
                spacing="2",
                min_width="0",
            ),
            align="center",
            spacing="4",
        ),
        width="100%",
        data_testid="sub-affiliate",
    )


def partners_page() -> rx.Component:
    return page_layout(
        page_header(messages.TITLE_PARTNERS, messages.PARTNERS_SUBTITLE, icon="handshake"),
        _landing_actions(),
        section(
            messages.PARTNERS_TIERS_HEADING,
            responsive_grid(*[_tier_card(tier) for tier in TIERS.values()], columns=3),
        ),
        section(
            messages.PARTNERS_BENEFITS_HEADING,
            responsive_grid(
                *[
                    feature_card(icon, title, body)
                    for icon, (title, body) in zip(
                        BENEFIT_ICONS, messages.PARTNERS_BENEFITS, strict=True
                    )
                ],
                columns=2,
            ),
        ),
        _sub_affiliate(),
        rx.box(_landing_actions(), padding_y="2rem"),
    )


# ---------------------------------------------------------------------------
# /partners/apply
# ---------------------------------------------------------------------------
def _field_error(name: str) -> rx.Component:
    return rx.cond(
        PartnerApplyState.error_field == name,
        rx.text(
            PartnerApplyState.error_message,
            size="2",
            color_scheme="red",
            role="alert",
            data_testid=f"error-{name}",
        ),
    )


def _field(name: str, label: str, hint: str = "", **input_props) -> rx.Component:
    """A labelled text input of the form, its hint, and its problem from the server."""
    extra = [rx.text(hint, size="1", color_scheme="gray")] if hint else []
    return rx.vstack(
        rx.text(label, size="2", weight="medium"),
        rx.input(name=name, aria_label=label, size="3", width="100%", **input_props),
        *extra,
        _field_error(name),
        spacing="1",
        width="100%",
    )


def _application_form() -> rx.Component:
    return rx.form(
        rx.vstack(
            _field(
                "display_name",
                messages.PARTNER_DISPLAY_NAME,
                max_length=service.MAX_DISPLAY_NAME,
            ),
            _field(
                "short_code",
                messages.PARTNER_SHORT_CODE,
                messages.PARTNER_SHORT_CODE_HINT,
                value=PartnerApplyState.short_code,
                # No max_length: typed symbols would count towards it before the server
                # strips them; the server keeps at most 10 as typed.
                on_change=PartnerApplyState.set_short_code,
                auto_complete="off",
            ),
            _field(
                "promo_code",
                messages.PARTNER_PROMO_CODE,
                messages.PARTNER_PROMO_CODE_HINT,
                value=PartnerApplyState.promo_code,
                on_change=PartnerApplyState.set_promo_code,
                max_length=service.MAX_PROMO_CODE,
                auto_complete="off",
            ),
            rx.flex(
                link_button(messages.PARTNER_CANCEL, routes.PARTNERS, primary=False),
                rx.button(
                    messages.PARTNER_SUBMIT_APPLICATION,
                    type="submit",
                    size="3",
                    radius="full",
                    loading=PARTNER_APPLY_WAIT.busy(PartnerApplyState.submitting),
                    disabled=PARTNER_APPLY_WAIT.busy(PartnerApplyState.submitting)
                    | ~rx.State.is_hydrated,
                    style=styles.GRADIENT_BUTTON,
                ),
                spacing="3",
                justify="end",
                width="100%",
            ),
            PARTNER_APPLY_WAIT.attempt_field(),
            PARTNER_APPLY_WAIT.no_answer_notice(PartnerApplyState.submitting),
            spacing="4",
            width="100%",
        ),
        on_submit=PARTNER_APPLY_WAIT.submit(PartnerApplyState.submit),
        reset_on_submit=False,
        no_validate=True,
        width="100%",
        data_testid="partner-application-form",
    )


def apply_page() -> rx.Component:
    return page_layout(
        page_header(messages.TITLE_PARTNER_APPLY, messages.PARTNER_APPLY_SUBTITLE, "handshake"),
        rx.box(
            rx.cond(PartnerApplyState.ready, card(_application_form()), _spinner()),
            width="100%",
            max_width=FORM_WIDTH,
            margin_x="auto",
        ),
    )


# ---------------------------------------------------------------------------
# /partners/portal
# ---------------------------------------------------------------------------
def _status_badge() -> rx.Component:
    """Green when approved, yellow while pending, red otherwise (document 001 §4)."""

    def badge(colour: str) -> rx.Component:
        return rx.badge(
            PartnerPortalState.status_label,
            color_scheme=colour,
            size="3",
            radius="full",
            high_contrast=True,
            data_testid="partner-status",
            data_colour=colour,
        )

    return rx.match(
        PartnerPortalState.status,
        (PartnerStatus.APPROVED, badge("green")),
        (PartnerStatus.PENDING, badge("yellow")),
        badge("red"),
    )


def _stat(label: str, value: rx.Var, test_id: str, *detail: rx.Component) -> rx.Component:
    return card(
        rx.vstack(
            rx.text(label, size="2", color_scheme="gray"),
            rx.text(value, size="6", weight="bold", data_testid=test_id),
            *detail,
            spacing="1",
        ),
    )


def _copyable(label: str, value: rx.Var, copy_label: str, copied_text: str, test_id: str):
    return rx.vstack(
        rx.text(label, size="2", weight="medium"),
        rx.hstack(
            rx.code(
                value,
                size="3",
                variant="soft",
                data_testid=test_id,
                style={"overflow_wrap": "anywhere", "padding": "0.5rem 0.75rem"},
                flex="1",
            ),
            icon_button(
                "copy",
                copy_label,
                on_click=copy_text_action(value, copied_text),
                variant="soft",
                radius="full",
                type="button",
            ),
            align="center",
            spacing="3",
            width="100%",
        ),
        spacing="2",
        width="100%",
    )


def _sharing() -> rx.Component:
    return card(
        rx.vstack(
            _copyable(
                messages.PARTNER_REFERRAL_LINK,
                PartnerPortalState.referral_link,
                messages.PARTNER_COPY_LINK,
                messages.REFERRAL_LINK_COPIED,
                "referral-link",
            ),
            rx.cond(
                PartnerPortalState.promo_code != "",
                _copyable(
                    messages.PARTNER_PROMO_CODE_LABEL,
                    PartnerPortalState.promo_code,
                    messages.PARTNER_COPY_PROMO,
                    messages.PROMO_CODE_COPIED,
                    "promo-code",
                ),
                rx.vstack(
                    rx.text(messages.PARTNER_PROMO_CODE_LABEL, size="2", weight="medium"),
                    rx.text(messages.PARTNER_NO_PROMO_CODE, size="2", color_scheme="gray"),
                    spacing="2",
                ),
            ),
            spacing="4",
            width="100%",
        ),
        width="100%",
    )


def _conversion_amount(row: rx.Var[ConversionRow]) -> rx.Component:
    return rx.flex(
        rx.text(row.amount),
        rx.cond(
            row.second_tier,
            rx.badge(
                messages.PARTNER_SECOND_TIER_BADGE,
                color_scheme="pink",
                data_testid="second-tier-badge",
            ),
        ),
        gap="1",
        wrap="wrap",
        align="center",
    )


def _conversion_status(row: rx.Var[ConversionRow]) -> rx.Component:
    return rx.match(
        row.status,
        ("paid", rx.badge(row.status_label, color_scheme="green", high_contrast=True)),
        ("reversed", rx.badge(row.status_label, color_scheme="red")),
        rx.badge(row.status_label, color_scheme="gray"),
    )


def _conversion_line(row: rx.Var[ConversionRow]) -> rx.Component:
    return rx.table.row(
        rx.table.cell(row.date),
        rx.table.cell(_conversion_amount(row)),
        rx.table.cell(row.commission),
        rx.table.cell(_conversion_status(row)),
        data_testid="conversion-row",
    )


def _conversion_item(row: rx.Var[ConversionRow]) -> rx.Component:
    """One conversion on a phone: the sale and its date, then the commission and its
    status, in two lines that fit the width (a four-column table does not)."""
    return rx.flex(
        rx.vstack(
            _conversion_amount(row),
            rx.text(row.date, size="1", color_scheme="gray"),
            spacing="1",
            min_width="0",
        ),
        rx.vstack(
            rx.text(messages.PARTNER_COLUMN_COMMISSION, ": ", row.commission, size="2"),
            _conversion_status(row),
            spacing="1",
            align="end",
        ),
        justify="between",
        gap="3",
        width="100%",
        padding_y="0.5rem",
        border_bottom="1px solid var(--gray-a4)",
        data_testid="conversion-item",
    )


def _conversions() -> rx.Component:
    headers = (
        messages.PARTNER_COLUMN_DATE,
        messages.PARTNER_COLUMN_AMOUNT,
        messages.PARTNER_COLUMN_COMMISSION,
        messages.PARTNER_COLUMN_STATUS,
    )
    return card(
        rx.vstack(
            rx.heading(messages.PARTNER_RECENT_CONVERSIONS, size="4"),
            rx.cond(
                PartnerPortalState.conversions.length() > 0,
                rx.box(
                    rx.mobile_only(
                        rx.foreach(PartnerPortalState.conversions, _conversion_item),
                        width="100%",
                    ),
                    rx.tablet_and_desktop(
                        rx.table.root(
                            rx.table.header(
                                rx.table.row(
                                    *[rx.table.column_header_cell(text) for text in headers]
                                )
                            ),
                            rx.table.body(
                                rx.foreach(PartnerPortalState.conversions, _conversion_line)
                            ),
                            width="100%",
                        ),
                        width="100%",
                    ),
                    width="100%",
                ),
                rx.text(messages.PARTNER_NO_CONVERSIONS, color_scheme="gray"),
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
    )


def _portal_body() -> rx.Component:
    return rx.vstack(
        rx.hstack(
            _status_badge(),
            rx.cond(
                PartnerPortalState.status == PartnerStatus.PENDING,
                rx.text(messages.APPLICATION_UNDER_REVIEW, color_scheme="amber", weight="medium"),
            ),
            align="center",
            spacing="3",
            wrap="wrap",
        ),
        rx.grid(
            _stat(messages.PARTNER_CLICKS, PartnerPortalState.clicks, "partner-clicks"),
            _stat(
                messages.PARTNER_CONVERSIONS,
                PartnerPortalState.conversion_count,
                "partner-conversions",
            ),
            _stat(
                messages.PARTNER_TOTAL_EARNED,
                PartnerPortalState.total_earned,
                "partner-earned",
                rx.text(
                    PartnerPortalState.second_tier_earned,
                    size="2",
                    color_scheme="gray",
                    data_testid="partner-second-tier",
                ),
            ),
            _stat(
                messages.PARTNER_TIER,
                PartnerPortalState.tier_name,
                "partner-tier",
                rx.text(
                    PartnerPortalState.commission,
                    size="2",
                    color_scheme="gray",
                    data_testid="partner-commission",
                ),
            ),
            columns=rx.breakpoints(initial="2", md="4"),
            spacing="4",
            width="100%",
        ),
        _sharing(),
        _conversions(),
        link_button(
            messages.PARTNERS_VIEW_LEADERBOARD, routes.PARTNERS_LEADERBOARD, "trophy", primary=False
        ),
        spacing="5",
        width="100%",
        data_testid="partner-portal",
    )


def portal_page() -> rx.Component:
    return page_layout(
        page_header(messages.TITLE_PARTNER_PORTAL, messages.PARTNER_PORTAL_SUBTITLE, "handshake"),
        rx.cond(PartnerPortalState.loaded, _portal_body(), _spinner()),
    )


# ---------------------------------------------------------------------------
# /partners/leaderboard
# ---------------------------------------------------------------------------
def _leader_line(row: rx.Var[LeaderRow]) -> rx.Component:
    first = row.rank == 1
    return rx.box(
        rx.hstack(
            rx.center(
                rx.cond(
                    first,
                    rx.icon("crown", size=24, color="#d97706"),
                    rx.text("#", row.rank, weight="bold", color_scheme="gray"),
                ),
                min_width="2.5rem",
                aria_label="Rank " + row.rank.to_string(),
            ),
            rx.text(
                row.display_name,
                weight="medium",
                flex="1",
                min_width="0",
                overflow_wrap="anywhere",
                data_testid="leader-name",
            ),
            _tier_badge(row.tier, row.tier_name),
            rx.text(row.total_earned, weight="bold", data_testid="leader-earned"),
            align="center",
            spacing="3",
            # On a phone a long name or a large sum moves to the next line, not off screen.
            flex_wrap="wrap",
            width="100%",
        ),
        style=styles.CARD,
        background=rx.cond(first, FIRST_PLACE_BACKGROUND, "white"),
        border=rx.cond(first, FIRST_PLACE_BORDER, styles.BORDER),
        padding="1rem 1.25rem",
        width="100%",
        data_testid="leader-row",
        data_first=rx.cond(first, "true", "false"),
    )


def leaderboard_page() -> rx.Component:
    return page_layout(
        page_header(
            messages.TITLE_PARTNER_LEADERBOARD, messages.PARTNER_LEADERBOARD_SUBTITLE, "trophy"
        ),
        rx.box(
            rx.cond(
                PartnerLeaderboardState.loaded,
                rx.cond(
                    PartnerLeaderboardState.leaders.length() > 0,
                    rx.vstack(
                        rx.foreach(PartnerLeaderboardState.leaders, _leader_line),
                        spacing="3",
                        width="100%",
                    ),
                    card(
                        rx.text(messages.NO_PARTNERS_ON_LEADERBOARD, align="center"),
                        width="100%",
                        data_testid="leaderboard-empty",
                    ),
                ),
                _spinner(),
            ),
            rx.center(
                link_button(
                    messages.PARTNER_BECOME_ONE, routes.PARTNERS, "handshake", primary=False
                ),
                padding_top="2rem",
            ),
            width="100%",
            max_width="720px",
            margin_x="auto",
        ),
    )


def register(app: rx.App) -> None:
    """Add /partners, /partners/apply, /partners/portal and /partners/leaderboard."""
    pages = (
        (partners_page, routes.PARTNERS, messages.TITLE_PARTNERS, AuthState.load_session),
        (
            apply_page,
            routes.PARTNERS_APPLY,
            messages.TITLE_PARTNER_APPLY,
            PartnerApplyState.open_page,
        ),
        (
            portal_page,
            routes.PARTNERS_PORTAL,
            messages.TITLE_PARTNER_PORTAL,
            PartnerPortalState.open_page,
        ),
        (
            leaderboard_page,
            routes.PARTNERS_LEADERBOARD,
            messages.TITLE_PARTNER_LEADERBOARD,
            PartnerLeaderboardState.open_page,
        ),
    )
    for body, route, heading, on_load in pages:
        app.add_page(body, route=route, title=messages.page_title(heading), on_load=on_load)
