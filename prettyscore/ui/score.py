"""The result's own components: score circle, tier badge, breakdown bars, the special tier
panels and the footer challenge card (document 000 §2 Results, §4 tiers, §9).

Pure functions: each takes Reflex Vars (or plain values, which are wrapped) and event
handlers, and returns a component. They hold no state; the results page decides what to
pass, e.g. which special panel applies and what a claim button does.
"""

from typing import Any

import reflex as rx
from reflex.vars import FunctionStringVar

from prettyscore.core import messages, routes
from prettyscore.ui import styles
from prettyscore.ui.components import link_button

# Special panel kinds (the ``kind`` argument of ``special_panel``); "" shows nothing.
WORLD_RECORD = "world_record"
ELITE_STATUS = "elite_status"
EXCEPTIONAL_SCORE = "exceptional_score"

# Where the footer card and the exceptional panel lead.

# Score as shown: one decimal, without a trailing ".0" (8.7, 9, 10): the browser's copy
# of ``analysis.tiers.score_text``, the one rule (tests/scoring/test_score_text.py).
_FORMAT_SCORE_JS = FunctionStringVar.create("((s) => String(Number(Number(s).toFixed(1))))")
# Sub-scores always show one decimal (8.0, 8.4), as the documents specify.
_ONE_DECIMAL_JS = FunctionStringVar.create("((v) => Number(v).toFixed(1))")


def format_score_var(score: Any) -> rx.Var[str]:
    """``analysis.tiers.score_text`` for a Var (evaluated in the browser)."""
    return _FORMAT_SCORE_JS.call(rx.Var.create(score)).to(str)


def _one_decimal(value: Any) -> rx.Var[str]:
    return _ONE_DECIMAL_JS.call(rx.Var.create(value)).to(str)


def _readable(color: Any) -> rx.Var[str]:
    """The tier colour darkened enough to read as text on white (any tier colour)."""
    return rx.Var.create(f"color-mix(in srgb, {rx.Var.create(color)} 62%, black)").to(str)


def _tint(color: Any, percent: int) -> rx.Var[str]:
    """A pale wash of the tier colour for backgrounds."""
    return rx.Var.create(f"color-mix(in srgb, {rx.Var.create(color)} {percent}%, white)").to(str)


# ---------------------------------------------------------------------------
# Score circle and tier badge
# ---------------------------------------------------------------------------
def score_circle(
    score: Any, label: Any, emoji: Any, color: Any, *, with_label: bool = True
) -> rx.Component:
    """The big circular score: ``8.7`` over ``/10``, its ring filled to score/10 in the
    tier colour, with the tier emoji and label beneath (``with_label=False``: without
    them, for a page that shows them in the tier badge right under the circle).

    ``score`` is a Var[float] (1 to 10), ``label``, ``emoji`` and ``color`` Var[str] (any
    CSS colour). Plain values work too.
    """
    score, label, emoji, color = (rx.Var.create(v) for v in (score, label, emoji, color))
    shown = format_score_var(score)
    ring = f"conic-gradient({color} 0 {score * 10}%, var(--gray-a3) {score * 10}% 100%)"
    size = rx.breakpoints(initial="176px", sm="208px")
    return rx.vstack(
        rx.center(
            rx.center(
                rx.vstack(
                    rx.text(
                        shown,
                        as_="span",
                        weight="bold",
                        line_height="1",
                        color="var(--gray-12)",
                        font_size=rx.breakpoints(initial="3.25rem", sm="4rem"),
                        letter_spacing="-0.02em",
                        data_testid="score-value",
                    ),
                    rx.text(
                        messages.SCORE_OUT_OF_TEN,
                        as_="span",
                        size="3",
                        weight="medium",
                        color="var(--gray-11)",
                    ),
                    align="center",
                    spacing="1",
                ),
                width="calc(100% - 28px)",
                height="calc(100% - 28px)",
                border_radius="50%",
                background="white",
                box_shadow="inset 0 2px 10px rgba(168, 85, 247, 0.10)",
            ),
            width=size,
            height=size,
            border_radius="50%",
            background=ring,
            box_shadow=f"0 14px 40px {_tint(color, 40)}",
            role="img",
            aria_label=(
                messages.SCORE_ARIA_LABEL.format(score=shown, label=label)
                if with_label
                else messages.SCORE_ONLY_ARIA_LABEL.format(score=shown)
            ),
        ),
        *(_circle_label(label, emoji, color) if with_label else ()),
        align="center",
        spacing="3",
        data_testid="score-circle",
    )


def _circle_label(label: rx.Var, emoji: rx.Var, color: rx.Var) -> tuple[rx.Component, ...]:
    return (
        rx.text(emoji, as_="span", font_size="2.25rem", line_height="1", aria_hidden="true"),
        rx.heading(
            label,
            as_="p",
            size=rx.breakpoints(initial="6", sm="7"),
            align="center",
            color=_readable(color),
            data_testid="score-label",
        ),
    )


def tier_badge(label: Any, emoji: Any, color: Any) -> rx.Component:
    """A pill with the tier emoji and label, tinted in the tier colour (Var[str] each)."""
    label, emoji, color = (rx.Var.create(v) for v in (label, emoji, color))
    return rx.hstack(
        rx.text(emoji, as_="span", aria_hidden="true", line_height="1"),
        rx.text(label, as_="span", weight="bold", size="2"),
        align="center",
        spacing="2",
        padding="0.4rem 0.95rem",
        border_radius="999px",
        border=f"1.5px solid {color}",
        background=_tint(color, 14),
        color=_readable(color),
        width="fit-content",
        data_testid="tier-badge",
    )


# ---------------------------------------------------------------------------
# Breakdown bars
# ---------------------------------------------------------------------------
def _breakdown_bar(
    item: rx.Var, *, with_share: bool = False, counted: bool = True, testid: str = "breakdown-bar"
) -> rx.Component:
    """One bar: its name (``with_share``: and how much it counts, when the row says),
    its value out of 10, and the bar; one ``counted=False`` is grey, not the brand's."""
    name = item["name"].to(str)
    value = item["value"].to(float)
    shown = _one_decimal(value)
    title = rx.text(name, size="3", weight="medium")
    if with_share:
        share = item["share"].to(str)
        title = rx.hstack(
            title,
            rx.cond(
                share != "",
                rx.text(share, size="2", color="var(--gray-11)", data_testid="breakdown-share"),
            ),
            align="baseline",
            spacing="2",
            wrap="wrap",
        )
    # A title that may wrap keeps the value on its first line, whole.
    wrapping = {"align": "baseline"} if with_share else {}
    return rx.vstack(
        rx.hstack(
            title,
            rx.text(
                messages.SCORE_VALUE_OUT_OF_TEN.format(value=shown),
                size="3",
                weight="bold",
                color="var(--pink-11)" if counted else "var(--gray-11)",
                **({"white_space": "nowrap"} if with_share or not counted else {}),
            ),
            justify="between",
            width="100%",
            **wrapping,
        ),
        gradient_bar(
            value,
            "10px",
            transition="width 600ms ease",
            fill=None if counted else "var(--gray-8)",
            width="100%",
            role="progressbar",
            aria_label=name,
            aria_valuemin="0",
            aria_valuemax="10",
            aria_valuenow=shown,
            aria_valuetext=messages.SCORE_VALUE_OUT_OF_TEN.format(value=shown),
        ),
        spacing="2",
        width="100%",
        data_testid=testid,
    )


def _plain_bar(item: rx.Var) -> rx.Component:
    return _breakdown_bar(item)


def _counted_bar(item: rx.Var) -> rx.Component:
    return _breakdown_bar(item, with_share=True)


def _apart_bar(item: rx.Var) -> rx.Component:
    return _breakdown_bar(item, counted=False, testid="breakdown-apart-bar")


def gradient_bar(
    value: rx.Var,
    height: str,
    transition: str | None = None,
    fill: str | None = None,
    **props: Any,
) -> rx.Component:
    """A rounded bar filled with the brand gradient (or ``fill``) to ``value`` out of 10
    (``props`` go on the track: its width, its role and labels)."""
    moving = {"transition": transition} if transition else {}
    return rx.box(
        rx.box(
            height="100%",
            width=f"{value * 10}%",
            max_width="100%",
            border_radius="999px",
            background=fill or styles.BRAND_GRADIENT,
            **moving,
        ),
        height=height,
        border_radius="999px",
        background="var(--gray-a3)",
        overflow="hidden",
        **props,
    )


def breakdown_bars(items: Any, heading: str | None = messages.BREAKDOWN_HEADING) -> rx.Component:
    """Labelled bars, one per ``{"name": str, "value": float}`` (value out of 10).

    ``items`` is a Var[list[dict]] (or a plain list); each bar reads ``Symmetry 8.4/10``.
    ``heading`` titles the block; pass None to leave it out.
    """
    title = [rx.heading(heading, as_="h2", size="5")] if heading else []
    return rx.vstack(
        *title,
        rx.foreach(rx.Var.create(items).to(list[dict[str, Any]]), _plain_bar),
        spacing="4",
        width="100%",
        data_testid="breakdown",
    )


def score_breakdown(
    bars: Any, apart: Any, sum_line: Any, heading: str | None = messages.BREAKDOWN_HEADING
) -> rx.Component:
    """The face's breakdown (``analysis.service.BreakdownView``): the score's bars, each
    with how much it counts ("counts 72%"), then how the score follows from them (the
    ``sum_line``, when there is one), then the parts shown but not counted, apart, in
    grey, and said to be so.

    ``bars`` and ``apart`` are Var[list[dict]] of ``name``, ``value`` and ``share``;
    ``sum_line`` a Var[str]. ``heading`` titles the block; pass None to leave it out.
    """
    bars, apart = (rx.Var.create(rows).to(list[dict[str, Any]]) for rows in (bars, apart))
    sum_line = rx.Var.create(sum_line).to(str)
    title = [rx.heading(heading, as_="h2", size="5")] if heading else []
    return rx.vstack(
        *title,
        rx.foreach(bars, _counted_bar),
        rx.cond(
            sum_line != "",
            rx.text(
                sum_line,
                size="2",
                weight="medium",
                color="var(--gray-12)",
                width="100%",
                padding="0.5rem 0.75rem",
                border_radius="10px",
                background="var(--gray-a2)",
                data_testid="breakdown-sum",
            ),
        ),
        rx.cond(
            apart.length() > 0,
            rx.vstack(
                rx.foreach(apart, _apart_bar),
                rx.text(messages.BREAKDOWN_NOT_COUNTED, size="2", color="var(--gray-11)"),
                spacing="2",
                width="100%",
                padding_top="0.75rem",
                border_top="1px dashed var(--gray-a7)",
                data_testid="breakdown-apart",
            ),
        ),
        spacing="4",
        width="100%",
        data_testid="breakdown",
    )


# ---------------------------------------------------------------------------
# Special tier panels
# ---------------------------------------------------------------------------
def _benefit(text: str) -> rx.Component:
    return rx.el.li(
        rx.hstack(
            rx.icon("circle-check", size=18, color=styles.PINK, flex_shrink="0", margin_top="3px"),
            rx.text(text, size="3"),
            align="start",
            spacing="2",
        ),
        list_style="none",
    )


def _panel(
    icon: str,
    title: str,
    subtitle: str,
    body: rx.Component,
    action: rx.Component,
    testid: str,
    accent: str,
) -> rx.Component:
    """A celebratory card with a gradient border, used by the three special panels."""
    return rx.box(
        rx.vstack(
            rx.hstack(
                rx.center(
                    rx.icon(icon, size=26, color="white"),
                    width="52px",
                    height="52px",
                    border_radius="16px",
                    background=accent,
                    flex_shrink="0",
                ),
                rx.vstack(
                    rx.heading(title, as_="h2", size="6"),
                    rx.text(subtitle, size="3", color_scheme="gray"),
                    spacing="1",
                ),
                align="center",
                spacing="4",
            ),
            body,
            action,
            spacing="4",
            align="start",
            width="100%",
        ),
        style={
            **styles.CARD,
            "border": "2px solid transparent",
            "background": f"linear-gradient(white, white) padding-box, {accent} border-box",
        },
        width="100%",
        role="region",
        aria_label=title,
        data_testid=testid,
    )


def _claim_button(label: str, icon: str, on_click: Any) -> rx.Component:
    return rx.button(
        rx.icon(icon, size=18),
        label,
        on_click=on_click,
        size="3",
        radius="full",
        # Long labels wrap on phones instead of overflowing the fixed-height button.
        style={**styles.GRADIENT_BUTTON, **_WRAPPING_BUTTON},
        width=rx.breakpoints(initial="100%", sm="auto"),
    )


_WRAPPING_BUTTON = {
    "height": "auto",
    "min_height": "var(--base-button-height)",
    "white_space": "normal",
    "text_align": "center",
    "padding_top": "0.55rem",
    "padding_bottom": "0.55rem",
}
_FOOTER_BACKGROUND = "linear-gradient(135deg, #fdf2f8 0%, #faf5ff 100%)"
_GOLD_GRADIENT = "linear-gradient(135deg, #f59e0b 0%, #ec4899 55%, #a855f7 100%)"


def world_record_panel(on_claim: Any) -> rx.Component:
    """Score exactly 10: the $100,000 claim; the button calls ``on_claim``."""
    return _panel(
        "trophy",
        messages.WORLD_RECORD_TITLE,
        messages.WORLD_RECORD_SUBTITLE,
        rx.el.ul(*[_benefit(t) for t in messages.WORLD_RECORD_BENEFITS], padding="0", margin="0"),
        _claim_button(messages.WORLD_RECORD_CLAIM, "trophy", on_claim),
        "world-record-panel",
        _GOLD_GRADIENT,
    )


def elite_panel(on_claim: Any) -> rx.Component:
    """'99': Elite Beauty Status, the $50,000 claim; the button calls ``on_claim``."""
    return _panel(
        "crown",
        messages.ELITE_TITLE,
        messages.ELITE_SUBTITLE,
        rx.el.ul(*[_benefit(t) for t in messages.ELITE_BENEFITS], padding="0", margin="0"),
        _claim_button(messages.ELITE_CLAIM, "crown", on_claim),
        "elite-panel",
        styles.BRAND_GRADIENT,
    )


def exceptional_panel() -> rx.Component:
    """'95 to 98': Exceptional Score, top 1%, with a link to /claim-opportunities."""
    return _panel(
        "star",
        messages.EXCEPTIONAL_TITLE,
        messages.EXCEPTIONAL_SUBTITLE,
        rx.text(messages.EXCEPTIONAL_BODY, size="3"),
        link_button(
            messages.EXCEPTIONAL_BUTTON,
            routes.CLAIM_OPPORTUNITIES,
            "sparkles",
            width=rx.breakpoints(initial="100%", sm="auto"),
        ),
        "exceptional-panel",
        styles.BRAND_GRADIENT,
    )


def special_panel(kind: Any, on_claim_world_record: Any, on_claim_elite: Any) -> rx.Component:
    """The special tier panel named by ``kind`` (Var[str]): ``"world_record"``,
    ``"elite_status"``, ``"exceptional_score"``, or ``""`` for none.

    The claim buttons call the given handlers; the results page shows the notices
    (``messages.WORLD_RECORD_NOTICE`` / ``messages.ELITE_NOTICE``).
    """
    return rx.match(
        rx.Var.create(kind).to(str),
        (WORLD_RECORD, world_record_panel(on_claim_world_record)),
        (ELITE_STATUS, elite_panel(on_claim_elite)),
        (EXCEPTIONAL_SCORE, exceptional_panel()),
        rx.fragment(),
    )


# ---------------------------------------------------------------------------
# Footer challenge card
# ---------------------------------------------------------------------------
def footer_challenge_card(on_share: Any) -> rx.Component:
    """'Share on Social Media' (calls ``on_share``), 'Rate Another Photo' (/upload), and a
    link to /partners/apply.

    ``on_share`` is any event: a state handler, or ``share.native_share_action(...)``.
    """
    return rx.box(
        rx.vstack(
            rx.center(
                rx.icon("users", size=26, color="white"),
                width="52px",
                height="52px",
                border_radius="50%",
                background=styles.BRAND_GRADIENT,
            ),
            rx.heading(messages.CHALLENGE_TITLE, as_="h2", size="6", align="center"),
            rx.text(messages.CHALLENGE_BODY, size="3", color_scheme="gray", align="center"),
            rx.flex(
                rx.button(
                    rx.icon("share-2", size=18),
                    messages.SHARE_ON_SOCIAL_MEDIA,
                    on_click=on_share,
                    size="3",
                    radius="full",
                    style=styles.GRADIENT_BUTTON,
                    data_testid="challenge-share",
                ),
                link_button(messages.RATE_ANOTHER_PHOTO, routes.UPLOAD, "camera", primary=False),
                direction=rx.breakpoints(initial="column", sm="row"),
                spacing="3",
                justify="center",
                width=rx.breakpoints(initial="100%", sm="auto"),
            ),
            rx.hstack(
                rx.text(messages.PARTNER_PROMPT, size="2", color_scheme="gray"),
                rx.link(
                    messages.BECOME_A_PARTNER,
                    href=routes.PARTNERS_APPLY,
                    size="2",
                    weight="bold",
                ),
                spacing="2",
                wrap="wrap",
                justify="center",
                align="center",
            ),
            align="center",
            spacing="4",
        ),
        style={**styles.CARD, "background": _FOOTER_BACKGROUND},
        width="100%",
        data_testid="challenge-card",
    )
