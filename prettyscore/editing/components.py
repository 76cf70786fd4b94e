"""The AI edit controls, shared by the results page, the dashboard editor and /editor.

Each takes the state's vars and events as arguments, so one look and one behaviour serve
every page: the preset tabs (Background, Hair, Outfit), the custom prompt (Enter submits;
the button is disabled when the prompt is blank, while editing, or with no edits left),
the free-edit counter and the upgrade prompt at 0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reflex as rx

from prettyscore.core import messages, routes
from prettyscore.editing.presets import PRESET_GROUPS
from prettyscore.ui import styles
from prettyscore.ui.components import ENTER_SUBMITS, icon_button
from prettyscore.ui.server_wait import FormWait, ServerWait

PRESET_BUTTON_STYLE = {"white_space": "normal", "height": "auto", "min_height": "2.5rem"}


def no_edits_left(premium: rx.Var[bool], free_edits_left: rx.Var[int]) -> rx.Var[bool]:
    """True when a non-subscriber has used every free edit."""
    return ~premium & (free_edits_left <= 0)


def hd_format_note() -> rx.Component:
    """What 'Download HD Version (4K)' saves: the documents name the file .png, and a 4K
    PNG is often larger than an upload may be, so the person knows before they wait."""
    return rx.text(
        messages.DOWNLOAD_HD_FORMAT, size="1", color_scheme="gray", data_testid="hd-format"
    )


def free_edits_line(premium: rx.Var[bool], free_edits_left: rx.Var[int]) -> rx.Component:
    """'Free edits remaining: n', or Premium's unlimited edits."""
    return rx.cond(
        premium,
        rx.text(messages.UNLIMITED_EDITS, size="2", color_scheme="gray"),
        rx.text(
            "Free edits remaining: ",
            rx.text.strong(free_edits_left),
            size="2",
            color_scheme="gray",
            data_testid="free-edits-left",
        ),
    )


def preset_tabs(
    run_edit: Any,
    context: Any,
    *,
    editing: rx.Var[bool],
    no_edits: rx.Var[bool],
    wait: ServerWait,
) -> rx.Component:
    """The documents' presets in their tabs, disabled while an edit is sent or under way
    (``editing``) and with no edits left. A preset sends ``run_edit(prompt, context,
    attempt)`` through ``wait``, whose "Try again" sends the last one again."""
    return rx.fragment(
        _preset_tabs(
            lambda prompt: wait.send(run_edit, prompt, context), wait.busy(editing) | no_edits
        ),
        wait.no_answer_notice(editing, wait.retry(run_edit, 2)),
    )


def _preset_tabs(on_preset: Callable[[str], Any], disabled: rx.Var[bool]) -> rx.Component:
    return rx.tabs.root(
        rx.tabs.list(*[rx.tabs.trigger(tab, value=tab) for tab in PRESET_GROUPS]),
        *[
            rx.tabs.content(
                rx.grid(
                    *[
                        rx.button(
                            prompt,
                            variant="soft",
                            size="2",
                            on_click=on_preset(prompt),
                            disabled=disabled,
                            style=PRESET_BUTTON_STYLE,
                        )
                        for prompt in prompts
                    ],
                    columns=rx.breakpoints(initial="1", sm="2"),
                    spacing="2",
                    padding_top="0.75em",
                ),
                value=tab,
            )
            for tab, prompts in PRESET_GROUPS.items()
        ],
        default_value=next(iter(PRESET_GROUPS)),
        width="100%",
    )


def custom_prompt_form(
    *,
    value: rx.Var[str],
    on_change: Any,
    on_submit: Any,
    busy: rx.Var[bool],
    no_edits: rx.Var[bool],
    wait: FormWait,
) -> rx.Component:
    """A free-text instruction; Enter submits, however fast it follows the typing. The
    handler reads the form's ``prompt``. Busy from the press (``wait``)."""
    editing, busy = busy, wait.busy(busy)
    return rx.form(
        rx.hstack(
            rx.input(
                name="prompt",
                value=value,
                on_change=on_change,
                placeholder="e.g. make it warmer and blur the background",
                aria_label="Editing instruction",
                width="100%",
                size="3",
                custom_attrs={"onKeyDown": ENTER_SUBMITS},
            ),
            icon_button(
                "wand-sparkles",
                "Edit",
                type="submit",
                size="3",
                style=styles.GRADIENT_BUTTON,
                loading=wait.pending.value,
                disabled=(value.strip() == "") | busy | no_edits,
            ),
            wait.attempt_field(),
            width="100%",
        ),
        wait.no_answer_notice(editing),
        on_submit=wait.submit(on_submit),
        reset_on_submit=False,
        width="100%",
    )


def upgrade_prompt(no_edits: rx.Var[bool]) -> rx.Component:
    """At 0 free edits: the documents' message and the way to Premium."""
    return rx.cond(
        no_edits,
        rx.vstack(
            rx.text(messages.USED_ALL_FREE_EDITS, size="2", weight="medium"),
            rx.link(
                icon_button("crown", "Upgrade to Premium", size="2", high_contrast=True),
                href=routes.PREMIUM,
            ),
            spacing="2",
        ),
    )


def editing_indicator(busy: rx.Var[bool]) -> rx.Component:
    return rx.cond(busy, rx.hstack(rx.spinner(), rx.text("Editing...")))
