""" "How we got your score": the measured picture and each measure against its ideal.

Shown under the score on /results and in a saved photo's details (My Photos). The
picture is rendered on the server (``analysis.explanation``); this module only lays out
its URL and the notes' sentences, grouped by the part of the breakdown they count for,
each marked as inside or outside its ideal range.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import reflex as rx

from prettyscore.analysis.explanation import PART_COLOURS, part_colour
from prettyscore.analysis.kinds import BREAKDOWN_NAMES
from prettyscore.core import messages


@dataclasses.dataclass
class ExplanationNote:
    """One measure as the panel lists it (plain text and a colour: no raw figures)."""

    part_name: str = ""
    colour: str = ""
    text: str = ""
    in_range: bool = False


def explanation_notes(stored: list[dict] | None) -> list[ExplanationNote]:
    """The notes of a result or a saved photo, ready for the panel."""
    return [
        ExplanationNote(
            part_name=str(note.get("part_name", "")),
            colour=part_colour(str(note.get("part", ""))),
            text=str(note.get("text", "")),
            in_range=bool(note.get("in_range")),
        )
        for note in stored or []
    ]


def _legend() -> rx.Component:
    return rx.hstack(
        *(
            rx.hstack(
                rx.box(width="10px", height="10px", border_radius="999px", bg=part_colour(part)),
                rx.text(BREAKDOWN_NAMES[part], size="1", color_scheme="gray"),
                align="center",
                spacing="1",
            )
            for part in PART_COLOURS
        ),
        spacing="3",
        wrap="wrap",
        justify="center",
    )


def _note(note: rx.Var) -> rx.Component:
    return rx.hstack(
        rx.box(
            width="10px",
            height="10px",
            min_width="10px",
            border_radius="999px",
            bg=note.colour,
            margin_top="0.45em",
        ),
        rx.text(note.text, size="2", flex="1", min_width="0", overflow_wrap="anywhere"),
        rx.cond(
            note.in_range,
            rx.icon("circle-check", size=16, color="var(--green-10)", aria_label="In range"),
            rx.icon("circle-dot", size=16, color="var(--amber-10)", aria_label="Outside range"),
        ),
        align="start",
        spacing="2",
        width="100%",
        data_testid="explanation-note",
    )


def explanation_panel(image_url: Any, notes: Any) -> rx.Component:
    """The panel, or nothing when the result has no explanation (an engine that does
    not measure, or a photo saved before explanations were kept)."""
    url = rx.Var.create(image_url).to(str)
    return rx.cond(
        url != "",
        rx.card(
            rx.vstack(
                rx.heading(messages.HOW_WE_GOT_YOUR_SCORE, as_="h2", size="5"),
                rx.text(messages.HOW_WE_GOT_YOUR_SCORE_INTRO, size="2", color_scheme="gray"),
                rx.grid(
                    rx.vstack(
                        rx.image(
                            src=url,
                            alt=messages.MEASURED_LINES_ALT,
                            width="100%",
                            max_width="360px",
                            border_radius="14px",
                            loading="lazy",
                        ),
                        _legend(),
                        align="center",
                        spacing="2",
                        width="100%",
                    ),
                    rx.vstack(
                        rx.foreach(rx.Var.create(notes).to(list[ExplanationNote]), _note),
                        spacing="2",
                        width="100%",
                    ),
                    columns=rx.breakpoints(initial="1", md="2"),
                    spacing="4",
                    width="100%",
                ),
                spacing="3",
                width="100%",
            ),
            width="100%",
            data_testid="explanation",
        ),
    )
