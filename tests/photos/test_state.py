"""My Photos' handlers as the browser calls them: a photo deleted in another tab."""

from __future__ import annotations

import pytest

from prettyscore.core import messages
from prettyscore.core.db import session_scope
from prettyscore.core.media import get_media_store
from prettyscore.core.settings import get_settings
from prettyscore.photos import service
from prettyscore.photos.state import PhotosState
from tests.fixtures.handlers import as_user, call
from tests.fixtures.people import member_session
from tests.photos.test_service import visitor_result


@pytest.fixture
def store(app_database, tmp_path, monkeypatch):
    """The app's own media store, in this test's folder."""
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    get_settings.cache_clear()
    yield get_media_store()
    get_settings.cache_clear()


def test_a_photo_deleted_in_another_tab_fails_to_download(store):
    with session_scope() as db:
        someone = member_session(db)
        photo_id = str(service.save_result(db, store, someone.user_id, visitor_result(store)).id)
    tab = as_user(PhotosState, someone)
    call(tab, "load_more")
    call(tab, "open_details", photo_id)
    assert tab.details_open and tab.selected.id == photo_id
    assert call(tab, "download_photo", "original").toasts == [
        ("success", messages.PHOTO_DOWNLOADED)
    ]

    with session_scope() as db:  # the other tab deletes it
        service.delete_photo(db, store, someone.user_id, photo_id)

    assert call(tab, "download_photo", "original").toasts == [
        ("error", messages.FAILED_TO_DOWNLOAD_PHOTO)
    ]


def test_nothing_selected_is_no_photo_to_download(store):
    with session_scope() as db:
        someone = member_session(db)
    tab = as_user(PhotosState, someone)
    assert call(tab, "download_photo", "original").toasts == [
        ("error", messages.NO_PHOTO_TO_DOWNLOAD)
    ]


def test_deleting_a_photo_already_deleted_in_another_tab_just_finishes(store):
    with session_scope() as db:
        someone = member_session(db)
        photo_id = str(service.save_result(db, store, someone.user_id, visitor_result(store)).id)
    tab = as_user(PhotosState, someone)
    call(tab, "load_more")
    call(tab, "open_details", photo_id)

    with session_scope() as db:  # the other tab deletes it
        service.delete_photo(db, store, someone.user_id, photo_id)

    assert call(tab, "delete_selected").toasts == [("success", messages.PHOTO_DELETED)]
    assert not tab.details_open and tab.selected.id == ""
    assert (tab.photos, tab.total) == ([], 0)
