"""Before/after pictures of every edit preset, for reviewing what the local engine does.

    PYTHONPATH=. .venv/bin/python scripts/edit_gallery.py [out_dir]   (default: docs/edits)

Writes one JPEG per preset: the photo, then the preset's result, side by side, for
scikit-image's astronaut (a studio portrait). Regenerate it after changing an edit.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from PIL import Image, ImageDraw
from skimage import data

from prettyscore.editing import presets
from prettyscore.editing.engines.local import LocalEditEngine

TILE = 384


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def before_after(before: Image.Image, after: Image.Image, title: str) -> Image.Image:
    sheet = Image.new("RGB", (2 * TILE, TILE + 28), "white")
    sheet.paste(before.resize((TILE, TILE)), (0, 28))
    sheet.paste(after.resize((TILE, TILE)), (TILE, 28))
    ImageDraw.Draw(sheet).text((8, 8), f"Before  |  {title}", fill="black")
    return sheet


def main(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    photo = Image.fromarray(data.astronaut())
    engine = LocalEditEngine()
    for preset in presets.TAB_PRESETS:
        sheet = before_after(photo, engine.edit(photo, preset), preset)
        path = out_dir / f"astronaut-{slug(preset)}.jpg"
        sheet.save(path, quality=85)
        print(path)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/edits"))
