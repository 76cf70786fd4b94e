"""A page open across a restart keeps working: the previous builds' files stay served.

Why: every start of the app builds the frontend again, and every build renames every
route module (their names are hashes of their content, and Reflex writes the build's
time, ``last_reflex_run_datetime``, into a module they all import). A page opened
before a restart asks the new server for the old names as soon as it goes to a route
it has not loaded yet: a 404, and React Router reloads the page, which with the
in-memory state loses what the page was about to show (a score just analysed).

How: before the build wipes the output folder, a Reflex plugin copies its assets to a
folder beside it (``kept-assets``, only files not kept yet, with their compressed
copies); when the server starts (a lifespan task, after the build and its compression,
which would otherwise compress the old files again), the kept files the new build lacks
are copied back, so the old names are served next to the new ones. The names are
content hashes: an old file never replaces a new one. Files kept longer than
``KEEP_DAYS`` are dropped, so the folder does not grow for ever.
"""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path
from typing import Any

import reflex as rx
from reflex.utils.prerequisites import get_web_dir

log = logging.getLogger(__name__)

#: How long an open page may go on using a build's files after a newer build.
KEEP_DAYS = 7
KEPT_FOLDER = "kept-assets"
ASSETS = Path("build") / "client" / "assets"


def keep(assets: Path, kept: Path, now: float | None = None) -> int:
    """Copy the files of ``assets`` that ``kept`` lacks into it, and drop the kept files
    older than ``KEEP_DAYS``; how many were copied."""
    now = time.time() if now is None else now
    kept.mkdir(parents=True, exist_ok=True)
    for old in kept.iterdir():
        if old.is_file() and now - old.stat().st_mtime > KEEP_DAYS * 86400:
            old.unlink(missing_ok=True)
    return _copy_missing(assets, kept)


def restore(kept: Path, assets: Path) -> int:
    """Copy the kept files that ``assets`` lacks into it; how many were copied."""
    return _copy_missing(kept, assets) if kept.is_dir() and assets.is_dir() else 0


def _copy_missing(source: Path, target: Path) -> int:
    if not source.is_dir():
        return 0
    copied = 0
    for file in source.iterdir():
        destination = target / file.name
        if file.is_file() and not destination.exists():
            partial = destination.with_name(f".{file.name}.part")
            shutil.copy2(file, partial)
            partial.replace(destination)  # never a half-written file under its name
            copied += 1
    return copied


class KeepPreviousAssets(rx.plugins.Plugin):
    """Keeps the files of the build about to be replaced."""

    def pre_compile(self, **context: Any) -> None:
        web = get_web_dir()
        try:
            keep(web / ASSETS, web / KEPT_FOLDER)
        except OSError as error:  # the new build is served all the same
            log.warning("Could not keep the previous build's files: %s", error)


def serve_kept_assets() -> None:
    """At start (a lifespan task): the kept files of earlier builds, beside this one's."""
    web = get_web_dir()
    try:
        restored = restore(web / KEPT_FOLDER, web / ASSETS)
    except OSError as error:
        log.warning("Could not serve the previous builds' files: %s", error)
        return
    if restored:
        log.info("Serving %d files of previous builds for pages still open", restored)
