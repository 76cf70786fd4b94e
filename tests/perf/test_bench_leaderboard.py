"""Benchmark: the leaderboard's first page with 100,000 listed photos.

Prints figures and the query plan; asserts nothing about time (the machine's load
decides those). Runs once per database (SQLite, and PostgreSQL where it answers):
``.venv/bin/python -m pytest tests/perf/test_bench_leaderboard.py -s``.
"""

from __future__ import annotations

import random
import statistics
import time
import uuid
from datetime import timedelta

from sqlalchemy import insert, text
from sqlmodel import Session

from prettyscore.accounts import service as accounts
from prettyscore.core.model_types import utcnow
from prettyscore.leaderboard import service
from prettyscore.photos.models import Photo

LISTED_PHOTOS = 100_000
UNLISTED_PHOTOS = 20_000
RUNS = 30
BATCH = 5_000


def photo_rows(user_id: uuid.UUID, count: int, *, listed: bool) -> list[dict]:
    """Photos with scores on the app's one-decimal scale, so many ties, over 30 days."""
    start = utcnow() - timedelta(days=30)
    rng = random.Random(6 if listed else 7)
    return [
        {
            "id": uuid.uuid4(),
            "user_id": user_id,
            "original_image_url": f"/media/u/{user_id}/{index}.jpg",
            "score": round(rng.uniform(3.0, 10.0), 1),
            "rating_label": "Stunning",
            "breakdown": {},
            "photo_type": "face",
            "public_listing": listed,
            "featured": False,
            "is_verified": index % 3 == 0,
            "display_name": f"Contestant {index}",
            "created_at": start + timedelta(seconds=rng.randrange(30 * 86_400)),
        }
        for index in range(count)
    ]


def bulk_insert(db: Session, rows: list[dict]) -> None:
    for first in range(0, len(rows), BATCH):
        db.execute(insert(Photo.__table__), rows[first : first + BATCH])


def timed_ms(fn) -> list[float]:
    figures = []
    for _ in range(RUNS):
        started = time.perf_counter()
        fn()
        figures.append((time.perf_counter() - started) * 1000.0)
    return figures


def summary(figures: list[float]) -> str:
    ordered = sorted(figures)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * len(ordered)) - 1)]
    return f"median {statistics.median(ordered):7.2f} ms   p95 {p95:7.2f} ms"


def plan(db: Session, query) -> str:
    dialect = db.get_bind().dialect
    sql = str(query.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
    if dialect.name == "sqlite":
        rows = db.execute(text(f"EXPLAIN QUERY PLAN {sql}")).all()
        return "\n".join(f"  {row[-1]}" for row in rows)
    rows = db.execute(text(f"EXPLAIN (ANALYZE, BUFFERS) {sql}")).all()
    return "\n".join(f"  {row[0]}" for row in rows)


def test_bench_first_page_of_100k_listed_photos(db_engine) -> None:
    with Session(db_engine, expire_on_commit=False) as db:
        owner = accounts.sign_up(db, "bench@example.com", "secret1").user_id
        started = time.perf_counter()
        bulk_insert(db, photo_rows(owner, LISTED_PHOTOS, listed=True))
        bulk_insert(db, photo_rows(owner, UNLISTED_PHOTOS, listed=False))
        db.commit()
        loaded = time.perf_counter() - started
        db.execute(text("ANALYZE"))
        db.commit()

    with Session(db_engine, expire_on_commit=False) as db:
        first = service.leaderboard_page(db, offset=0, limit=service.PAGE_SIZE)
        assert first.total == LISTED_PHOTOS and len(first.entries) == service.PAGE_SIZE
        middle_id = service.leaderboard_page(db, offset=50_000, limit=1).entries[0].photo_id
        assert service.rank_of(db, middle_id) == 50_001

        first_page = timed_ms(lambda: service.leaderboard_page(db, offset=0, limit=20))
        rows_only = timed_ms(lambda: db.exec(service.page_query(0, 20)).all())
        deep_page = timed_ms(lambda: service.leaderboard_page(db, offset=5_000, limit=20))
        deepest = timed_ms(lambda: service.leaderboard_page(db, offset=99_980, limit=20))
        before_last = service.leaderboard_page(db, offset=99_979, limit=1).entries[0].photo_id
        by_position = service.leaderboard_page(db, offset=99_980, limit=20)
        by_keyset = service.leaderboard_page(db, offset=99_980, limit=20, after=before_last)
        assert by_keyset.entries == by_position.entries and by_keyset.entries[0].rank == 99_981
        keyset_deepest = timed_ms(
            lambda: service.leaderboard_page(db, offset=99_980, limit=20, after=before_last)
        )
        count = timed_ms(lambda: service.listed_count(db))
        rank = timed_ms(lambda: service.rank_of(db, middle_id))
        name = db.get_bind().dialect.name
        print(f"\n[{name}] {LISTED_PHOTOS:,} listed + {UNLISTED_PHOTOS:,} unlisted photos, ")
        print(f"  inserted in {loaded:.1f} s; {RUNS} runs each")
        print(f"  first page (20 rows + total):   {summary(first_page)}")
        print(f"  first page rows only:           {summary(rows_only)}")
        print(f"  page at rank 5,001 (+ total):   {summary(deep_page)}")
        print(f"  last page (rank 99,981, + total): {summary(deepest)}")
        print(f"  last page after the entry shown:  {summary(keyset_deepest)}")
        print(f"  total count alone:              {summary(count)}")
        print(f"  rank_of a photo at rank 50,001: {summary(rank)}")
        print(f"  plan of the first page:\n{plan(db, service.page_query(0, 20))}")
