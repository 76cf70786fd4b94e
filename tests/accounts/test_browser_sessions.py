"""A browser's refresh token stays on the server, bound to the browser's HttpOnly key
(SQLite and PostgreSQL): only that key renews the session, and ending the session ends
the binding."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, update
from sqlmodel import select

from prettyscore.accounts import service, tokens
from prettyscore.accounts.models import AuthSession, BrowserSession, RefreshToken
from prettyscore.core.errors import NotAuthenticated
from prettyscore.core.media import LocalMediaStore
from prettyscore.core.model_types import utcnow
from prettyscore.photos import service as photos

BROWSER = "the-members-browser-key"
ANOTHER_BROWSER = "someone-elses-browser-key"


def bindings(db) -> int:
    return db.exec(select(func.count()).select_from(BrowserSession)).one()


@pytest.fixture
def signed_in(db):
    """A member who signed in in BROWSER: the browser holds only the access token."""
    session = service.sign_up(db, "bea@example.com", "secret1")
    service.bind_browser(db, BROWSER, session.refresh_token)
    db.commit()
    return session


def test_the_browsers_key_renews_its_session_and_rotates_the_token_on_the_server(db, signed_in):
    renewed = service.renew_browser_session(db, BROWSER)
    db.commit()
    assert renewed is not None and renewed.user_id == signed_in.user_id
    assert service.resolve_user(db, renewed.access_token).session_id == (
        service.resolve_user(db, signed_in.access_token).session_id
    )
    first = db.exec(
        select(RefreshToken).where(
            RefreshToken.token_hash == tokens.hash_secret(signed_in.refresh_token)
        )
    ).one()
    assert first.used_at is not None  # rotated: the bound token is now the new one
    binding = db.exec(select(BrowserSession)).one()
    assert db.get(RefreshToken, binding.refresh_token_id).token_hash == tokens.hash_secret(
        renewed.refresh_token
    )
    again = service.renew_browser_session(db, BROWSER)  # and again, an hour later
    assert again is not None and again.user_id == signed_in.user_id


def test_the_key_is_kept_only_as_its_hash(db, signed_in):
    binding = db.exec(select(BrowserSession)).one()
    assert binding.key_hash == tokens.hash_secret(BROWSER)
    assert BROWSER not in str(db.exec(select(BrowserSession.key_hash)).all())


def test_another_browsers_key_gets_nothing(db, signed_in):
    assert service.renew_browser_session(db, ANOTHER_BROWSER) is None
    assert service.renew_browser_session(db, "") is None
    assert service.browser_member(db, ANOTHER_BROWSER) is None
    assert service.browser_member(db, None) is None
    assert service.browser_member(db, BROWSER) == signed_in.user_id
    # the member's own browser is untouched by those attempts
    assert service.renew_browser_session(db, BROWSER) is not None


def test_signing_the_browser_out_ends_the_session_and_the_binding(db, signed_in):
    service.sign_out_browser(db, BROWSER, signed_in.access_token)
    db.commit()
    assert bindings(db) == 0
    assert service.renew_browser_session(db, BROWSER) is None
    assert service.browser_member(db, BROWSER) is None
    assert service.resolve_user(db, signed_in.access_token) is None
    with pytest.raises(NotAuthenticated):
        service.refresh_session(db, signed_in.refresh_token)


def test_signing_out_without_an_access_token_still_ends_the_bound_session(db, signed_in):
    """After a restart the tab may have no access token yet: the key is enough."""
    service.sign_out_browser(db, BROWSER, "")
    db.commit()
    assert bindings(db) == 0
    assert db.exec(select(AuthSession)).one().revoked_reason == "sign_out_local"


def test_ending_the_session_elsewhere_unbinds_the_browser(db, signed_in):
    elsewhere = service.sign_in(db, "bea@example.com", "secret1")
    service.sign_out(db, elsewhere.access_token, "global")
    db.commit()
    assert bindings(db) == 0
    assert service.renew_browser_session(db, BROWSER) is None


def test_a_revoked_or_expired_session_does_not_renew_and_the_binding_goes(db, signed_in):
    db.execute(update(RefreshToken).values(expires_at=utcnow() - timedelta(seconds=1)))
    db.commit()
    assert service.browser_member(db, BROWSER) is None
    assert service.renew_browser_session(db, BROWSER) is None
    db.commit()
    assert bindings(db) == 0


def test_deleting_the_account_deletes_the_binding(db, signed_in, tmp_path):
    photos.delete_account(db, LocalMediaStore(tmp_path), signed_in.user_id)
    db.commit()
    assert bindings(db) == 0
    assert service.renew_browser_session(db, BROWSER) is None


def test_signing_in_again_in_the_same_browser_replaces_the_binding(db, signed_in):
    other = service.sign_up(db, "cal@example.com", "secret1")
    service.bind_browser(db, BROWSER, other.refresh_token)
    db.commit()
    assert bindings(db) == 1
    assert service.renew_browser_session(db, BROWSER).user_id == other.user_id


def test_binding_needs_a_key_and_a_real_refresh_token(db, signed_in):
    with pytest.raises(NotAuthenticated):
        service.bind_browser(db, "", signed_in.refresh_token)
    with pytest.raises(NotAuthenticated):
        service.bind_browser(db, ANOTHER_BROWSER, "not-a-refresh-token")


def test_two_tabs_renewing_at_once_both_stay_signed_in(db_factory, signed_in):
    """Tabs of one browser share its key; their renewals may race."""
    start, results = threading.Barrier(2), []

    def tab() -> None:
        start.wait()
        with db_factory() as session:
            renewed = service.renew_browser_session(session, BROWSER)
            results.append(renewed.user_id if renewed else None)

    threads = [threading.Thread(target=tab) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert results == [signed_in.user_id] * 2
    with db_factory() as session:
        assert session.exec(select(AuthSession)).one().revoked_at is None
        assert service.renew_browser_session(session, BROWSER).user_id == signed_in.user_id


def test_a_refresh_token_left_in_an_old_cookie_is_spent_and_its_session_bound(db):
    earlier = service.sign_up(db, "dee@example.com", "secret1")
    adopted = service.adopt_browser_refresh_token(db, BROWSER, earlier.refresh_token)
    db.commit()
    assert adopted is not None and adopted.user_id == earlier.user_id
    assert service.renew_browser_session(db, BROWSER).user_id == earlier.user_id
    spent = db.exec(
        select(RefreshToken).where(
            RefreshToken.token_hash == tokens.hash_secret(earlier.refresh_token)
        )
    ).one()
    assert spent.used_at is not None  # the cookie's copy renews nothing any more
    assert service.adopt_browser_refresh_token(db, ANOTHER_BROWSER, "not-a-token") is None
