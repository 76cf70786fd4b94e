"""AI photo edits with the free allowance kept on the server.

Five free edits per member (per browser for visitors), Premium unlimited. An edit is
checked before the work and spent after it by one conditional update (so parallel
requests can never use more than the allowance), so only successful edits and upscales
count.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from prettyscore.billing.service import is_subscriber
from prettyscore.core import constants, images, messages
from prettyscore.core.db import DbFactory
from prettyscore.core.errors import DomainError, PermissionDenied
from prettyscore.core.media import MediaOwner, MediaStore, visitor_id
from prettyscore.core.model_types import utcnow
from prettyscore.core.settings import get_settings
from prettyscore.editing import jobs
from prettyscore.editing.models import EditAllowance

UNLIMITED = -1


@dataclass(frozen=True)
class EditOutcome:
    """The edited photo's key and the free edits left (UNLIMITED for Premium)."""

    image_key: str
    remaining: int
    kept: object = None  # what the caller's ``keep`` returned, if it passed one


def allowance_key(user_id: uuid.UUID | None, visitor_secret: str | None) -> str:
    """Whose allowance: the member's when signed in, else this browser's."""
    if user_id is not None:
        return f"u:{user_id}"
    return f"v:{visitor_id(visitor_secret or '')}"


def edits_remaining(db: Session, owner_key: str) -> int:
    """Free edits left for ``owner_key``."""
    used = db.exec(
        select(EditAllowance.edits_used).where(EditAllowance.owner_key == owner_key)
    ).first()
    return max(constants.FREE_EDITS - (used or 0), 0)


def allowance(
    db: Session, user_id: uuid.UUID | None, visitor_secret: str | None
) -> tuple[bool, int]:
    """(Premium?, free edits left) for a member, or for this browser when signed out."""
    premium = user_id is not None and is_subscriber(db, user_id)
    return premium, edits_remaining(db, allowance_key(user_id, visitor_secret))


def reserve_edit(db: Session, owner_key: str) -> bool:
    """Take one free edit if any is left, in one conditional update."""
    try:
        with db.begin_nested():
            db.add(EditAllowance(owner_key=owner_key))
            db.flush()
    except IntegrityError:
        pass  # the row exists already
    taken = db.execute(
        update(EditAllowance)
        .where(
            EditAllowance.owner_key == owner_key,
            EditAllowance.edits_used < constants.FREE_EDITS,
        )
        .values(edits_used=EditAllowance.edits_used + 1, updated_at=utcnow())
    )
    return taken.rowcount == 1


def check_instruction(prompt: str | None) -> None:
    """An empty instruction is refused before anything is counted or edited."""
    if not (prompt or "").strip():
        raise DomainError(messages.PLEASE_ENTER_EDIT_INSTRUCTION)


def no_free_edits() -> PermissionDenied:
    return PermissionDenied(messages.USED_ALL_FREE_EDITS_UPGRADE, code="no_free_edits")


def render_edit(
    db_factory: DbFactory,
    store: MediaStore,
    image_key: str,
    prompt: str,
    media_owner: MediaOwner,
    engine_name: str | None = None,
) -> str:
    """The edit itself, counted against nobody: the stored result's key (slow). With the
    job queue on Redis a job worker runs the engine, and this thread only waits."""
    if get_settings().job_queue == "redis":
        jpeg = jobs.edit_on_worker(db_factory, image_key, prompt, engine_name)
    else:
        jpeg = jobs.edited_jpeg(store, image_key, prompt, engine_name)
    return store.save(jpeg, owner=media_owner, ext="jpg")


def photo_download_name(score_text: str, which: str = "edited") -> str:
    """A photo download's file name (document 000 §9): pretty-score-{score}.png with the
    -edited or -original suffix."""
    return f"pretty-score-{score_text}-{which}.png"


def download_copy(store: MediaStore, image_key: str, owner: MediaOwner) -> str:
    """The photo at ``image_key`` as the PNG file a download saves, written to ``owner``'s
    folder (a browser's visitor folder: purged within the hour); its key (slow: call it
    on a worker thread). Used by 'Download HD Version (4K)' on /results and in the
    dashboard editor, after the upscale."""
    photo = images.decode_upload(store.read(image_key))
    return store.save(images.encode_png(photo, compress_level=1), owner=owner, ext="png")


def premium_of(db: Session, owner_key: str) -> bool:
    """Whether the allowance ``owner_key`` names is a subscriber's (visitors never are)."""
    kind, _, member = owner_key.partition(":")
    if kind != "u":
        return False
    try:
        user_id = uuid.UUID(member)
    except ValueError:
        return False
    return is_subscriber(db, user_id)


#: What keeps an edit: called with the transaction that spends the free edit, the edited
#: photo's key and the edits left; what it returns comes back as ``EditOutcome.kept``.
Keep = Callable[[Session, str, int], object]


def edit_photo(
    db_factory: DbFactory,
    store: MediaStore,
    *,
    owner_key: str,
    image_key: str,
    prompt: str,
    media_owner: MediaOwner,
    engine_name: str | None = None,
    keep: Keep | None = None,
) -> EditOutcome:
    """Run an AI edit for ``owner_key`` (a member or a browser) on a stored photo, into a
    new one: the one way every page and the API edit (slow: call it on the photo pool).

    Whether the edit is Premium (unlimited) is decided here, from the subscription of the
    member ``owner_key`` names. A non-subscriber's free edit is spent only once the edit
    is done, by one conditional update (so parallel requests never use more than the
    allowance, and an edit that fails, or whose process is killed, spends nothing).
    ``keep`` runs in that same transaction (e.g. to make the edit a saved photo's), so the
    edit is spent exactly when it is kept. Raises the documents' upgrade message when no
    free edit is left, the engine's own message for an instruction it cannot carry out
    (no edit used), or DomainError; the edited file goes again on any failure.
    """
    check_instruction(prompt)
    with db_factory() as db:
        premium = premium_of(db, owner_key)
        if not premium and edits_remaining(db, owner_key) <= 0:
            raise no_free_edits()
    new_key = render_edit(db_factory, store, image_key, prompt, media_owner, engine_name)
    try:
        with db_factory() as db:
            if not premium and not reserve_edit(db, owner_key):
                raise no_free_edits()  # spent meanwhile by another edit
            remaining = UNLIMITED if premium else edits_remaining(db, owner_key)
            kept = keep(db, new_key, remaining) if keep else None
            return EditOutcome(new_key, remaining, kept)
    except BaseException:
        store.delete(new_key)
        raise
