"""Before/after sheets of every editor preset, for reviewing what the local engine does.

    PYTHONPATH=. .venv/bin/python scripts/edit_gallery.py [out_dir]   (default: docs/edits)

Writes one JPEG per preset of the editor's tabs, and per custom prompt of ``PROMPTS``
(``docs/edits/<preset>.jpg``): the portraits in a row, each photo above its result (for
the Hair tab and the skin, a close-up of the head, where the change is). The portraits
are scikit-image's astronaut (a studio portrait) and the head-and-shoulders crops of the
``face_recognition`` test photos that the fairness corpus uses (``tests.fixtures.corpus``:
fetched from the package index once, then kept in ``.tools/test-photos/``). Prints how
long each preset takes on each photo, and on the astronaut enlarged to a 1024-pixel side.
Regenerate the sheets after changing an edit.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from PIL import Image, ImageDraw

from prettyscore.editing import presets
from prettyscore.editing.engines.local import LocalEditEngine
from tests.fixtures import corpus

TILE_HEIGHT = 300
TITLE_HEIGHT = 26
GAP = 4
QUALITY = 80
# The face_recognition photos shown beside the astronaut.
OTHERS = ("biden.jpg", "obama.jpg", "obama3.jpg")
TIMING_SIDE = 1024
# Custom prompts shown too, in a user's plain words: edits no tab has a button for, and
# the presets asked for as people ask.
HEAD_PROMPTS = (
    "Smooth my skin",
    "make my hair blonde",
    "give me highlights",
    "make my hair shinier",
    "make my hair fuller",
)
PROMPTS = (
    *HEAD_PROMPTS,
    "put me in a suit",
    "wear a blazer",
    "put me in a sweater",
    "make my shirt more colourful",
    "blur the background",
)
CLOSE_UPS = (*presets.PRESET_GROUPS[presets.HAIR], *HEAD_PROMPTS)


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def portraits() -> list[corpus.Photo]:
    wanted = ("astronaut", *OTHERS)
    found = {photo.name: photo for photo in corpus.portraits()}
    return [found[name] for name in wanted]


def head(photo: corpus.Photo) -> tuple[int, int, int, int]:
    """A close-up around the head (left, top, right, bottom), inside the photo."""
    x, y, w, h = photo.face_box
    height, width = photo.image.shape[:2]
    return (
        max(0, round(x - 0.75 * w)),
        max(0, round(y - 0.75 * h)),
        min(width, round(x + 1.75 * w)),
        min(height, round(y + 1.35 * h)),
    )


def tile(image: Image.Image) -> Image.Image:
    width = round(image.width * TILE_HEIGHT / image.height)
    return image.resize((width, TILE_HEIGHT), Image.Resampling.LANCZOS)


def sheet(pairs: list[tuple[Image.Image, Image.Image]], title: str) -> Image.Image:
    """The photos in a row, each above its edited version, under a title."""
    befores = [tile(before) for before, _ in pairs]
    afters = [tile(after) for _, after in pairs]
    width = sum(t.width for t in befores) + GAP * (len(pairs) - 1)
    height = TITLE_HEIGHT + 2 * TILE_HEIGHT + GAP
    canvas = Image.new("RGB", (width, height), "white")
    left = 0
    for before, after in zip(befores, afters, strict=True):
        canvas.paste(before, (left, TITLE_HEIGHT))
        canvas.paste(after, (left, TITLE_HEIGHT + TILE_HEIGHT + GAP))
        left += before.width + GAP
    ImageDraw.Draw(canvas).text((8, 7), f"{title}   (top: photo, bottom: edited)", fill="black")
    return canvas


def timed(engine: LocalEditEngine, image: Image.Image, preset: str) -> tuple[Image.Image, float]:
    start = time.perf_counter()
    result = engine.edit(image, preset)
    return result, time.perf_counter() - start


def main(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    photos = portraits()
    engine = LocalEditEngine()
    large = Image.fromarray(photos[0].image).resize(
        (TIMING_SIDE, TIMING_SIDE), Image.Resampling.LANCZOS
    )
    names = [photo.name.removesuffix(".jpg") for photo in photos]
    print(f"{'preset':34}" + "".join(f"{n:>11}" for n in names) + f"{'1024 px':>11}")
    engine.edit(large, presets.BLUR_BACKGROUND)  # loads the models: not part of a timing
    for preset in (*presets.TAB_PRESETS, *PROMPTS):
        close_up = preset in CLOSE_UPS
        pairs, seconds = [], []
        for photo in photos:
            image = Image.fromarray(photo.image)
            result, took = timed(engine, image, preset)
            if close_up:
                image, result = image.crop(head(photo)), result.crop(head(photo))
            pairs.append((image, result))
            seconds.append(took)
        seconds.append(timed(engine, large, preset)[1])
        path = out_dir / f"{slug(preset)}.jpg"
        sheet(pairs, preset).save(path, quality=QUALITY, optimize=True)
        size = path.stat().st_size // 1024
        print(f"{preset:34}" + "".join(f"{s:10.2f}s" for s in seconds) + f"   {path} {size} KB")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/edits"))
