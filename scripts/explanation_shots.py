"""Screenshots of "How we got your score" on a desktop and a 390-px phone.

    eval "$(scripts/js-env)"; PYTHONPATH=. .venv/bin/python scripts/explanation_shots.py [out_dir]
    (default out_dir: docs/analysis)

Starts the app as the browser tests do (a production build on a free port, its data in
a temporary folder), signs a new member up, scores scikit-image's astronaut through
/upload in Chromium and saves the panel as ``explanation-desktop.png`` (1280 px wide) and
``explanation-phone.png`` (390 px wide). Regenerate them after changing a measure, an
ideal or the panel.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright
from skimage import data

from tests.e2e.flows import new_member, score_from_upload_page, shown_explanation
from tests.fixtures.browser import CHROMIUM, CHROMIUM_ARGS
from tests.helpers.app_server import running_app

# The phone is 390 px wide; tall enough that the whole panel shows without scrolling,
# so the sticky header does not cover its top in the picture.
VIEWPORTS = {"desktop": (1280, 900), "phone": (390, 4000)}
# A score of 8.5 or more is celebrated with confetti for 3 s: the picture waits it out.
CONFETTI_FALLEN_MS = 4_500


def main(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix="explanation-shots-"))
    face = run_dir / "astronaut.jpg"
    Image.fromarray(data.astronaut()).save(face, format="JPEG", quality=92)
    with running_app("shots", run_dir / "app") as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        for name, (width, height) in VIEWPORTS.items():
            context = browser.new_context(
                viewport={"width": width, "height": height}, base_url=server.base_url
            )
            context.set_default_timeout(20_000)
            page = context.new_page()
            new_member(page, server.base_url, f"shots-{name}")
            score_from_upload_page(page, server.base_url, face)
            panel, _ = shown_explanation(page)
            page.wait_for_timeout(CONFETTI_FALLEN_MS)
            path = out_dir / f"explanation-{name}.png"
            panel.screenshot(path=path)
            print(f"{name}: {path}")
            context.close()
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/analysis"))
