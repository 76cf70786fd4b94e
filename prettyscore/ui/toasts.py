"""The toaster: where the app's notices (``rx.toast.error``, ``.success``, ...) appear.

Sonner colours a notice by its kind ("rich colours"), but its own light shades of red,
green, blue and orange text on their pale backgrounds read at 3.1:1 to 4.4:1, below the
4.5:1 WCAG asks of text this small (13 px). The same hues, darker, read at 5.3:1 to 5.7:1.
Sonner takes them as CSS variables on each notice, so they are set there.
"""

from __future__ import annotations

import reflex as rx
from reflex_components_sonner.toast import ToastProps

#: Sonner's text colour for each kind of notice (its hue and saturation, less lightness).
NOTICE_TEXT = {
    "--error-text": "hsl(360, 100%, 40%)",  # 5.3:1 on its background (was 4.4:1)
    "--success-text": "hsl(140, 100%, 23%)",  # 5.6:1 (was 4.3:1)
    "--info-text": "hsl(210, 92%, 38%)",  # 5.7:1 (was 4.4:1)
    "--warning-text": "hsl(31, 92%, 32%)",  # 5.5:1 (was 3.1:1)
}


def toaster() -> rx.Component:
    """The app's toaster: top centre, a close button, 4.5 s, readable colours."""
    # A plain object: Reflex's Style would rename the CSS variables ("--error-text"). The
    # duration goes with the notices' options: the toaster itself has no such property
    # (given to it, it became a CSS declaration and notices kept Sonner's 4 s).
    options = rx.Var.create({"duration": 4500, "style": NOTICE_TEXT}).to(ToastProps)
    return rx.toast.provider(close_button=True, position="top-center", toast_options=options)
