"""Saving a photo while the object storage goes down: the member is told it failed, and
nothing is half-saved. The S3 server (real SeaweedFS) is reached through a TCP proxy the
test cuts, so the server itself, shared by the process's other tests, stays up."""

from __future__ import annotations

import time
from urllib.parse import urlparse

import pytest
from sqlmodel import select
from starlette.applications import Starlette

from prettyscore.core import messages
from prettyscore.core.db import session_scope
from prettyscore.core.media import MediaOwner, MediaStoreUnavailable, media_url
from prettyscore.core.media_s3 import S3MediaStore, make_client
from prettyscore.core.settings import get_settings
from prettyscore.photos import pending, service
from prettyscore.photos.media_api import VISITOR_COOKIE, media_routes
from prettyscore.photos.models import Photo
from prettyscore.scoring.state import ScoreState
from tests.fixtures.handlers import as_user, call
from tests.fixtures.media import owner_keys, stored_keys
from tests.fixtures.object_storage import ACCESS_KEY_ID, REGION, SECRET_ACCESS_KEY
from tests.fixtures.people import member_session
from tests.helpers.tcp_proxy import running_proxy
from tests.photos.test_media_api import Client
from tests.photos.test_service import explained_result


class Storage:
    """The bucket, reached through a proxy that ``go_down`` cuts and ``come_back`` mends."""

    def __init__(self, proxy, server_port: int, bucket: str):
        self.proxy = proxy
        self.server_port = server_port
        self.endpoint = f"http://127.0.0.1:{proxy.port}"
        self.store = S3MediaStore(
            make_client(self.endpoint, ACCESS_KEY_ID, SECRET_ACCESS_KEY, REGION),
            bucket,
            endpoint=self.endpoint,
        )

    def go_down(self) -> None:
        self.proxy.switch_to(None)  # new connections are refused
        self.proxy.close_connections(self.server_port)  # and the pooled ones cut

    def come_back(self) -> None:
        self.proxy.switch_to(self.server_port)


@pytest.fixture
def storage(s3_server, s3_bucket):
    port = urlparse(s3_server.endpoint).port
    with running_proxy(port) as proxy:
        yield Storage(proxy, port, s3_bucket)


def down_after_writes(monkeypatch, storage: Storage, writes: int) -> None:
    """The storage goes down once ``writes`` files have been written."""
    real_write = S3MediaStore.write
    done = []

    def write(self, key, data):
        real_write(self, key, data)
        done.append(key)
        if len(done) == writes:
            storage.go_down()

    monkeypatch.setattr(S3MediaStore, "write", write)


def test_storage_down_between_two_files_of_a_save_leaves_no_photo_and_no_file(
    db, db_factory, storage, monkeypatch
):
    store = storage.store
    result = explained_result(store)  # a save of it writes two files: photo, explanation
    visitor_files = owner_keys(store)
    someone = member_session(db)
    db.commit()
    down_after_writes(monkeypatch, storage, writes=1)

    with pytest.raises(MediaStoreUnavailable, match=f"at {storage.endpoint}: .* failed"):
        service.save_result(db, store, someone.user_id, result)
    db.rollback()

    assert db.exec(select(Photo)).all() == []
    storage.come_back()
    leftover = set(owner_keys(store)) - set(visitor_files)
    assert len(leftover) == 1  # the photo written before the storage went down ...
    later = time.time() + pending.GRACE_SECONDS + 1
    assert pending.sweep_unfinished(store, db_factory, now=later) == 1
    assert owner_keys(store) == visitor_files  # ... is gone with its note
    assert not [key for key in stored_keys(store) if key.startswith(".pending/")]


def test_a_save_with_the_storage_down_shows_the_failure_text_and_keeps_nothing(
    app_database, s3_settings, storage, monkeypatch, tmp_path
):
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("S3_ENDPOINT_URL", storage.endpoint)
    get_settings.cache_clear()
    result = explained_result(storage.store)
    with session_scope() as db:
        someone = member_session(db)
    tab = as_user(ScoreState, someone)
    tab._result = result.to_dict()
    storage.go_down()

    reply = call(tab, "save_photo")

    assert ("error", messages.FAILED_TO_SAVE_PHOTO) in reply.toasts
    assert tab.saved is False
    with session_scope() as db:
        assert db.exec(select(Photo)).all() == []
    storage.come_back()
    assert all(key.startswith("v/") for key in stored_keys(storage.store))

    reply = call(tab, "save_photo")  # the storage is back: the same click now works
    assert ("success", messages.PHOTO_SAVED) in reply.toasts
    with session_scope() as db:
        assert len(db.exec(select(Photo)).all()) == 1


def test_a_photo_asked_for_while_the_storage_is_down_is_503_not_a_stack_trace(
    s3_settings, storage, monkeypatch, tmp_path, caplog
):
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("S3_ENDPOINT_URL", storage.endpoint)
    get_settings.cache_clear()
    key = storage.store.save(b"result", owner=MediaOwner.visitor("the-visitor"), ext="jpg")
    client = Client(Starlette(routes=media_routes()))
    visitor = {"Cookie": f"{VISITOR_COOKIE}=the-visitor"}
    assert client.get(media_url(key), headers=visitor).content == b"result"

    storage.go_down()
    answer = client.get(media_url(key), headers=visitor)

    assert answer.status_code == 503 and answer.headers["cache-control"] == "no-store"
    assert answer.text == "Service Unavailable"
    assert any("could not be served" in record.getMessage() for record in caplog.records)
