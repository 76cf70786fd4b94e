"""The previous builds' files are kept and served beside a new build's, never over them,
and dropped after a week."""

from __future__ import annotations

import os
import time

from prettyscore.ui.kept_assets import KEEP_DAYS, keep, restore


def test_a_rebuild_serves_the_old_names_beside_the_new_and_never_over_them(tmp_path):
    assets, kept = tmp_path / "assets", tmp_path / "kept"
    assets.mkdir()
    (assets / "results-OLD.js").write_text("old build")
    (assets / "shared.css").write_text("old shared")
    assert keep(assets, kept) == 2

    # The build wipes its folder and writes new names (and a file of the same name).
    for file in assets.iterdir():
        file.unlink()
    (assets / "results-NEW.js").write_text("new build")
    (assets / "shared.css").write_text("new shared")
    assert restore(kept, assets) == 1

    assert sorted(p.name for p in assets.iterdir()) == [
        "results-NEW.js",
        "results-OLD.js",
        "shared.css",
    ]
    assert (assets / "shared.css").read_text() == "new shared"  # the new build's own
    assert not list(assets.glob(".*.part"))


def test_files_kept_longer_than_a_week_are_dropped(tmp_path):
    assets, kept = tmp_path / "assets", tmp_path / "kept"
    assets.mkdir()
    kept.mkdir()
    stale, recent = kept / "stale.js", kept / "recent.js"
    stale.write_text("x")
    recent.write_text("y")
    week_ago = time.time() - KEEP_DAYS * 86400 - 60
    os.utime(stale, (week_ago, week_ago))
    keep(assets, kept)
    assert sorted(p.name for p in kept.iterdir()) == ["recent.js"]
