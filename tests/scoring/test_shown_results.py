"""A score a tab shows is kept beside the tab's state: the same tab in the same browser
finds it again when that state was lost, no other tab or browser ever does, and it goes
with the photo it points to, after the visitor's hour."""

from __future__ import annotations

from sqlmodel import select

from prettyscore.core.media import LocalMediaStore
from prettyscore.photos import housekeeping
from prettyscore.scoring import shown
from prettyscore.scoring.models import ShownResult

TAB = "3f1c0d9e-tab-token"
BROWSER = "browser-key-of-this-browser"
AFTER_SIGN_IN = "the-key-a-sign-in-moved-the-browser-to"


def a_result(score: float = 8.4, edited_key: str | None = None) -> dict:
    return {
        "result_id": "r1",
        "image_key": "visitors/v/photo.jpg",
        "score": score,
        "edited_key": edited_key,
        "focus": [0.5, 0.4],
        "breakdown": {"symmetry": 8.1},
    }


def kept(db_factory, tab: str, browser: str) -> dict | None:
    with db_factory() as db:
        return shown.find(db, tab, browser)


def test_the_same_tab_in_the_same_browser_finds_its_latest_result(db_factory):
    with db_factory() as db:
        shown.keep(db, TAB, [BROWSER], a_result(8.4))
    with db_factory() as db:
        shown.keep(db, TAB, [BROWSER], a_result(8.4, edited_key="visitors/v/edit.jpg"))

    found = kept(db_factory, TAB, BROWSER)
    assert found["score"] == 8.4
    assert found["edited_key"] == "visitors/v/edit.jpg"  # the edit, not the first result
    assert found["focus"] == [0.5, 0.4]


def test_after_a_sign_in_either_key_of_the_browser_finds_it(db_factory):
    with db_factory() as db:
        shown.keep(db, TAB, [BROWSER, AFTER_SIGN_IN], a_result())

    assert kept(db_factory, TAB, BROWSER)["score"] == 8.4  # the socket still open
    assert kept(db_factory, TAB, AFTER_SIGN_IN)["score"] == 8.4  # the next socket


def test_another_tab_or_another_browser_never_finds_it(db_factory):
    with db_factory() as db:
        shown.keep(db, TAB, [BROWSER], a_result())

    assert kept(db_factory, "another-tab", BROWSER) is None
    # The tab's token alone (it travels in the socket's address) opens nothing.
    assert kept(db_factory, TAB, "another-browser") is None
    assert kept(db_factory, TAB, "") is None


def test_a_tab_without_a_browser_key_keeps_nothing(db_factory):
    with db_factory() as db:
        shown.keep(db, TAB, ["", ""], a_result())
    with db_factory() as db:
        assert db.exec(select(ShownResult)).all() == []


def test_only_digests_of_the_token_and_the_keys_are_stored(db_factory):
    with db_factory() as db:
        shown.keep(db, TAB, [BROWSER], a_result())
    with db_factory() as db:
        row = db.exec(select(ShownResult)).one()
    stored = f"{row.tab_digest} {row.browser_digests}"
    assert TAB not in stored
    assert BROWSER not in stored


def test_the_kept_result_goes_with_its_photo_after_the_hour(db_factory, clock, tmp_path):
    with db_factory() as db:
        shown.keep(db, TAB, [BROWSER], a_result())
        shown.keep(db, "a-later-tab", [BROWSER], a_result())
    clock.advance(minutes=59)
    with db_factory() as db:
        shown.keep(db, "a-later-tab", [BROWSER], a_result(9.1))
    clock.advance(minutes=2)

    assert kept(db_factory, TAB, BROWSER) is None
    housekeeping.run_once(LocalMediaStore(tmp_path), db_factory)

    with db_factory() as db:
        left = db.exec(select(ShownResult)).all()
    assert len(left) == 1
    assert left[0].result["score"] == 9.1
