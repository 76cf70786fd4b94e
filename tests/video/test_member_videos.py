"""The member's list of videos on a real database: their own only, newest first, each
row's status as the list shows it, and the download of one of them."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from prettyscore.accounts import service as accounts
from prettyscore.core import messages
from prettyscore.core.errors import NotFound
from prettyscore.core.model_types import utcnow
from prettyscore.video import service
from prettyscore.video.models import VideoGeneration


def member(db, name: str) -> uuid.UUID:
    user_id = accounts.sign_up(db, f"{name}-{uuid.uuid4().hex[:6]}@example.com", "secret1").user_id
    db.commit()
    return user_id


def own_file(user_id, ext: str) -> str:
    """A media URL in the member's own folder."""
    return f"/media/u/{user_id}/{uuid.uuid4().hex}.{ext}"


def generation(db, user_id, *, minutes_ago: float, status: str, **fields) -> VideoGeneration:
    row = VideoGeneration(
        user_id=user_id,
        status=status,
        created_at=utcnow() - timedelta(minutes=minutes_ago),
        **fields,
    )
    db.add(row)
    db.flush()
    return row


def test_a_member_sees_only_their_own_videos_newest_first(db):
    owner, other = member(db, "owner"), member(db, "other")
    oldest = generation(
        db, owner, minutes_ago=300, status="completed", video_url=own_file(owner, "mp4")
    )
    newest = generation(db, owner, minutes_ago=1, status="processing")
    middle = generation(db, owner, minutes_ago=60, status="failed")
    generation(db, other, minutes_ago=0, status="completed", video_url=own_file(other, "mp4"))
    db.commit()

    listed = service.member_videos(db, owner)

    assert [video.id for video in listed] == [newest.id, middle.id, oldest.id]
    assert [video.id for video in service.member_videos(db, owner, limit=2)] == [
        newest.id,
        middle.id,
    ]
    assert len(service.member_videos(db, other)) == 1
    assert service.member_videos(db, member(db, "newcomer")) == []


def test_each_row_shows_as_finished_rendering_or_failed(db):
    owner, other = member(db, "statuses"), member(db, "someone")
    clip, photo = own_file(owner, "mp4"), own_file(owner, "jpg")
    rows = {
        "finished": generation(
            db,
            owner,
            minutes_ago=50,
            status="completed",
            video_url=clip,
            source_image_url=photo,
            duration_seconds=10,
        ),
        "finished without a clip": generation(db, owner, minutes_ago=40, status="completed"),
        "rendering": generation(
            db, owner, minutes_ago=1, status="processing", source_image_url=photo
        ),
        "cut off long ago": generation(
            db,
            owner,
            minutes_ago=service.STALE_AFTER.total_seconds() / 60 + 1,
            status="processing",
        ),
        "failed": generation(
            db, owner, minutes_ago=30, status="failed", error=messages.VIDEO_GENERATION_FAILED
        ),
        # Not the member's files: never handed to them through their list.
        "someone else's files": generation(
            db,
            owner,
            minutes_ago=20,
            status="completed",
            video_url=own_file(other, "mp4"),
            source_image_url=own_file(other, "jpg"),
        ),
    }
    db.commit()

    listed = {video.id: video for video in service.member_videos(db, owner)}
    shown = {name: listed[row.id] for name, row in rows.items()}

    finished = shown["finished"]
    assert (finished.status, finished.video_url, finished.poster_url) == ("completed", clip, photo)
    assert finished.duration_seconds == 10
    assert finished.created_at == rows["finished"].created_at
    assert (shown["rendering"].status, shown["rendering"].video_url) == ("processing", "")
    assert shown["rendering"].poster_url == photo
    for name in ("finished without a clip", "cut off long ago", "failed", "someone else's files"):
        assert (shown[name].status, shown[name].video_url) == ("failed", ""), name
    assert shown["someone else's files"].poster_url == ""
    assert shown["failed"].poster_url == ""


def test_only_the_member_downloads_their_own_finished_video(db):
    owner, stranger = member(db, "downloader"), member(db, "stranger")
    clip = own_file(owner, "mp4")
    finished = generation(db, owner, minutes_ago=5, status="completed", video_url=clip)
    rendering = generation(db, owner, minutes_ago=1, status="processing")
    db.commit()

    assert service.finished_video_url(db, owner, str(finished.id)) == clip
    for who, video_id in (
        (stranger, finished.id),
        (owner, rendering.id),
        (owner, uuid.uuid4()),
        (owner, "not-a-video"),
    ):
        with pytest.raises(NotFound) as refused:
            service.finished_video_url(db, who, video_id)
        assert refused.value.message == messages.FAILED_TO_DOWNLOAD_VIDEO
