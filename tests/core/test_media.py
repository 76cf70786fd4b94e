"""Media storage: keys, atomic writes, traversal, purge, ownership moves.

The behaviour every store must have runs on both (``any_store``: the local folder and a
bucket of a real S3 server); what only a folder has (paths, symlinks, temp files) runs on
the local store (``store``)."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest

from prettyscore.core import constants
from prettyscore.core.media import (
    TEMP_PREFIX,
    InvalidMediaKey,
    LocalMediaStore,
    MediaOwner,
    get_media_store,
    key_from_url,
    media_url,
    parse_key,
    visitor_id,
)
from prettyscore.core.media_s3 import S3MediaStore
from prettyscore.core.settings import get_settings
from tests.fixtures.media import owner_keys, stored_keys

SECRET = "visitor-cookie-secret-value"


@pytest.fixture
def store(any_store):
    """Each test here runs on the local folder and on a bucket of a real S3 server."""
    return any_store


@pytest.fixture
def local_store(tmp_path) -> LocalMediaStore:
    """For what only a folder has: paths, symlinks, temp files, modification times."""
    return LocalMediaStore(tmp_path / "media")


@pytest.fixture
def member() -> MediaOwner:
    return MediaOwner.member(uuid.uuid4())


def files_under(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*") if path.is_file())


def age(path: Path, seconds: float) -> None:
    """Make ``path`` look last written ``seconds`` ago."""
    moment = time.time() - seconds
    os.utime(path, (moment, moment))


# ---------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------
def test_save_read_delete_round_trip(store, member):
    key = store.save(b"jpeg bytes", owner=member, ext="jpg")
    assert key.startswith(f"u/{member.owner_id}/") and key.endswith(".jpg")
    assert store.read(key) == b"jpeg bytes"
    assert store.exists(key)
    assert store.delete(key) is True
    assert not store.exists(key)
    assert store.delete(key) is False
    with pytest.raises(FileNotFoundError):
        store.read(key)


def test_keys_are_unguessable_and_unique(store, member):
    keys = {store.save(b"x", owner=member, ext="png") for _ in range(200)}
    assert len(keys) == 200
    tokens = {Path(key).stem for key in keys}
    assert len(tokens) == 200
    assert all(len(token) == 32 for token in tokens)  # 24 random bytes, url-safe base64


def test_a_visitor_folder_is_a_hash_of_the_secret_never_the_secret(store):
    owner = MediaOwner.visitor(SECRET)
    key = store.save(b"x", owner=owner, ext="jpg")
    assert owner.owner_id == visitor_id(SECRET)
    assert len(owner.owner_id) == 32
    assert SECRET not in key
    assert key.startswith(f"v/{visitor_id(SECRET)}/")
    assert visitor_id(SECRET) != visitor_id(SECRET + "x")


def test_parse_key_and_urls(store, member):
    key = store.save(b"x", owner=member, ext="webp")
    parsed = parse_key(key)
    assert parsed.owner == member and parsed.ext == "webp"
    assert parsed.content_type == "image/webp"
    assert media_url(key) == f"/media/{key}"
    assert key_from_url(media_url(key)) == key
    assert key_from_url("/media/../secret") is None
    assert key_from_url("https://elsewhere.example/x.jpg") is None
    assert key_from_url(None) is None


# A fixed owner id, so that every run (and every parallel worker) names these cases alike.
SOME_OWNER = uuid.UUID("3f1c9a52-7d4e-4b8a-9c61-2e5f0a7b8d94")


@pytest.mark.parametrize(
    "key",
    [
        "../secret_key",
        "u/../../secret_key",
        "/etc/passwd",
        "u\\..\\..\\secret_key",
        f"u/{SOME_OWNER}/../../../etc/passwd",
        f"u/{SOME_OWNER}/{'A' * 32}.jpg/..",
        f"u/{SOME_OWNER}/{'A' * 31}.jpg",  # too short a token
        f"u/{SOME_OWNER}/{'A' * 32}.exe",  # unknown extension
        f"u/{str(SOME_OWNER).upper()}/{'A' * 32}.jpg",
        f"x/{SOME_OWNER}/{'A' * 32}.jpg",  # unknown prefix
        f"v/{'a' * 31}/{'A' * 32}.jpg",
        f"u/{SOME_OWNER}/{'A' * 32}.jpg\n",
        f"u/{SOME_OWNER}",
        "",
    ],
)
def test_malformed_and_traversal_keys_are_refused(store, key):
    if isinstance(store, LocalMediaStore):
        with pytest.raises(InvalidMediaKey):
            store.path(key)
    with pytest.raises(InvalidMediaKey):
        store.read(key)
    with pytest.raises(InvalidMediaKey):
        store.delete(key)
    assert store.exists(key) is False
    assert store.open(key) is None


def test_a_symlink_leaving_the_root_is_refused(local_store, member, tmp_path):
    store = local_store
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ("A" * 32 + ".jpg")).write_bytes(b"secret")
    folder = store.root / "u"
    folder.mkdir(parents=True)
    (folder / member.owner_id).symlink_to(outside)
    with pytest.raises(InvalidMediaKey):
        store.path(f"u/{member.owner_id}/{'A' * 32}.jpg")


def test_unknown_extensions_and_owner_ids_are_refused_on_save(store, member):
    with pytest.raises(ValueError):
        store.save(b"x", owner=member, ext="html")
    with pytest.raises(InvalidMediaKey):
        MediaOwner("u", "../../etc")
    with pytest.raises(ValueError):
        MediaOwner.visitor("")


# ---------------------------------------------------------------------------
# Atomic writes
# ---------------------------------------------------------------------------
def test_writes_leave_no_temp_files(store, member):
    sizes = (0, 1, 5 * 1024 * 1024)
    keys = [store.save(b"\x01" * size, owner=member, ext="jpg") for size in sizes]
    assert stored_keys(store) == sorted(keys)
    assert [len(store.read(key)) for key in keys] == list(sizes)


def test_a_failed_write_leaves_nothing_behind(store, member):
    with pytest.raises(TypeError):
        store.save("not bytes", owner=member, ext="jpg")  # the write itself fails
    assert stored_keys(store) == []


def test_open_gives_the_size_date_and_any_range_of_the_bytes(store, member):
    data = bytes(range(256)) * 1000
    before = time.time()
    stored = store.open(store.save(data, owner=member, ext="mp4"))
    assert stored.size == len(data)
    assert before - 2 <= stored.modified <= time.time() + 2  # S3 dates have whole seconds
    assert b"".join(stored.chunks(0, len(data) - 1)) == data
    assert b"".join(stored.chunks(1000, 1999)) == data[1000:2000]
    assert store.open(store.new_key(owner=member, ext="jpg")) is None  # never written


# ---------------------------------------------------------------------------
# Purge, account deletion, moving a visitor's result to a member
# ---------------------------------------------------------------------------
def test_purge_removes_only_old_visitor_files(store, member):
    """On S3 the age is the object's LastModified (whole seconds): the purge is run as
    if an hour had gone by since the first file, and the second is written 2 s later."""
    ttl = constants.VISITOR_RESULT_TTL_SECONDS
    old_visitor = store.save(b"old", owner=MediaOwner.visitor("a"), ext="jpg")
    old_member = store.save(b"kept", owner=member, ext="jpg")
    written = time.time()
    time.sleep(2)
    new_visitor = store.save(b"new", owner=MediaOwner.visitor("b"), ext="jpg")

    assert store.purge_visitor_files(now=written + ttl + 1) == 1
    assert not store.exists(old_visitor)
    assert store.exists(new_visitor) and store.exists(old_member)
    assert store.purge_visitor_files(now=written + ttl + 1) == 0
    assert store.purge_visitor_files(now=time.time() + ttl * 24) == 1  # members' stay
    assert owner_keys(store) == [old_member]


def test_purge_removes_crash_leftovers_and_empty_folders(local_store, member):
    store = local_store
    old_visitor = store.save(b"old", owner=MediaOwner.visitor("a"), ext="jpg")
    new_visitor = store.save(b"new", owner=MediaOwner.visitor("b"), ext="jpg")
    old_member = store.save(b"kept", owner=member, ext="jpg")
    age(store.path(old_visitor), constants.VISITOR_RESULT_TTL_SECONDS + 60)
    age(store.path(old_member), constants.VISITOR_RESULT_TTL_SECONDS * 24)
    leftover = store.root / "u" / member.owner_id / (TEMP_PREFIX + "crashed")
    leftover.write_bytes(b"half")
    age(leftover, constants.VISITOR_RESULT_TTL_SECONDS + 60)

    assert store.purge_visitor_files() == 2  # the old visitor file and the crash leftover
    assert not store.exists(old_visitor)
    assert not store.path(old_visitor).parent.exists()  # the empty visitor folder went too
    assert store.exists(new_visitor) and store.exists(old_member)
    assert not leftover.exists()
    assert store.purge_visitor_files() == 0


def test_purge_with_a_shorter_age(local_store):
    store = local_store
    key = store.save(b"x", owner=MediaOwner.visitor("a"), ext="png")
    age(store.path(key), 10)
    assert store.purge_visitor_files(older_than_seconds=60) == 0
    assert store.purge_visitor_files(older_than_seconds=5) == 1


def test_purge_of_an_empty_store(store):
    assert store.purge_visitor_files() == 0


def test_delete_owner_removes_a_members_whole_folder_only(store, member):
    other = MediaOwner.member(uuid.uuid4())
    mine = [store.save(b"x", owner=member, ext="jpg") for _ in range(3)]
    theirs = store.save(b"y", owner=other, ext="jpg")
    store.delete_owner(member)
    assert not any(store.exists(key) for key in mine)
    assert owner_keys(store) == [theirs]
    if isinstance(store, LocalMediaStore):
        assert not (store.root / "u" / member.owner_id).exists()
    store.delete_owner(member)  # deleting twice is fine


def test_move_to_member_gives_the_file_a_new_key_in_the_members_folder(store):
    user_id = uuid.uuid4()
    visitor_key = store.save(b"result", owner=MediaOwner.visitor(SECRET), ext="jpg")
    member_key = store.move_to_member(visitor_key, user_id)
    assert member_key.startswith(f"u/{user_id}/") and member_key.endswith(".jpg")
    assert Path(member_key).stem != Path(visitor_key).stem
    assert store.read(member_key) == b"result"
    assert not store.exists(visitor_key)
    with pytest.raises(InvalidMediaKey):
        store.move_to_member(member_key, uuid.uuid4())  # members' files are not moved
    with pytest.raises(FileNotFoundError):
        store.move_to_member(visitor_key, user_id)


def test_get_media_store_uses_the_configured_bucket_once_per_process(
    s3_settings, s3_bucket, tmp_path, monkeypatch
):
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SECRET_KEY", "test-secret")
    get_settings.cache_clear()
    try:
        chosen = get_media_store()
        assert isinstance(chosen, S3MediaStore) and chosen.bucket == s3_bucket
        assert get_media_store() is chosen  # one client (and its connections) per process
        chosen.check()
    finally:
        get_settings.cache_clear()


def test_an_unknown_media_store_setting_names_the_variable(monkeypatch):
    from prettyscore.core.settings import load_settings

    monkeypatch.setenv("MEDIA_STORE", "ftp")
    with pytest.raises(ValueError, match="MEDIA_STORE"):
        load_settings()


def test_get_media_store_uses_the_configured_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("SECRET_KEY", "test-secret")
    get_settings.cache_clear()
    try:
        assert get_media_store().root == (tmp_path / "elsewhere").resolve()
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def test_files_doomed_by_a_change_go_only_when_the_transaction_itself_commits(store, member):
    from sqlalchemy import text
    from sqlmodel import Session, create_engine

    key = store.save(b"\xff\xd8 old photo", owner=member, ext="jpg")
    with Session(create_engine("sqlite://")) as db:
        db.execute(text("SELECT 1"))
        store.delete_after_commit(db, [key])
        with db.begin_nested():  # a savepoint's release is reported as a commit too
            db.execute(text("SELECT 1"))
        kept_after_savepoint = store.exists(key)
        db.commit()

    assert kept_after_savepoint
    assert not store.exists(key)
