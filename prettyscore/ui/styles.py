"""Shared look of PrettyScore: colours, sizes and style dicts used by more than one component.

Kept in one module so the pink/purple brand stays consistent and a restyle is one edit.
The app theme (``rx.theme(accent_color="pink")``) supplies the Radix colour scale; these
values add the brand gradient and the layout measurements the theme does not know.
"""

# Brand colours (Tailwind-like pink 500 / purple 500) and the gradient built from them.
PINK = "#ec4899"
PURPLE = "#a855f7"
BRAND_GRADIENT = f"linear-gradient(135deg, {PINK} 0%, {PURPLE} 100%)"
# Pink for text on white: the brand pink is too light for small text (3.5:1); this
# shade (Tailwind pink 600) reads at 4.6:1, above the 4.5:1 that WCAG asks.
PINK_TEXT = "#db2777"
SOFT_BACKGROUND = "linear-gradient(180deg, #fdf2f8 0%, #faf5ff 55%, #ffffff 100%)"
BORDER = "1px solid var(--gray-a4)"

# Layout measurements. Below MOBILE_MAX_WIDTH the sidebar gives way to the drawer.
SIDEBAR_WIDTH = "248px"
TOP_BAR_HEIGHT = "64px"
CONTENT_MAX_WIDTH = "1120px"
MOBILE_MEDIA = "@media (max-width: 767px)"
DESKTOP_MEDIA = "@media (min-width: 768px)"
# Wide enough for the top bar to show its icons and the account button its label.
WIDE_MEDIA = "@media (min-width: 1440px)"
LARGE_MEDIA = "@media (min-width: 1024px)"

# Tooltips wait this long before opening (interface default, document 000 §9 brief).
TOOLTIP_DELAY_MS = 700

# Shown only from 768 px up / only below 768 px. Plain media queries rather than Radix
# breakpoints so the 768 px threshold is explicit and independent of the root font size.
DESKTOP_ONLY = {"display": "none", DESKTOP_MEDIA: {"display": "flex"}}
MOBILE_ONLY = {"display": "flex", DESKTOP_MEDIA: {"display": "none"}}

GRADIENT_TEXT = {
    "background": BRAND_GRADIENT,
    "background_clip": "text",
    "-webkit-background-clip": "text",
    "color": "transparent",
}

CARD = {
    "background": "white",
    "border": BORDER,
    "border_radius": "20px",
    "box_shadow": "0 8px 30px rgba(168, 85, 247, 0.08)",
    "padding": "1.5rem",
}

GRADIENT_BUTTON = {
    "background": BRAND_GRADIENT,
    "color": "white",
    "font_weight": "600",
    "box_shadow": "0 8px 20px rgba(236, 72, 153, 0.25)",
    "_hover": {"opacity": 0.92},
    # Disabled, the gradient gives way to Radix's own disabled look (it would else win).
    "&:disabled, &[data-disabled]": {
        "background": "var(--gray-a3)",
        "color": "var(--gray-a8)",
        "box_shadow": "none",
        "opacity": 1,
        "cursor": "not-allowed",
    },
}
