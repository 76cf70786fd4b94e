"""A shared score's page: its own unguessable address, the score and label, never the
photo's key or anything of the person's."""

from __future__ import annotations

from prettyscore.analysis.service import ScoreResult
from prettyscore.core.settings import get_settings
from prettyscore.scoring import share_links


def shown_result(score: float = 7.4, label: str = "Pretty") -> ScoreResult:
    return ScoreResult(
        result_id="r-1",
        image_key="v/abc/photo.jpg",
        score=score,
        label=label,
        tier_key="pretty",
        emoji="✨",
        color="#ec4899",
        breakdown={"symmetry": 9.0, "skinQuality": 6.5, "facialHarmony": 7.6},
        special_panel="",
    )


def test_each_shared_score_has_its_own_page_with_the_score_and_label(db):
    first = share_links.create_link(db, shown_result(7.4, "Pretty"))
    second = share_links.create_link(db, shown_result(7.4, "Pretty"))
    db.commit()
    assert first != second and len(first) >= 16
    shown = share_links.find(db, first)
    assert (shown.score, shown.label, shown.tier_key) == (7.4, "Pretty", "pretty")
    assert "photo" not in repr(shown) and "v/abc" not in repr(shown)


def test_the_link_is_the_sites_address_and_the_page_of_the_token(db):
    token = share_links.create_link(db, shown_result())
    base = get_settings().public_url.rstrip("/")
    assert share_links.link_url(token) == f"{base}/s/{token}"
    assert share_links.link_url("") == base  # nothing written: the site itself


def test_a_token_no_one_was_given_finds_nothing(db):
    share_links.create_link(db, shown_result())
    db.commit()
    for token in ("", "not-a-token", "x" * 200):
        assert share_links.find(db, token) is None
