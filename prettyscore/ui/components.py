"""Small shared building blocks: brand mark, buttons, cards, disclaimer, Terms of Use link.

Every page composes these, so the product looks the same everywhere and a visual change
is made once. They hold no state of their own; anything variable is passed in.
"""

from typing import Any

import reflex as rx
from reflex_base.event import parse_args_spec, passthrough_event_spec

from prettyscore.core import messages, routes
from prettyscore.core.constants import ACCEPTED_IMAGE_FORMATS, MAX_UPLOAD_BYTES
from prettyscore.ui import styles
from prettyscore.ui.nav_link import plain_link
from prettyscore.ui.signed_in_as import signed_in_as

# The documents show a Terms of Use link without its target. The terms are a short section
# of the Privacy Policy page (anchor ``#terms``), so the link always resolves.
TERMS_ANCHOR = "terms"
TERMS_HREF = f"{routes.PRIVACY}#{TERMS_ANCHOR}"

# Icon shown with each example score card, by label (icons, not emoji: emoji fonts vary).
_LABEL_ICON = {"Stunning": "star", "Beautiful": "heart", "Gorgeous": "sparkles"}


# The rejected files of a drop, as a client-side expression: only their error codes are
# sent to the server (the File objects would carry the image bytes over the websocket).
(_REJECTIONS,), _ = parse_args_spec(passthrough_event_spec(list))
REJECTED_DROP_CODES = rx.Var(
    f"(({_REJECTIONS}) || []).flatMap((r) => (r.errors || []).map((e) => e.code))"
).to(list)


# What an empty drop zone says, and the name of its file input for screen readers.
# Enter (without Shift, and not while composing an accented character) submits the
# field's form, whatever its button shows: the button follows the server's copy of the
# text, which may be a keystroke behind (a text typed fast and sent with Enter). On a
# blank text it does nothing, like the disabled button.
ENTER_SUBMITS = rx.Var(
    "((event) => { if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing)"
    " return; event.preventDefault(); const field = event.currentTarget;"
    " if (field.value.trim() !== '') field.form?.requestSubmit(); })"
)

DROP_ZONE_HINT = "Click or drag a photo here"

# The image formats the server decodes (constants.ACCEPTED_IMAGE_FORMATS, core/images.py):
# the name each page shows, and the types and extensions the picker offers.
_FORMATS = {
    "JPEG": ("JPG", "image/jpeg", [".jpg", ".jpeg", ".jfif"]),
    "PNG": ("PNG", "image/png", [".png"]),
    "WEBP": ("WebP", "image/webp", [".webp"]),
    "GIF": ("GIF", "image/gif", [".gif"]),
}
_FORMAT_NAMES = [_FORMATS[fmt][0] for fmt in ACCEPTED_IMAGE_FORMATS]
#: One line for every photo picker: the accepted formats and the size limit.
UPLOAD_FORMATS_HINT = (
    f"{', '.join(_FORMAT_NAMES[:-1])} or {_FORMAT_NAMES[-1]}, "
    f"up to {MAX_UPLOAD_BYTES // (1024 * 1024)}MB"
)

# What every photo picker accepts: one image of those formats, at most the upload limit.
_ONE_IMAGE = {
    "accept": {_FORMATS[fmt][1]: _FORMATS[fmt][2] for fmt in ACCEPTED_IMAGE_FORMATS},
    "multiple": False,
    "max_files": 1,
    "max_size": MAX_UPLOAD_BYTES,
}


class DeferredMount(rx.Component):
    """Its children are built just after the rest of the page (assets/deferred_mount.js)."""

    library = "$/public/deferred_mount.js"
    tag = "DeferredMount"


def deferred(*children: rx.Component) -> rx.Component:
    """Content below the fold that can appear a moment after the rest: the browser builds
    it in small slices instead of in the same long task as what is on screen first."""
    return DeferredMount.create(*children)


class ShowWhenReady(rx.Component):
    """``loading`` until ``show``, then ``content`` built as a transition
    (assets/deferred_mount.js)."""

    library = "$/public/deferred_mount.js"
    tag = "ShowWhenReady"

    show: rx.Var[bool]


def show_when_ready(show, content: rx.Component, loading: rx.Component) -> rx.Component:
    """Like ``rx.cond(show, content, loading)`` for a page's whole content, which appears
    when the page's state arrives: the content is built in small slices while ``loading``
    stays on screen, instead of in one long task that keeps the browser from answering."""
    return ShowWhenReady.create(content, loading, show=show)


def image_drop_zone(
    *children: rx.Component,
    upload_id: str,
    on_drop: Any,
    on_drop_rejected: Any,
    padding: str = "2rem 1.25rem",
    input_label: str = DROP_ZONE_HINT,
    max_files: int = 1,
    **props: Any,
) -> rx.Component:
    """The dashed drop zone every photo upload uses: one image (or up to ``max_files``),
    each at most the upload limit.

    The browser refuses other files before sending anything (``on_drop_rejected``, e.g.
    with ``REJECTED_DROP_CODES``); the server checks again whatever it receives.
    ``input_label`` names the zone's file input for screen readers (the zone's own words).
    """
    zone = rx.upload.root(
        *children,
        id=upload_id,
        **{**_ONE_IMAGE, "multiple": max_files > 1, "max_files": max_files},
        on_drop=on_drop,
        on_drop_rejected=on_drop_rejected,
        drag_active_style={"border_color": styles.PINK, "background": "var(--pink-a2)"},
        style={
            "border": "2px dashed var(--pink-a7)",
            "border_radius": "20px",
            "padding": padding,
            "cursor": "pointer",
            "background": "white",
            "width": "100%",
            "transition": "border-color 120ms ease, background 120ms ease",
            "_hover": {"border_color": styles.PINK},
        },
        **props,
    )
    # Whose account the photo goes to, under the zone (ui/signed_in_as.py).
    return rx.fragment(_label_file_input(zone, input_label), signed_in_as(margin_top="0.5rem"))


def _label_file_input(upload: rx.Component, label: str) -> rx.Component:
    """Give an ``rx.upload.root``'s hidden file input an accessible name: assistive
    technology announces it by itself, apart from the zone's visible text."""
    file_input = upload.children[0].children[0]  # the dropzone's own <input type=file>
    file_input.custom_attrs["aria-label"] = label
    return upload


def camera_picker(
    label: str,
    *,
    upload_id: str,
    on_drop: Any,
    on_drop_rejected: Any,
    **props: Any,
) -> rx.Component:
    """A 'Take Photo' button: on phones its file input opens the camera (``capture``),
    elsewhere the file picker. One image, at most the upload limit, like the drop zone;
    the server checks again whatever it receives."""
    picker = rx.upload.root(
        rx.button(
            rx.icon("camera", size=18),
            label,
            type="button",
            size="3",
            radius="full",
            variant="outline",
        ),
        id=upload_id,
        **_ONE_IMAGE,
        no_drag=True,
        on_drop=on_drop,
        on_drop_rejected=on_drop_rejected,
        **props,
    )
    file_input = picker.children[0].children[0]  # the dropzone's own <input type=file>
    file_input.custom_attrs["capture"] = "environment"
    return _label_file_input(picker, label)


def photo_picker_prompt(button_label: str, hint: str = DROP_ZONE_HINT) -> rx.Component:
    """What an empty photo drop zone shows: an icon, the hint, the limits and a button
    (a click anywhere in the zone opens the file picker)."""
    return rx.vstack(
        rx.center(
            rx.icon("image-up", size=34, color=styles.PINK),
            width="72px",
            height="72px",
            border_radius="50%",
            background="var(--pink-a3)",
        ),
        rx.text(hint, weight="medium", size="4", align="center"),
        rx.text(UPLOAD_FORMATS_HINT, size="2", color_scheme="gray"),
        rx.button(
            rx.icon("images", size=18),
            button_label,
            type="button",
            size="3",
            radius="full",
            style=styles.GRADIENT_BUTTON,
        ),
        align="center",
        spacing="3",
    )


def progress_status(
    text: str | rx.Var,
    percent: rx.Var,
    *,
    testid: str,
    text_size: str = "2",
    spacing: str = "1",
    max_width: str = "320px",
) -> rx.Component:
    """A line of what is happening over a progress bar (0–100), announced as a status:
    a photo travelling, photos being compared."""
    return rx.vstack(
        rx.text(text, size=text_size, weight="medium"),
        rx.progress(value=percent, max=100, width="100%", aria_label=text),
        align="center",
        spacing=spacing,
        width="100%",
        max_width=max_width,
        margin_x="auto",
        role="status",
        data_testid=testid,
    )


def brand_mark(href: str = routes.HOME) -> rx.Component:
    """The logo (gradient badge and name), linking home."""
    return plain_link(
        rx.hstack(
            rx.center(
                rx.icon("sparkles", size=18, color="white"),
                width="34px",
                height="34px",
                border_radius="10px",
                background=styles.BRAND_GRADIENT,
                flex_shrink="0",
            ),
            rx.text(messages.APP_NAME, weight="bold", size="5", style=styles.GRADIENT_TEXT),
            align="center",
            spacing="2",
        ),
        href=href,
        aria_label=messages.APP_NAME,
        style={"text_decoration": "none"},
    )


def icon_button(icon: str, label: Any, **props: Any) -> rx.Component:
    """A button with a small icon before its label (the app's usual action button)."""
    return rx.button(rx.icon(icon, size=16), label, **props)


def link_button(
    label: str | rx.Var,
    href: str,
    icon: str | None = None,
    *,
    primary: bool = True,
    **props: Any,
) -> rx.Component:
    """A button that navigates: one ``<a>`` styled as a Radix button (no button-in-link).

    ``primary`` buttons carry the brand gradient; the others are soft and quiet.
    """
    content = [rx.icon(icon, size=18)] if icon else []
    props.setdefault("size", "3")
    props.setdefault("radius", "full")
    if primary:
        props.setdefault("style", styles.GRADIENT_BUTTON)
    else:
        props.setdefault("variant", "soft")
    return rx.button(plain_link(*content, label, href=href), as_child=True, **props)


def tooltip(child: rx.Component, content: str | rx.Var) -> rx.Component:
    """A tooltip with the product's 700 ms opening delay (document 000 §9 interface default)."""
    return rx.tooltip(child, content=content, delay_duration=styles.TOOLTIP_DELAY_MS)


def disclaimer(**props: Any) -> rx.Component:
    """The entertainment-only notice that accompanies every score (document 000 §1)."""
    return rx.hstack(
        rx.icon("info", size=16, flex_shrink="0", color="var(--gray-10)"),
        rx.text(messages.DISCLAIMER, size="2", color_scheme="gray"),
        align="start",
        spacing="2",
        **props,
    )


def terms_link(**props: Any) -> rx.Component:
    """The Terms of Use link; see ``TERMS_HREF`` for where it leads and why."""
    props.setdefault("size", "2")
    return rx.link(messages.TERMS_OF_USE, href=TERMS_HREF, **props)


def page_header(title: str, subtitle: str | None = None, icon: str | None = None) -> rx.Component:
    """The big centred heading that opens a page, with an optional line below it."""
    badge = [_icon_badge(icon, size=56)] if icon else []
    lead = [rx.text(subtitle, size="4", color_scheme="gray", align="center")] if subtitle else []
    return rx.vstack(
        *badge,
        rx.heading(title, size="8", align="center", style=styles.GRADIENT_TEXT),
        *lead,
        align="center",
        spacing="3",
        max_width="720px",
        margin_x="auto",
        padding_top="1rem",
        padding_bottom="2rem",
    )


def section(title: str, *children: rx.Component, **props: Any) -> rx.Component:
    """A titled block of a page, with the generous spacing between blocks."""
    return rx.vstack(
        rx.heading(title, size="7", align="center", width="100%"),
        *children,
        spacing="5",
        width="100%",
        padding_y="1.5rem",
        **props,
    )


def card(*children: rx.Component, **props: Any) -> rx.Component:
    """A white rounded card with the soft brand shadow."""
    return rx.box(*children, style=styles.CARD, **props)


def _icon_badge(icon: str, size: int = 44) -> rx.Component:
    """An icon on a round gradient badge, the visual anchor of feature cards."""
    return rx.center(
        rx.icon(icon, size=size // 2, color="white"),
        width=f"{size}px",
        height=f"{size}px",
        border_radius="50%",
        background=styles.BRAND_GRADIENT,
        flex_shrink="0",
    )


def feature_card(icon: str, title: str, body: str, step: int | None = None) -> rx.Component:
    """A card with an icon badge, a title and a short paragraph; ``step`` numbers it."""
    step_badge = [rx.badge(f"Step {step}", radius="full", variant="soft", size="2")] if step else []
    return card(
        rx.vstack(
            rx.hstack(
                _icon_badge(icon),
                *step_badge,
                align="center",
                justify="between",
                width="100%",
            ),
            rx.heading(title, size="4"),
            rx.text(body, size="3", color_scheme="gray"),
            spacing="3",
            align="start",
        ),
        height="100%",
    )


def responsive_grid(*children: rx.Component, columns: int = 3, **props: Any) -> rx.Component:
    """One column on phones, ``columns`` from 768 px up."""
    return rx.grid(
        *children,
        columns=rx.breakpoints(initial="1", sm=str(columns)),
        spacing="4",
        width="100%",
        **props,
    )


def score_example_card(score: int, label: str) -> rx.Component:
    """An example result (document 000 Home: 95 Stunning, 87 Beautiful, 92 Gorgeous)."""
    return card(
        rx.vstack(
            rx.center(
                rx.text(str(score), size="8", weight="bold", color="white"),
                width="96px",
                height="96px",
                border_radius="50%",
                background=styles.BRAND_GRADIENT,
                box_shadow="0 10px 30px rgba(236, 72, 153, 0.35)",
            ),
            rx.icon(_LABEL_ICON.get(label, "heart"), size=26, color=styles.PINK),
            rx.badge(label, size="3", radius="full", variant="soft"),
            align="center",
            spacing="3",
        ),
        data_testid="example-score-card",
    )
