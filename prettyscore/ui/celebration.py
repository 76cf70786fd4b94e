"""The celebration effect: confetti for high scores (document 000 §2 Results, §4, §9).

50 pieces fall for 3 seconds (``constants.CONFETTI_PIECES``, ``CONFETTI_SECONDS``). Pure
CSS keyframes, no script and nothing downloaded, so it works offline. Every piece's
position, colour, size, delay and drift derive from its index, so the server's render
and the browser's agree. The effect is decorative: hidden from assistive technology,
never in the way of clicks, and left out for people who ask for reduced motion.
"""

from typing import Any

import reflex as rx

from prettyscore.core import constants

_COLORS = ("#ec4899", "#a855f7", "#f59e0b", "#3b82f6", "#10b981", "#f43f5e")
_FALL = "ps-confetti-fall"
_DONE = "ps-confetti-done"
_ATTR = "data-confetti"

# Each piece falls for FALL_BASE_S plus up to FALL_SPREAD_S, after a delay of up to
# DELAY_SPREAD_S: the last piece lands before CONFETTI_SECONDS have passed.
FALL_BASE_S = 1.9
FALL_SPREAD_S = 0.4
DELAY_SPREAD_S = 0.7

_KEYFRAMES = f"""
@keyframes {_FALL} {{
  0% {{ transform: translate3d(0, -12vh, 0) rotate(0deg); opacity: 1; }}
  80% {{ opacity: 1; }}
  100% {{ transform: translate3d(var(--ps-drift), 108vh, 0) rotate(var(--ps-spin)); opacity: 0; }}
}}
@keyframes {_DONE} {{ to {{ visibility: hidden; }} }}
@media (prefers-reduced-motion: reduce) {{ [{_ATTR}] {{ display: none; }} }}
"""


def piece_style(index: int) -> dict[str, Any]:
    """The style of confetti piece ``index``: a pure function of the index."""
    width = 7 + (index * 7) % 5
    round_piece = index % 3 == 0
    delay = ((index * 37) % 10) * DELAY_SPREAD_S / 9
    duration = FALL_BASE_S + ((index * 13) % 6) / 5 * FALL_SPREAD_S
    return {
        "position": "absolute",
        "top": "0",
        "left": f"{(index * 61 + 7) % 100}%",
        "width": f"{width}px",
        "height": f"{width if round_piece else round(width * 1.6)}px",
        "border_radius": "50%" if round_piece else "2px",
        "background": _COLORS[index % len(_COLORS)],
        "--ps-drift": f"{((index * 29) % 9 - 4) * 14}px",
        "--ps-spin": f"{(360 + (index * 97) % 720) * (1 if index % 2 else -1)}deg",
        "animation": f"{_FALL} {duration:.2f}s cubic-bezier(0.25, 0.6, 0.5, 1) {delay:.2f}s both",
        "will_change": "transform, opacity",
    }


def confetti_pieces(count: int = constants.CONFETTI_PIECES) -> list[rx.Component]:
    """The ``count`` pieces, each an empty div."""
    return [rx.el.div(style=piece_style(i)) for i in range(count)]


def confetti(active: Any) -> rx.Component:
    """Confetti over the whole window while ``active`` (a Var[bool]) is true.

    It plays once each time ``active`` becomes true and is gone after
    ``constants.CONFETTI_SECONDS`` even if ``active`` stays true. Renders nothing when
    ``active`` is false.
    """
    return rx.cond(
        active,
        rx.box(
            rx.el.style(_KEYFRAMES),
            *confetti_pieces(),
            style={
                "position": "fixed",
                "inset": "0",
                "overflow": "hidden",
                "pointer_events": "none",
                "z_index": "60",
                "animation": f"{_DONE} 0s linear {constants.CONFETTI_SECONDS}s forwards",
            },
            aria_hidden="true",
            custom_attrs={_ATTR: ""},
            data_testid="confetti",
        ),
    )
