"""Before/after comparison slider and the single-photo frame (document 000 §2 Results).

The slider runs entirely in the browser, with no state and no server round trip: a native
range input (0 to 100, step 1, default 50; keyboard and screen-reader friendly) sets a CSS
variable on its own comparison box, and the 'after' photo is clipped at that position
over the 'before' photo. Several sliders on one page stay independent, and a new pair of
photos (a new ``key``) starts again at the default.
"""

from typing import Any

import reflex as rx
from reflex.vars import FunctionStringVar

from prettyscore.core import constants, messages

SLIDER_MIN = 0
SLIDER_MAX = 100
SLIDER_STEP = 1

_POSITION = "--ps-compare-pos"
_ROOT_ATTR = "data-compare"

# Called by the range input's on_change with (value, event): moves the divider of the
# comparison box the input belongs to.
_MOVE_DIVIDER = FunctionStringVar.create(
    "((value, event) => {"
    f" const root = event?.target?.closest('[{_ROOT_ATTR}]');"
    f" if (root) root.style.setProperty('{_POSITION}', String(value) + '%');"
    " })"
)

_FRAME = {
    "position": "relative",
    "width": "100%",
    "border_radius": "20px",
    "overflow": "hidden",
    "background": "var(--gray-a3)",
    "box_shadow": "0 12px 36px rgba(168, 85, 247, 0.16)",
}

_PHOTO = {"display": "block", "width": "100%", "height": "auto"}

_CHIP = {
    "position": "absolute",
    "top": "0.75rem",
    "padding": "0.2rem 0.65rem",
    "border_radius": "999px",
    "background": "rgba(17, 24, 39, 0.72)",
    "color": "white",
    "font_size": "0.8rem",
    "font_weight": "600",
    "pointer_events": "none",
}

_RANGE = {
    "width": "100%",
    "height": "28px",
    "margin": "0",
    "accent_color": "var(--pink-9)",
    "cursor": "ew-resize",
    "&:focus-visible": {"outline": "2px solid var(--pink-9)", "outline_offset": "3px"},
}


def _chip(text: str, side: str) -> rx.Component:
    return rx.el.span(text, style={**_CHIP, side: "0.75rem"}, aria_hidden="true")


def before_after_slider(
    before_url: Any,
    after_url: Any,
    default: int = constants.COMPARISON_SLIDER_DEFAULT,
    **props: Any,
) -> rx.Component:
    """The 'before' photo with the 'after' photo over it, revealed right of a divider that
    follows a slider (0 to 100, step 1, default 50).

    ``before_url`` and ``after_url`` are Var[str] (or plain) image URLs; the box takes the
    'before' photo's proportions. ``props`` go to the outer box (e.g. ``max_width``).
    """
    before_url, after_url = rx.Var.create(before_url), rx.Var.create(after_url)
    props.setdefault("max_width", "520px")
    divider = rx.box(
        rx.center(
            rx.icon("chevrons-left-right", size=18, color="var(--pink-11)"),
            position="absolute",
            top="50%",
            left="50%",
            transform="translate(-50%, -50%)",
            width="38px",
            height="38px",
            border_radius="50%",
            background="white",
            box_shadow="0 4px 14px rgba(0, 0, 0, 0.25)",
        ),
        position="absolute",
        top="0",
        bottom="0",
        left=f"var({_POSITION})",
        width="3px",
        margin_left="-1.5px",
        background="white",
        box_shadow="0 0 6px rgba(0, 0, 0, 0.35)",
        pointer_events="none",
        aria_hidden="true",
    )
    return rx.box(
        rx.box(
            rx.image(src=before_url, alt=messages.PHOTO_BEFORE_ALT, style=_PHOTO),
            rx.image(
                src=after_url,
                alt=messages.PHOTO_AFTER_ALT,
                style={
                    "position": "absolute",
                    "inset": "0",
                    "width": "100%",
                    "height": "100%",
                    "object_fit": "cover",
                    "clip_path": f"inset(0 0 0 var({_POSITION}))",
                },
            ),
            divider,
            _chip(messages.BEFORE, "left"),
            _chip(messages.AFTER, "right"),
            style=_FRAME,
        ),
        rx.el.input(
            type="range",
            min=SLIDER_MIN,
            max=SLIDER_MAX,
            step=SLIDER_STEP,
            default_value=str(default),
            on_change=_MOVE_DIVIDER,
            aria_label=messages.COMPARISON_SLIDER_LABEL,
            style=_RANGE,
            data_testid="compare-slider",
        ),
        # A new pair of photos is a new slider, back at the default position.
        key=after_url,
        width="100%",
        margin_x="auto",
        style={_POSITION: f"{default}%"},
        custom_attrs={_ROOT_ATTR: ""},
        data_testid="before-after",
        **props,
    )


def photo_frame(
    url: Any, alt: str = messages.PHOTO_ALT, fetch_priority: str = "auto", **props: Any
) -> rx.Component:
    """The photo alone, framed like the comparison (``url`` a Var[str] or plain URL).

    ``fetch_priority="high"`` where the photo is the page's main image (the browser then
    fetches it ahead of anything else still loading).
    """
    props.setdefault("max_width", "520px")
    return rx.box(
        rx.image(
            src=rx.Var.create(url),
            alt=alt,
            style=_PHOTO,
            custom_attrs={"fetchPriority": fetch_priority},
        ),
        style=_FRAME,
        margin_x="auto",
        data_testid="photo-frame",
        **props,
    )
