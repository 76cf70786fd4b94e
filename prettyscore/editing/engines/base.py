"""The interface every photo-edit engine offers.

``edit(image, prompt)`` takes an RGB Pillow image and returns a new RGB image. It raises
``ValidationFailed``:

- with ``messages.PLEASE_ENTER_EDIT_INSTRUCTION`` when the prompt is empty or blank;
- with ``code="unsupported_edit"`` when the engine cannot carry the instruction out
  (the caller then counts no free edit and shows ``error.message``).

Edits are CPU work (tens to hundreds of milliseconds on a phone photo, more for the
upscale): call them on the bounded photo pool (``core.workers.photo_work``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from PIL import Image

from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed

UNSUPPORTED_EDIT = "unsupported_edit"


@runtime_checkable
class EditEngine(Protocol):
    name: str

    def edit(self, image: Image.Image, prompt: str) -> Image.Image: ...


def require_prompt(prompt: str | None) -> str:
    """The prompt, trimmed; refuses an empty or blank one with the documents' text."""
    text = (prompt or "").strip()
    if not text:
        raise ValidationFailed(messages.PLEASE_ENTER_EDIT_INSTRUCTION)
    return text


def unsupported(message: str) -> ValidationFailed:
    """The error for an instruction the engine cannot carry out (uses no free edit)."""
    return ValidationFailed(message, code=UNSUPPORTED_EDIT)
