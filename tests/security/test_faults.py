"""A backend killed with SIGKILL half-way through its work leaves nothing half done.

The backend runs as a separate process (``tests/helpers/fault_server.py``) on this
backend's migrated database and its own media folder. It is stopped at a named point of
the work (it writes a marker and waits there), killed with SIGKILL, and started again on
the same database and folder. Then we check what a member or Stripe would notice:

- saving a photo: no photo row without its files, and no file in the member's folder
  that no row owns once the app's housekeeping has run; saving again works, once;
- editing a saved photo: the photo shows what it showed before, no undo step, no stray
  file, and the free edit was not spent; the edit done again works and counts once;
- a payment webhook: Stripe retries an event that got no 2xx; the retry fulfils it
  exactly once (one subscription, one paid checkout, one partner conversion).
"""

from __future__ import annotations

import io
import os
import secrets
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from PIL import Image
from skimage import data as skdata
from sqlmodel import Session, select

from prettyscore.accounts.models import Profile, User
from prettyscore.analysis.service import ScoreResult
from prettyscore.billing.models import CheckoutSession, PaymentEvent, Subscription
from prettyscore.core import constants
from prettyscore.core.media import LocalMediaStore, MediaOwner, MediaStore, key_from_url, media_url
from prettyscore.editing import service as editing
from prettyscore.partners.models import PartnerAccount, PartnerConversion, PartnerStatus
from prettyscore.photos import housekeeping
from prettyscore.photos.models import Photo, PhotoEditStep
from tests.api.conftest import FOREIGN_SETTINGS
from tests.helpers import stripe_events
from tests.helpers.api_server import free_port, wait_until_up
from tests.helpers.auth_api import bearer, sign_up

PROJECT_ROOT = Path(__file__).resolve().parents[2]
WEBHOOK_SECRET = "whsec_fault_tests"
AN_HOUR_LATER = 3600 + 60


# ---------------------------------------------------------------------------
# The backend as a process we can kill
# ---------------------------------------------------------------------------
@dataclass
class FaultServer:
    """Starts the backend process, stops it at a kill point and kills it there."""

    database_url: str
    root: Path
    process: subprocess.Popen | None = None
    url: str = ""

    @property
    def media_dir(self) -> Path:
        return self.root / "media"

    @property
    def marker(self) -> Path:
        return self.root / "paused-at"

    def start(self, pause_at: str | None = None) -> None:
        port = free_port()
        environment = {k: v for k, v in os.environ.items() if k not in FOREIGN_SETTINGS}
        environment.update(
            PORT=str(port),
            DATABASE_URL=self.database_url,
            DATA_DIR=str(self.root / "data"),
            MEDIA_DIR=str(self.media_dir),
            OUTBOX_DIR=str(self.root / "outbox"),
            SECRET_KEY="fault-tests-secret-key-0123456789abcdef",
            STRIPE_WEBHOOK_SECRET=WEBHOOK_SECRET,
            PUBLIC_URL=f"http://127.0.0.1:{port}",
            FAULT_MARKER=str(self.marker),
        )
        environment.pop("FAULT_PAUSE_AT", None)
        if pause_at:
            environment["FAULT_PAUSE_AT"] = pause_at
        self.marker.unlink(missing_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.helpers.fault_server"], cwd=PROJECT_ROOT, env=environment
        )
        self.url = f"http://127.0.0.1:{port}"
        wait_until_up(self.url)

    def kill_at(self, point: str, request: Callable[[httpx.Client], httpx.Response]) -> str:
        """Start the backend paused at ``point``, send ``request``, SIGKILL it once the
        work reaches the point; what the client saw."""
        self.start(pause_at=point)
        with ThreadPoolExecutor(1) as pool, httpx.Client(base_url=self.url, timeout=60) as client:
            pending: Future = pool.submit(request, client)
            self._wait_for_marker(pending)
            assert self.marker.read_text() == point
            self.kill()
            error = pending.exception(timeout=30)
        assert isinstance(error, httpx.TransportError), "the client should lose its answer"
        return type(error).__name__

    def _wait_for_marker(self, pending: Future) -> None:
        deadline = time.monotonic() + 60
        while not self.marker.exists():
            if pending.done():
                raise AssertionError(f"finished without reaching the kill point: {pending}")
            assert time.monotonic() < deadline, "the kill point was never reached"
            time.sleep(0.02)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
            assert self.process.returncode == -signal.SIGKILL
        self.process = None

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=60)


@pytest.fixture
def server(migrated_database_url, db, tmp_path) -> Iterator[FaultServer]:
    """The backend process on this backend's database (emptied after the test by ``db``)."""
    fault_server = FaultServer(migrated_database_url, tmp_path)
    try:
        yield fault_server
    finally:
        fault_server.kill()


@pytest.fixture
def store(server) -> MediaStore:
    """The backend's media folder, opened from the test."""
    return LocalMediaStore(server.media_dir)


# ---------------------------------------------------------------------------
# What we look at
# ---------------------------------------------------------------------------
def make_member(db: Session) -> uuid.UUID:
    user = User(email=f"member-{secrets.token_hex(4)}@example.com", password_hash="x")
    db.add(user)
    db.commit()
    return user.id


def member_files(store: MediaStore, user_id: uuid.UUID) -> set[str]:
    """Every file in the member's folder (crash leftovers included), as keys."""
    folder = store.root / MediaOwner.member(user_id).folder
    if not folder.is_dir():
        return set()
    return {f"{MediaOwner.member(user_id).folder}/{entry.name}" for entry in folder.iterdir()}


def owned_files(db: Session, user_id: uuid.UUID) -> set[str]:
    """The member's files some row points at: photos and their undo steps."""
    db.rollback()  # read what is committed now
    photos = db.exec(select(Photo).where(Photo.user_id == user_id)).all()
    urls = [url for photo in photos for url in (photo.original_image_url, photo.edited_image_url)]
    for photo in photos:
        urls += db.exec(
            select(PhotoEditStep.previous_image_url).where(PhotoEditStep.photo_id == photo.id)
        ).all()
    return {key for key in map(key_from_url, urls) if key}


def orphans(db: Session, store: MediaStore, user_id: uuid.UUID) -> set[str]:
    return member_files(store, user_id) - owned_files(db, user_id)


def run_housekeeping(server: FaultServer, db_factory) -> None:
    """The app's periodic housekeeping, as it runs an hour after the crash."""
    housekeeping.run_once(
        LocalMediaStore(server.media_dir), db_factory, now=time.time() + AN_HOUR_LATER
    )


def portrait_jpeg(*, mirrored: bool = False) -> bytes:
    buffer = io.BytesIO()
    image = Image.fromarray(skdata.astronaut()).resize((192, 192))
    if mirrored:
        image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    image.save(buffer, format="JPEG")
    return buffer.getvalue()


# ---------------------------------------------------------------------------
# (a) Saving a photo to the dashboard
# ---------------------------------------------------------------------------
def visitor_result_with_edit(store: MediaStore) -> ScoreResult:
    """A result on the results page, edited once: two files in the visitor's folder."""
    owner = MediaOwner.visitor(secrets.token_urlsafe(16))
    original = store.save(portrait_jpeg(), owner=owner, ext="jpg")
    edited = store.save(portrait_jpeg(mirrored=True), owner=owner, ext="jpg")
    return ScoreResult(
        result_id=secrets.token_urlsafe(12),
        image_key=original,
        score=8.7,
        label="Absolutely Stunning",
        tier_key="stunning",
        emoji="🤩",
        color="#ec4899",
        breakdown={"symmetry": 8.5, "skinQuality": 8.9, "facialHarmony": 8.6},
        special_panel="",
        edited_key=edited,
    )


@pytest.mark.parametrize("point", ["save-between-copies", "save-before-commit"])
def test_a_save_killed_half_way_leaves_no_row_and_no_stray_file(
    server, store, db, db_factory, point
):
    user_id = make_member(db)
    result = visitor_result_with_edit(store)
    body = {"user_id": str(user_id), "result": result.to_dict()}

    server.kill_at(point, lambda client: client.post("/_faults/save-result", json=body))

    db.rollback()
    assert db.exec(select(Photo).where(Photo.user_id == user_id)).all() == []

    server.start()  # the member clicks Save again
    with server.client() as client:
        saved = client.post("/_faults/save-result", json=body)
    assert saved.status_code == 200
    db.rollback()
    (photo,) = db.exec(select(Photo).where(Photo.user_id == user_id)).all()
    kept = {key_from_url(photo.original_image_url), key_from_url(photo.edited_image_url)}
    assert store.read(key_from_url(photo.original_image_url)) == store.read(result.image_key)
    assert store.read(key_from_url(photo.edited_image_url)) == store.read(result.edited_key)

    run_housekeeping(server, db_factory)
    assert orphans(db, store, user_id) == set()
    assert member_files(store, user_id) == kept


# ---------------------------------------------------------------------------
# (b) Editing a saved photo (the dashboard editor)
# ---------------------------------------------------------------------------
def saved_photo(db: Session, store: MediaStore, user_id: uuid.UUID) -> Photo:
    key = store.save(portrait_jpeg(), owner=MediaOwner.member(user_id), ext="jpg")
    photo = Photo(
        user_id=user_id,
        original_image_url=media_url(key),
        score=7.5,
        rating_label="Very Attractive",
        breakdown={"symmetry": 7.5},
    )
    db.add(photo)
    db.commit()
    return photo


def free_edits_left(db: Session, user_id: uuid.UUID) -> int:
    db.rollback()
    return editing.edits_remaining(db, editing.allowance_key(user_id, None))


@pytest.mark.parametrize("point", ["edit-during-engine", "edit-before-commit"])
def test_an_edit_killed_half_way_changes_nothing_and_spends_no_free_edit(
    server, store, db, db_factory, point
):
    user_id = make_member(db)
    photo = saved_photo(db, store, user_id)
    body = {"user_id": str(user_id), "photo_id": str(photo.id), "prompt": "make it brighter"}

    server.kill_at(point, lambda client: client.post("/_faults/edit-saved-photo", json=body))

    server.start()
    run_housekeeping(server, db_factory)
    db.rollback()
    db.refresh(photo)
    assert photo.edited_image_url is None and photo.last_edit_prompt is None
    assert db.exec(select(PhotoEditStep)).all() == []
    assert orphans(db, store, user_id) == set()
    assert free_edits_left(db, user_id) == constants.FREE_EDITS

    with server.client() as client:
        edited = client.post("/_faults/edit-saved-photo", json=body)
    assert edited.status_code == 200, edited.text
    assert edited.json()["remaining"] == constants.FREE_EDITS - 1
    db.rollback()
    db.refresh(photo)
    assert store.exists(key_from_url(photo.edited_image_url))
    assert len(db.exec(select(PhotoEditStep)).all()) == 1
    assert orphans(db, store, user_id) == set()
    assert free_edits_left(db, user_id) == constants.FREE_EDITS - 1


def test_an_api_edit_killed_while_the_engine_works_spends_no_free_edit(server, store, db):
    """POST /functions/v1/edit-photo spends the free edit only once the edit is done."""
    server.start()
    with server.client() as client:
        signed_up = sign_up(client, f"api-{secrets.token_hex(4)}@example.com")
    server.kill()
    user_id = uuid.UUID(signed_up["user"]["id"])
    photo = saved_photo(db, store, user_id)
    body = {"imageUrl": photo.original_image_url, "prompt": "make it brighter"}
    headers = bearer(signed_up["access_token"])

    server.kill_at(
        "edit-during-engine",
        lambda client: client.post("/functions/v1/edit-photo", json=body, headers=headers),
    )
    assert free_edits_left(db, user_id) == constants.FREE_EDITS

    server.start()
    with server.client() as client:
        edited = client.post("/functions/v1/edit-photo", json=body, headers=headers)
    assert edited.status_code == 200, edited.text
    assert edited.json()["editsRemaining"] == constants.FREE_EDITS - 1
    assert free_edits_left(db, user_id) == constants.FREE_EDITS - 1


# ---------------------------------------------------------------------------
# (c) A Stripe payment webhook
# ---------------------------------------------------------------------------
def referred_checkout(db: Session) -> tuple[uuid.UUID, CheckoutSession, PartnerAccount]:
    """A member referred by an approved partner, with an open Premium checkout."""
    payer, partner_user = make_member(db), make_member(db)
    partner = PartnerAccount(
        user_id=partner_user,
        display_name="Partner",
        code=secrets.token_hex(4),
        status=PartnerStatus.APPROVED,
    )
    db.add(partner)
    db.flush()
    db.add(Profile(id=payer, referred_by_partner=partner.id))
    payment = CheckoutSession(
        user_id=payer,
        kind="subscription",
        amount_cents=999,
        description="Premium Editing",
        provider_session_id=f"cs_test_{secrets.token_hex(8)}",
        success_path="/premium?success=true",
        cancel_path="/premium",
    )
    db.add(payment)
    db.commit()
    return payer, payment, partner


def fulfilments(db: Session, payer: uuid.UUID, partner: PartnerAccount) -> dict:
    db.rollback()
    db.refresh(partner)
    return {
        "events": len(db.exec(select(PaymentEvent)).all()),
        "subscriptions": len(
            db.exec(select(Subscription).where(Subscription.user_id == payer)).all()
        ),
        "paid_checkouts": len(
            db.exec(select(CheckoutSession).where(CheckoutSession.status == "paid")).all()
        ),
        "conversions": len(db.exec(select(PartnerConversion)).all()),
        "partner_total_conversions": partner.total_conversions,
    }


NOTHING = dict.fromkeys(
    ("events", "subscriptions", "paid_checkouts", "conversions", "partner_total_conversions"), 0
)
ONCE = dict.fromkeys(NOTHING, 1)


@pytest.mark.parametrize(
    ("point", "kept_before_retry"),
    [("webhook-before-commit", NOTHING), ("webhook-after-commit", ONCE)],
)
def test_a_webhook_killed_half_way_is_fulfilled_once_by_stripes_retry(
    server, db, point, kept_before_retry
):
    payer, payment, partner = referred_checkout(db)
    event = stripe_events.checkout_completed(
        payment.provider_session_id, payer, subscription=f"sub_{secrets.token_hex(6)}"
    )
    body, headers = stripe_events.signed(event, WEBHOOK_SECRET)

    server.kill_at(
        point, lambda client: client.post(stripe_events.WEBHOOK_PATH, content=body, headers=headers)
    )
    assert fulfilments(db, payer, partner) == kept_before_retry

    server.start()
    for _retry in range(2):  # Stripe retries until it gets a 2xx; then a late duplicate
        answer = stripe_events.deliver(server.url, event, WEBHOOK_SECRET)
        assert answer.status_code == 200, answer.text
    assert fulfilments(db, payer, partner) == ONCE
