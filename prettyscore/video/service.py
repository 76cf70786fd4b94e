"""Image-to-video generations: starting one within the allowance, running it, its status.

A generation is a row ('processing' on insert, later 'completed' with a video or
'failed'), so its state survives a page reload and is the same on every worker. The
free allowance (two generations per non-subscriber, counted as rows) is enforced while
the member's row is locked, so parallel starts cannot exceed it.

A photo chosen on the page, and a clip while it renders, are temporary files of the
member (``photos.media_files``); the generation's row takes them over, its photo when it
starts and its clip when it completes.
"""

from __future__ import annotations

import logging
import tempfile
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import func, update
from sqlmodel import Session, select

from prettyscore.accounts.models import User
from prettyscore.analysis.service import stage_photo
from prettyscore.billing.service import is_subscriber
from prettyscore.core import constants, images, messages
from prettyscore.core.errors import NotFound, PermissionDenied, ValidationFailed
from prettyscore.core.media import MediaOwner, MediaStore, key_from_url, media_url, parse_key
from prettyscore.core.model_types import utcnow
from prettyscore.photos import media_files
from prettyscore.photos import service as photos
from prettyscore.video.engines import get_video_engine
from prettyscore.video.engines.base import clamp_duration
from prettyscore.video.models import VideoGeneration, VideoStatus

log = logging.getLogger(__name__)

STALE_AFTER = timedelta(minutes=10)
#: Photos chosen on the video page that a member keeps at once; choosing one more
#: retires the oldest (as an open checkout is retired). The page animates one photo per
#: tab, so three leave room for a couple of tabs or the dashboard's dialog while bounding
#: what a member can pile up in a chosen photo's one-day life.
MAX_PICKED_PHOTOS = 3
#: The member's newest videos the video page lists.
MEMBER_VIDEOS_SHOWN = 24


def _generations_used(db: Session, user_id: uuid.UUID) -> int:
    """The member's generations as the free allowance counts them: every row, whatever
    became of it."""
    return db.exec(
        select(func.count()).select_from(VideoGeneration).where(VideoGeneration.user_id == user_id)
    ).one()


def free_videos_left(db: Session, user_id: uuid.UUID) -> int | None:
    """How many of the free generations the member has left; None for a subscriber,
    whose generations are unlimited."""
    if is_subscriber(db, user_id):
        return None
    return max(constants.FREE_VIDEO_GENERATIONS - _generations_used(db, user_id), 0)


def allowance_text(left: int | None) -> str:
    """The video page's line: 'N of 2 free videos left', or unlimited with Premium."""
    if left is None:
        return messages.UNLIMITED_VIDEOS
    return messages.FREE_VIDEOS_LEFT.format(left=left, total=constants.FREE_VIDEO_GENERATIONS)


def start_generation(
    db: Session,
    user_id: uuid.UUID,
    *,
    source_image_url: str,
    prompt: str | None,
    duration_seconds: int | None,
) -> VideoGeneration:
    """Record a new generation if the member may start one; raises the limit message.

    The photo must be a file in the member's own folder (see ``member_source_key``); the
    generation owns it from now on (it is no longer a temporary file).
    """
    source_key = member_source_key(user_id, source_image_url)
    # Lock the member's row first (a write): on PostgreSQL a row lock, on SQLite the
    # database's write lock. Concurrent starts then count one after the other.
    db.execute(update(User).where(User.id == user_id).values(updated_at=User.updated_at))
    if free_videos_left(db, user_id) == 0:
        raise PermissionDenied(messages.VIDEO_FREE_LIMIT, code="free_limit_reached")
    job = VideoGeneration(
        user_id=user_id,
        status=VideoStatus.PROCESSING,
        source_image_url=source_image_url,
        prompt=(prompt or "").strip()[:1000] or None,
        duration_seconds=clamp_duration(duration_seconds),
    )
    db.add(job)
    db.flush()
    media_files.claim(db, source_key)
    return job


def stage_source(db_factory, store: MediaStore, user_id: uuid.UUID, data: bytes) -> str:
    """Check a photo chosen on the video page and keep it in the member's folder as a
    temporary file (kept for ``media_files.LIFETIME`` unless a generation starts from
    it, and only while it is one of the member's ``MAX_PICKED_PHOTOS`` latest); returns
    its media key. Slow: call it on a worker thread."""
    files = media_files.TemporaryFiles(
        store, db_factory, media_files.VIDEO_PICK, kept_at_once=MAX_PICKED_PHOTOS
    )
    return stage_photo(files, MediaOwner.member(user_id), data)


def member_source_key(user_id: uuid.UUID, source_image_url: str | None) -> str:
    """The media key of a photo to animate, if it is one of the member's own files.

    A generation reads its photo on the server, so a URL naming someone else's file (or
    no file of ours) would hand that file to this member: it is refused like a missing
    image.
    """
    key = key_from_url(source_image_url)
    if key is None or parse_key(key).owner != MediaOwner.member(user_id):
        raise ValidationFailed(messages.PLEASE_UPLOAD_IMAGE_FILE)
    return key


def saved_photo_source(db: Session, user_id: uuid.UUID, photo_id: uuid.UUID | str) -> str:
    """The image a saved photo shows now (its edit if it has one, else the original), as
    a media URL; only for the member's own photo whose file is in their own folder.

    Raises ``NotFound`` for a missing photo or someone else's.
    """
    photo = photos.get_photo(db, user_id, photo_id)
    url = photo.edited_image_url or photo.original_image_url
    member_source_key(user_id, url)
    return url


def get_generation(db: Session, user_id: uuid.UUID, job_id: uuid.UUID | str) -> VideoGeneration:
    """The member's own generation; anyone else's is "not found", like a missing one."""
    try:
        job = db.get(VideoGeneration, uuid.UUID(str(job_id)))
    except ValueError:
        job = None
    if job is None or job.user_id != user_id:
        raise NotFound(messages.VIDEO_GENERATION_FAILED)
    return job


@dataclass(frozen=True)
class MemberVideo:
    """One of the member's generations as their list of videos shows it.

    ``status`` is a ``VideoStatus``: completed (``video_url`` is the clip), processing
    (still rendering) or failed. ``video_url`` and ``poster_url`` (the photo it was made
    from, if any) are media URLs in the member's own folder, which the media route serves
    to them alone; otherwise they are "".
    """

    id: uuid.UUID
    status: str
    video_url: str
    poster_url: str
    created_at: datetime
    duration_seconds: int


def member_videos(
    db: Session, user_id: uuid.UUID, limit: int = MEMBER_VIDEOS_SHOWN
) -> list[MemberVideo]:
    """The member's own generations, newest first, at most ``limit`` of them.

    A row says 'completed' only with its clip; one still 'processing' long after any
    render could take (``STALE_AFTER``, a stopped server) will not finish: both show as
    failed, as the stale sweep will soon record.
    """
    rows = db.exec(
        select(VideoGeneration)
        .where(VideoGeneration.user_id == user_id)
        .order_by(VideoGeneration.created_at.desc(), VideoGeneration.id.desc())
        .limit(max(limit, 0))
    ).all()
    stale_before = utcnow() - STALE_AFTER
    return [_member_video(row, user_id, stale_before) for row in rows]


def finished_video_url(db: Session, user_id: uuid.UUID, video_id: uuid.UUID | str) -> str:
    """The clip of one of the member's own finished videos (to download it); anyone
    else's, a missing one or one not finished is "not found" ('Failed to download video')."""
    try:
        row = get_generation(db, user_id, video_id)
    except NotFound:
        row = None
    video = row and _member_video(row, user_id, utcnow() - STALE_AFTER)
    if not video or video.status != VideoStatus.COMPLETED:
        raise NotFound(messages.FAILED_TO_DOWNLOAD_VIDEO)
    return video.video_url


def _member_video(row: VideoGeneration, user_id: uuid.UUID, stale_before: datetime) -> MemberVideo:
    video_url = _own_media_url(user_id, row.video_url)
    if row.status == VideoStatus.COMPLETED and video_url:
        status = VideoStatus.COMPLETED
    elif row.status == VideoStatus.PROCESSING and row.created_at >= stale_before:
        status = VideoStatus.PROCESSING
    else:
        status = VideoStatus.FAILED
    return MemberVideo(
        id=row.id,
        status=status,
        video_url=video_url if status == VideoStatus.COMPLETED else "",
        poster_url=_own_media_url(user_id, row.source_image_url),
        created_at=row.created_at,
        duration_seconds=row.duration_seconds,
    )


def _own_media_url(user_id: uuid.UUID, url: str | None) -> str:
    """``url`` if it names a file in the member's own folder, else ""."""
    key = key_from_url(url)
    if key is None or parse_key(key).owner != MediaOwner.member(user_id):
        return ""
    return media_url(key)


def render_generation(db_factory, store: MediaStore, job_id: uuid.UUID) -> None:
    """Run one generation to its end (slow: a job, see ``video.jobs``). Never raises.

    ``db_factory`` is ``prettyscore.core.db.session_scope``: each step commits on its own
    so the status is visible to pollers at once. A generation no longer processing (its
    job delivered again after a worker died, or already failed as stale) is left alone,
    and only a processing one takes the outcome, so a clip is never rendered twice over.
    """
    with db_factory() as db:
        job = db.get(VideoGeneration, job_id)
        if job is None or job.status != VideoStatus.PROCESSING:
            log.info("Video generation %s is not processing; nothing to render", job_id)
            return
        user_id, source_url = job.user_id, job.source_image_url
        prompt, duration = job.prompt, job.duration_seconds
    try:
        image = images.decode_upload(store.read(key_from_url(source_url)))
        with tempfile.TemporaryDirectory() as folder:
            clip = Path(folder) / "clip.mp4"
            get_video_engine().render(
                image, prompt=prompt, duration_seconds=duration, output_path=clip
            )
            clips = media_files.TemporaryFiles(store, db_factory, media_files.VIDEO_CLIP)
            key = clips.save(clip.read_bytes(), owner=MediaOwner.member(user_id), ext="mp4")
        outcome = {"status": VideoStatus.COMPLETED, "video_url": media_url(key)}
    except Exception as error:
        log.warning("Video generation %s failed: %s", job_id, error)
        outcome = {"status": VideoStatus.FAILED, "error": messages.VIDEO_GENERATION_FAILED}
    with db_factory() as db:
        finished = db.execute(
            update(VideoGeneration)
            .where(VideoGeneration.id == job_id, VideoGeneration.status == VideoStatus.PROCESSING)
            .values(finished_at=utcnow(), **outcome)
        ).rowcount
        if finished and outcome["status"] == VideoStatus.COMPLETED:
            media_files.claim(db, key)  # the generation owns its clip now


def fail_generation(db: Session, job_id: uuid.UUID) -> None:
    """A generation that will not render (its job could not be queued) fails now, with
    the documents' text, rather than stay 'processing' until the stale sweep."""
    db.execute(
        update(VideoGeneration)
        .where(VideoGeneration.id == job_id, VideoGeneration.status == VideoStatus.PROCESSING)
        .values(
            status=VideoStatus.FAILED, error=messages.VIDEO_GENERATION_FAILED, finished_at=utcnow()
        )
    )


def fail_stale_generations(db: Session, older_than: timedelta = STALE_AFTER) -> int:
    """Generations still 'processing' long after any render could take were cut off (a
    stopped server): mark them failed so nobody waits on them. Renders take seconds, so
    a job this old is not running on another worker."""
    result = db.execute(
        update(VideoGeneration)
        .where(
            VideoGeneration.status == VideoStatus.PROCESSING,
            VideoGeneration.created_at < utcnow() - older_than,
        )
        .values(
            status=VideoStatus.FAILED, error=messages.VIDEO_GENERATION_FAILED, finished_at=utcnow()
        )
    )
    return result.rowcount
