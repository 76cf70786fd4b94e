"""Admin pages (document 001 §2): /admin/partners, /admin/payouts, /admin/verification.

Each is guarded on the server: visitors go to /auth, members are refused with the page's
message and sent home, and every action checks the role again. Names, reasons, notes and
links are the members' own words: shown as text, never as markup or as links.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.admin.state import (
    APPROVE_WAIT,
    MARK_PAID_WAIT,
    PARTNER_FILTERS,
    PARTNER_STATUS_WAIT,
    REJECT_WAIT,
    PartnersAdminState,
    PartnerView,
    PayoutsAdminState,
    PayoutView,
    RequestView,
    UnpaidView,
    VerificationAdminState,
)
from prettyscore.core import messages, routes
from prettyscore.partners import programme
from prettyscore.partners.models import PartnerStatus
from prettyscore.ui.components import card, icon_button, link_button
from prettyscore.ui.layout import page_layout
from prettyscore.verification import service as verification
from prettyscore.verification.models import VerificationStatus

STATUS_COLOURS = {
    PartnerStatus.PENDING: "yellow",
    PartnerStatus.APPROVED: "green",
    PartnerStatus.SUSPENDED: "red",
    VerificationStatus.REJECTED: "red",
}


def _status_badge(status: rx.Var[str], label: rx.Var[str]) -> rx.Component:
    return rx.badge(
        label,
        color_scheme=rx.match(status, *STATUS_COLOURS.items(), "gray"),
        variant="soft",
        high_contrast=True,  # Radix's yellow and green on their soft backgrounds: 4.2:1
        data_testid="status-badge",
    )


def _admin_only(*children: rx.Component) -> rx.Component:
    """The page's body for admins; a spinner while the guard decides (or sends away)."""
    return page_layout(
        rx.cond(
            AuthState.is_admin,
            rx.vstack(*children, spacing="4", width="100%"),
            rx.center(rx.spinner(size="3"), padding="4em", width="100%"),
        )
    )


def _heading(title: str, *actions: rx.Component) -> rx.Component:
    return rx.hstack(
        rx.heading(title, size="7"),
        rx.spacer(),
        *actions,
        align="center",
        width="100%",
        wrap="wrap",
        spacing="3",
    )


def _loading_or(loaded: rx.Var[bool], body: rx.Component) -> rx.Component:
    return rx.cond(loaded, body, rx.center(rx.spinner(size="3"), padding="3em", width="100%"))


def _who(name: rx.Var[str], detail: rx.Var[str]) -> rx.Component:
    return rx.vstack(
        rx.text(name, weight="bold", overflow_wrap="anywhere"),
        rx.text(detail, size="1", color_scheme="gray", overflow_wrap="anywhere"),
        spacing="0",
        min_width="0",
    )


# Narrower than this, a table shows each row as a card: one line per cell, its column's
# name before it (from the cell's data-label), and no header row.
CARD_ROWS_MEDIA = "@media (max-width: 1099px)"
_CARD_ROWS = {
    CARD_ROWS_MEDIA: {
        "& thead": {"display": "none"},
        "& table, & tbody, & tr, & td": {"display": "block", "width": "100%"},
        # Radix gives the table height 0 (for its cells' sake); as a block it needs its own.
        "& table": {"height": "auto"},
        "& tr": {"padding": "0.5rem 0", "border_bottom": "1px solid var(--gray-a5)"},
        "& tr:last-child": {"border_bottom": "none"},
        "& td": {
            "display": "flex",
            "align_items": "center",
            "justify_content": "space-between",
            "flex_wrap": "wrap",
            "gap": "0.25rem 0.75rem",
            "box_shadow": "none",
            "padding": "0.35rem 0.75rem",
            "min_height": "0",
        },
        "& td::before": {
            "content": "attr(data-label)",
            "font_weight": "500",
            "color": "var(--gray-11)",
        },
        "& td[data-label='']::before": {"display": "none"},
    },
    # Wide enough for columns: headers and figures wrap between words, never inside one;
    # only names and emails (``_who``) may break anywhere, so that they never widen it.
    "& td, & th": {"overflow_wrap": "normal", "word_break": "normal"},
}


def _row(columns: tuple[str, ...], *cells: rx.Component, **props) -> rx.Component:
    """A table row whose cells carry their column's name (shown when rows are cards)."""
    return rx.table.row(
        *[
            rx.table.cell(cell, data_label=column)
            for column, cell in zip(columns, cells, strict=True)
        ],
        **props,
    )


def _table(columns: tuple[str, ...], rows: rx.Component, **props) -> rx.Component:
    return rx.box(
        rx.table.root(
            rx.table.header(
                rx.table.row(*[rx.table.column_header_cell(column) for column in columns])
            ),
            rx.table.body(rows),
            variant="surface",
            width="100%",
            **props,
        ),
        width="100%",
        style=_CARD_ROWS,
        data_testid="admin-table",
    )


# ---------------------------------------------------------------------------
# /admin/partners
# ---------------------------------------------------------------------------
def _filter_buttons() -> rx.Component:
    return rx.hstack(
        *[
            rx.button(
                label,
                on_click=PartnersAdminState.show_status(key),
                variant=rx.cond(PartnersAdminState.status_filter == key, "solid", "outline"),
                aria_pressed=rx.cond(PartnersAdminState.status_filter == key, "true", "false"),
                disabled=~rx.State.is_hydrated,
                radius="full",
                # White on Radix's pink reads at 4.1:1; on the darkest pink, 10:1.
                high_contrast=True,
            )
            for key, label in PARTNER_FILTERS
        ],
        spacing="2",
        wrap="wrap",
        role="group",
        aria_label="Filter partners by status",
    )


def _tier_select(row: rx.Var[PartnerView]) -> rx.Component:
    return rx.hstack(
        rx.select.root(
            rx.select.trigger(aria_label="Tier"),
            rx.select.content(
                *[rx.select.item(tier.name, value=tier.key) for tier in programme.TIERS.values()]
            ),
            value=row.tier,
            on_change=lambda tier: PartnersAdminState.set_tier(row.id, tier),
            size="2",
        ),
        rx.text(row.commission, size="2", color_scheme="gray", data_testid="commission"),
        align="center",
        spacing="2",
    )


# The documents' moves (001 §4), by the partner's status: (icon, label, new status, look).
STATUS_ACTIONS = {
    PartnerStatus.PENDING: (
        "check",
        messages.PARTNER_APPROVE,
        PartnerStatus.APPROVED,
        "green",
        "solid",
    ),
    PartnerStatus.APPROVED: (
        "ban",
        messages.PARTNER_SUSPEND,
        PartnerStatus.SUSPENDED,
        "red",
        "soft",
    ),
    PartnerStatus.SUSPENDED: (
        "rotate-ccw",
        messages.PARTNER_REACTIVATE,
        PartnerStatus.APPROVED,
        "pink",
        "soft",
    ),
}


#: For an action whose work the server does not mark as under way.
_NOTHING_UNDER_WAY = rx.Var.create(False)


def _status_action(row: rx.Var[PartnerView]) -> rx.Component:
    """Only the documents' moves: approve pending, suspend approved, reactivate suspended."""
    return rx.match(
        row.status,
        *[
            (
                status,
                icon_button(
                    icon,
                    label,
                    on_click=PARTNER_STATUS_WAIT.send(
                        PartnersAdminState.set_status, row.id, target
                    ),
                    loading=PARTNER_STATUS_WAIT.busy_for(row.id, _NOTHING_UNDER_WAY),
                    disabled=PARTNER_STATUS_WAIT.pending.value,
                    color_scheme=colour,
                    variant=variant,
                    high_contrast=True,  # white on Radix's green reads at 3.2:1
                    size="2",
                ),
            )
            for status, (icon, label, target, colour, variant) in STATUS_ACTIONS.items()
        ],
        rx.fragment(),
    )


def _partner_row(row: rx.Var[PartnerView]) -> rx.Component:
    return _row(
        messages.PARTNER_COLUMNS,
        _who(row.display_name, row.email),
        rx.code(row.code),
        _status_badge(row.status, row.status_label),
        _tier_select(row),
        row.clicks,
        row.conversions,
        row.earned,
        _status_action(row),
        align="center",
        data_testid="partner-row",
        data_partner_id=row.id,
        data_code=row.code,
    )


def admin_partners_page() -> rx.Component:
    state = PartnersAdminState
    return _admin_only(
        _heading(
            messages.ADMIN_PARTNERS_TITLE,
            link_button(messages.VIEW_PAYOUTS, routes.ADMIN_PAYOUTS, "wallet", size="2"),
        ),
        _filter_buttons(),
        PARTNER_STATUS_WAIT.no_answer_notice(
            _NOTHING_UNDER_WAY, retry=PARTNER_STATUS_WAIT.retry(state.set_status, 2)
        ),
        _loading_or(
            state.loaded,
            rx.cond(
                state.partners.length() > 0,
                _table(messages.PARTNER_COLUMNS, rx.foreach(state.partners, _partner_row)),
                rx.text(
                    rx.cond(
                        state.load_failed,
                        messages.FAILED_TO_LOAD_PARTNERS,
                        messages.NO_PARTNERS_FOUND,
                    ),
                    color_scheme="gray",
                ),
            ),
        ),
    )


# ---------------------------------------------------------------------------
# /admin/payouts
# ---------------------------------------------------------------------------
def _unpaid_count(row: rx.Var[UnpaidView]) -> rx.Component:
    """The partner's own unpaid conversions (counted as /admin/partners counts them),
    and their second-tier commissions beside, which the amount includes."""
    return rx.flex(
        rx.text(row.conversions, data_testid="unpaid-conversions"),
        rx.cond(
            row.second_tier > 0,
            rx.badge(
                "+",
                row.second_tier,
                " ",
                messages.PARTNER_SECOND_TIER_BADGE,
                color_scheme="pink",
                data_testid="unpaid-second-tier",
            ),
        ),
        gap="2",
        align="center",
        wrap="wrap",
    )


def _unpaid_row(row: rx.Var[UnpaidView]) -> rx.Component:
    return _row(
        messages.PAYOUT_COLUMNS,
        _who(row.display_name, row.email + " · " + row.code),
        _unpaid_count(row),
        row.amount,
        icon_button(
            "banknote",
            messages.MARK_AS_PAID,
            on_click=MARK_PAID_WAIT.send(PayoutsAdminState.mark_paid, row.partner_id),
            loading=MARK_PAID_WAIT.busy_for(
                row.partner_id, PayoutsAdminState.paying == row.partner_id
            ),
            disabled=~rx.State.is_hydrated | MARK_PAID_WAIT.busy(PayoutsAdminState.paying != ""),
            color_scheme="green",
            high_contrast=True,  # white on Radix's green reads at 3.2:1
            size="2",
        ),
        align="center",
        data_testid="unpaid-row",
        data_partner_id=row.partner_id,
    )


def _payout_row(row: rx.Var[PayoutView]) -> rx.Component:
    return _row(
        messages.PAYOUT_HISTORY_COLUMNS,
        _who(row.display_name, row.code),
        row.period,
        row.total,
        rx.badge(row.status, color_scheme="green", variant="soft", high_contrast=True),
        row.recorded,
        align="center",
        data_testid="payout-row",
        data_payout_id=row.id,
    )


def admin_payouts_page() -> rx.Component:
    state = PayoutsAdminState
    return _admin_only(
        _heading(
            messages.ADMIN_PAYOUTS_TITLE,
            link_button(
                messages.BACK_TO_PARTNERS,
                routes.ADMIN_PARTNERS,
                "arrow-left",
                primary=False,
                size="2",
            ),
        ),
        MARK_PAID_WAIT.no_answer_notice(
            state.paying != "", retry=MARK_PAID_WAIT.retry(state.mark_paid, 1)
        ),
        _loading_or(
            state.loaded,
            rx.vstack(
                rx.cond(
                    state.unpaid.length() > 0,
                    _table(messages.PAYOUT_COLUMNS, rx.foreach(state.unpaid, _unpaid_row)),
                    rx.text(messages.NO_UNPAID_CONVERSIONS, color_scheme="gray"),
                ),
                rx.heading(messages.RECENT_PAYOUTS, size="5", padding_top="1rem"),
                rx.cond(
                    state.payouts.length() > 0,
                    _table(
                        messages.PAYOUT_HISTORY_COLUMNS,
                        rx.foreach(state.payouts, _payout_row),
                        data_testid="recent-payouts",
                    ),
                    rx.text(messages.NO_PAYOUTS_YET, color_scheme="gray"),
                ),
                spacing="3",
                width="100%",
            ),
        ),
    )


# ---------------------------------------------------------------------------
# /admin/verification
# ---------------------------------------------------------------------------
def _detail(label: str, value: rx.Var[str]) -> rx.Component:
    return rx.cond(
        value != "",
        rx.flex(
            rx.text(label, size="2", weight="medium", min_width="7rem"),
            rx.text(value, size="2", white_space="pre-wrap", overflow_wrap="anywhere"),
            gap="0 0.5rem",
            align="start",
            wrap="wrap",
        ),
    )


def _reviewing() -> rx.Var:
    """A review pressed and not yet answered, or under way: the others wait for it."""
    under_way = VerificationAdminState.reviewing != ""
    return ~rx.State.is_hydrated | APPROVE_WAIT.busy(under_way) | REJECT_WAIT.busy(under_way)


def _review_controls(row: rx.Var[RequestView]) -> rx.Component:
    return rx.vstack(
        rx.text_area(
            placeholder=messages.ADMIN_NOTES_PLACEHOLDER,
            aria_label=messages.VERIFICATION_NOTES_LABEL,
            max_length=verification.MAX_ADMIN_NOTES,
            value=VerificationAdminState.notes[row.id],
            on_change=lambda text: VerificationAdminState.set_note(row.id, text),
            rows="2",
            width="100%",
        ),
        rx.hstack(
            icon_button(
                "check",
                messages.VERIFICATION_APPROVE,
                on_click=APPROVE_WAIT.send(VerificationAdminState.approve, row.id),
                loading=APPROVE_WAIT.busy_for(row.id, VerificationAdminState.reviewing == row.id),
                disabled=_reviewing(),
                color_scheme="green",
                high_contrast=True,  # white on Radix's green reads at 3.2:1
            ),
            icon_button(
                "x",
                messages.VERIFICATION_REJECT,
                on_click=REJECT_WAIT.send(VerificationAdminState.reject, row.id),
                loading=REJECT_WAIT.busy_for(row.id, _NOTHING_UNDER_WAY),
                disabled=_reviewing(),
                color_scheme="red",
                variant="soft",
            ),
            spacing="2",
        ),
        spacing="2",
        width="100%",
    )


def _request_card(row: rx.Var[RequestView]) -> rx.Component:
    return card(
        rx.vstack(
            rx.hstack(
                _who(row.full_name, row.email),
                rx.spacer(),
                _status_badge(row.status, row.status_label),
                align="center",
                width="100%",
            ),
            _detail(messages.VERIFICATION_REASON_LABEL, row.reason),
            _detail(messages.VERIFICATION_INSTAGRAM_LABEL, row.instagram),
            _detail(messages.VERIFICATION_OTHER_SOCIAL_LABEL, row.other_social),
            _detail(messages.VERIFICATION_SUBMITTED_LABEL, row.submitted),
            _detail(messages.VERIFICATION_NOTES_LABEL, row.admin_notes),
            rx.cond(row.status == VerificationStatus.PENDING, _review_controls(row)),
            spacing="2",
            width="100%",
        ),
        data_testid="verification-request",
        data_request_id=row.id,
        width="100%",
    )


def admin_verification_page() -> rx.Component:
    state = VerificationAdminState
    return _admin_only(
        _heading(messages.ADMIN_VERIFICATION_TITLE),
        APPROVE_WAIT.no_answer_notice(
            state.reviewing != "", retry=APPROVE_WAIT.retry(state.approve, 1)
        ),
        REJECT_WAIT.no_answer_notice(
            state.reviewing != "", retry=REJECT_WAIT.retry(state.reject, 1)
        ),
        _loading_or(
            state.loaded,
            rx.cond(
                state.requests.length() > 0,
                rx.vstack(rx.foreach(state.requests, _request_card), spacing="3", width="100%"),
                rx.text(messages.NO_VERIFICATION_REQUESTS, color_scheme="gray"),
            ),
        ),
    )


# (route, page, heading, on_load): the verification page has its own refusal text.
ADMIN_PAGES = (
    (
        routes.ADMIN_PARTNERS,
        admin_partners_page,
        messages.ADMIN_PARTNERS_TITLE,
        [AuthState.require_admin, PartnersAdminState.open_page],
    ),
    (
        routes.ADMIN_PAYOUTS,
        admin_payouts_page,
        messages.ADMIN_PAYOUTS_TITLE,
        [AuthState.require_admin, PayoutsAdminState.open_page],
    ),
    (
        routes.ADMIN_VERIFICATION,
        admin_verification_page,
        messages.ADMIN_VERIFICATION_TITLE,
        [AuthState.require_verification_admin, VerificationAdminState.open_page],
    ),
)


def register(app: rx.App) -> None:
    """Add the admin pages to the app."""
    for route, page, heading, on_load in ADMIN_PAGES:
        app.add_page(page, route=route, title=messages.page_title(heading), on_load=on_load)
