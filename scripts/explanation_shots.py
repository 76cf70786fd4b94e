"""Screenshots of what the score measures, on a desktop and a 390-px phone.

    eval "$(scripts/js-env)"; PYTHONPATH=. .venv/bin/python scripts/explanation_shots.py [out_dir]
    (default out_dir: docs/analysis)

Starts the app as the browser tests do (a production build on a free port, its data in
a temporary folder), signs a new member up, scores scikit-image's astronaut through
/upload in Chromium and saves the panel as ``explanation-desktop.png`` (1280 px wide) and
``explanation-phone.png`` (390 px wide); How It Works' analysed aspects
(``how-it-works-*.png``), Home's fairness claim (``home-values-*.png``) and "Which photo
shows you best" ranking three of the CC0 ``same_person`` photos (``best-photo-*.png``).
Regenerate them after changing a measure, an ideal, the panel or those pages.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PIL import Image
from playwright.sync_api import expect, sync_playwright
from skimage import data

from prettyscore.core import messages
from prettyscore.site import copy
from tests.e2e.flows import new_member, score_from_upload_page, shown_explanation
from tests.fixtures.browser import CHROMIUM, CHROMIUM_ARGS
from tests.helpers.app_server import running_app

# The phone is 390 px wide; tall enough that the whole panel shows without scrolling,
# so the sticky header does not cover its top in the picture.
VIEWPORTS = {"desktop": (1280, 900), "phone": (390, 4000)}
# A score of 8.5 or more is celebrated with confetti for 3 s: the picture waits it out.
CONFETTI_FALLEN_MS = 4_500
# Three photos of one person, released CC0 (they may be shown in docs).
SAME_PERSON = Path("tests/fixtures/faces/same_person")
BEST_PHOTO_SHOTS = ("lisa1.jpg", "lisa3.jpg", "zoom_60cm.jpg")


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
            page_shots(page, server.base_url, name, out_dir)
            context.close()
        browser.close()


def page_shots(page, base_url: str, name: str, out_dir: Path) -> None:
    """How It Works' aspects, Home's values and a best-photo ranking, at this size."""
    page.goto(f"{base_url}/how-it-works")
    aspects = page.get_by_role("heading", name=copy.HOW_ASPECTS_TITLE).locator("xpath=..")
    expect(aspects).to_be_visible()
    aspects.screenshot(path=out_dir / f"how-it-works-{name}.png")
    page.goto(f"{base_url}/")
    values = page.get_by_role("heading", name=copy.HOME_VALUES_TITLE).locator("xpath=..")
    expect(values).to_be_visible()
    values.screenshot(path=out_dir / f"home-values-{name}.png")
    page.goto(f"{base_url}/best-photo")
    zone = page.get_by_test_id("best-photo-zone").locator("input[type=file]")
    zone.set_input_files([str(SAME_PERSON / photo) for photo in BEST_PHOTO_SHOTS])
    chosen = messages.BEST_PHOTO_CHOSEN.format(count=len(BEST_PHOTO_SHOTS))
    expect(page.get_by_text(chosen)).to_be_visible(timeout=60_000)
    page.get_by_role("button", name=messages.BEST_PHOTO_COMPARE).click()
    cards = page.get_by_test_id("best-photo-card")
    expect(cards).to_have_count(len(BEST_PHOTO_SHOTS), timeout=60_000)
    page.screenshot(path=out_dir / f"best-photo-{name}.png", full_page=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/analysis"))
