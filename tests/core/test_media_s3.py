"""What only object storage has, on a real S3 server (SeaweedFS, ``tests.fixtures.
object_storage``): the bucket's checks at start, a private bucket, visitor files expiring
by their objects' dates."""

from __future__ import annotations

import logging
import time
import uuid

import httpx
import pytest

from prettyscore.core import constants
from prettyscore.core.media import (
    MediaOwner,
    MediaStoreUnavailable,
    check_media_store,
    get_media_store,
)
from prettyscore.core.media_s3 import S3MediaStore, make_client
from prettyscore.core.settings import get_settings
from prettyscore.photos import housekeeping
from tests.fixtures.media import owner_keys, stored_keys
from tests.fixtures.object_storage import ACCESS_KEY_ID, REGION
from tests.helpers.private_services import free_port


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SECRET_KEY", "test-secret")
    get_settings.cache_clear()
    yield monkeypatch
    monkeypatch.undo()
    get_settings.cache_clear()


def start_error(caplog) -> tuple[str, list[str]]:
    """The error ``check_media_store`` stops the start with, and the lines it logged."""
    get_settings.cache_clear()
    with caplog.at_level(logging.CRITICAL), pytest.raises(MediaStoreUnavailable) as raised:
        check_media_store()
    lines = [record.getMessage() for record in caplog.records if record.levelname == "CRITICAL"]
    return str(raised.value), lines


# ---------------------------------------------------------------------------
# At start
# ---------------------------------------------------------------------------
def test_a_missing_bucket_stops_the_start_with_one_line_naming_it(
    app_env, s3_settings, s3_server, caplog
):
    app_env.setenv("S3_BUCKET", "no-such-bucket")
    error, lines = start_error(caplog)
    assert error == (
        f"S3 bucket 'no-such-bucket' at {s3_server.endpoint}: opening the bucket failed: "
        "the bucket does not exist"
    )
    assert lines == [f"Media storage cannot be used: {error}"]


def test_an_unreachable_endpoint_stops_the_start_saying_so(app_env, s3_settings, caplog):
    nobody = f"http://127.0.0.1:{free_port()}"
    app_env.setenv("S3_ENDPOINT_URL", nobody)
    started = time.monotonic()
    error, lines = start_error(caplog)
    assert error.startswith("S3 bucket '") and f"at {nobody}: opening the bucket failed" in error
    assert "Could not connect" in error
    assert len(lines) == 1 and "\n" not in lines[0]
    assert time.monotonic() - started < 30  # a few quick tries, not minutes


def test_wrong_keys_stop_the_start_saying_which(app_env, s3_settings, caplog):
    app_env.setenv("S3_SECRET_ACCESS_KEY", "not-the-secret")
    error, _lines = start_error(caplog)
    assert "opening the bucket failed: access denied" in error
    assert "not-the-secret" not in error


def test_s3_without_a_bucket_name_is_refused(app_env, s3_settings, caplog):
    app_env.delenv("S3_BUCKET")
    error, _lines = start_error(caplog)
    assert error == "MEDIA_STORE=s3 needs S3_BUCKET (the bucket's name)"


def test_a_usable_bucket_starts(app_env, s3_settings):
    check_media_store()
    assert isinstance(get_media_store(), S3MediaStore)


# ---------------------------------------------------------------------------
# Private objects
# ---------------------------------------------------------------------------
def test_a_members_photo_cannot_be_read_from_the_bucket_without_our_keys(
    s3_store, s3_server, s3_bucket
):
    key = s3_store.save(b"members photo", owner=MediaOwner.member(uuid.uuid4()), ext="jpg")
    direct = httpx.get(f"{s3_server.endpoint}/{s3_bucket}/{key}")
    listing = httpx.get(f"{s3_server.endpoint}/{s3_bucket}?list-type=2")
    assert direct.status_code == 403 and b"members photo" not in direct.content
    assert listing.status_code == 403 and key.encode() not in listing.content
    stranger = make_client(s3_server.endpoint, ACCESS_KEY_ID, "a-guessed-secret", REGION)
    with pytest.raises(MediaStoreUnavailable, match="does not match|access denied"):
        S3MediaStore(stranger, s3_bucket, endpoint=s3_server.endpoint).read(key)
    assert s3_store.read(key) == b"members photo"


def test_a_missing_object_is_file_not_found_and_a_gone_bucket_is_unavailable(s3_store, s3_server):
    member = MediaOwner.member(uuid.uuid4())
    with pytest.raises(FileNotFoundError):
        s3_store.read(s3_store.new_key(owner=member, ext="jpg"))
    gone = S3MediaStore(s3_server.client(), "no-such-bucket", endpoint=s3_server.endpoint)
    with pytest.raises(MediaStoreUnavailable, match="'no-such-bucket'.*writing a file failed"):
        gone.save(b"x", owner=member, ext="jpg")


# ---------------------------------------------------------------------------
# Visitors' files expire
# ---------------------------------------------------------------------------
def test_housekeeping_purges_visitors_objects_after_an_hour_and_keeps_members(s3_store, db_factory):
    visitor = s3_store.save(b"visitor", owner=MediaOwner.visitor("someone"), ext="jpg")
    member = s3_store.save(b"member", owner=MediaOwner.member(uuid.uuid4()), ext="jpg")
    ttl = constants.VISITOR_RESULT_TTL_SECONDS

    assert housekeeping.run_once(s3_store, db_factory, now=time.time() + ttl - 60) == 0
    assert housekeeping.run_once(s3_store, db_factory, now=time.time() + ttl + 5) == 1
    assert not s3_store.exists(visitor)
    assert owner_keys(s3_store) == [member]


def test_the_purge_lists_past_a_page_of_a_thousand(s3_store):
    owner = MediaOwner.visitor("many")
    keys = [s3_store.new_key(owner=owner, ext="png") for _ in range(1005)]
    for key in keys:
        s3_store.client.put_object(Bucket=s3_store.bucket, Key=key, Body=b"")
    assert s3_store.purge_visitor_files(now=time.time() + 2 * 3600) == 1005
    assert stored_keys(s3_store) == []


def test_the_app_checks_the_storage_first_as_it_starts(app_env, s3_settings):
    import prettyscore.prettyscore as prettyscore_app
    from prettyscore.photos.housekeeping import purge_visitor_media_forever

    tasks = list(prettyscore_app.app.get_lifespan_tasks())
    assert tasks.index(check_media_store) < tasks.index(purge_visitor_media_forever)
    app_env.setenv("S3_BUCKET", "no-such-bucket")
    get_settings.cache_clear()
    with pytest.raises(MediaStoreUnavailable, match="'no-such-bucket'"):
        tasks[tasks.index(check_media_store)]()
