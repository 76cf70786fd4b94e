"""The video page's list of the member's videos: read from the database on every load,
so a tab that lost its state (a Redis restart) lists them again, and a video still
rendering is followed by the page's one poller; a listed video downloads as
ai-video-{timestamp}.mp4 for its owner only."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest
from reflex.event import EventHandler

from prettyscore.core import messages
from prettyscore.core.db import session_scope
from prettyscore.core.model_types import utcnow
from prettyscore.video.models import VideoGeneration
from prettyscore.video.state import VideoState
from tests.fixtures.handlers import _reply, as_user, call, run_handler
from tests.fixtures.people import member_session


@pytest.fixture
def someone(app_database):
    with session_scope() as db:
        return member_session(db)


def clip_url(user_id) -> str:
    return f"/media/u/{user_id}/{uuid.uuid4().hex}.mp4"


def add_generation(user_id, *, minutes_ago: float, status: str, **fields) -> str:
    with session_scope() as db:
        row = VideoGeneration(
            user_id=user_id,
            status=status,
            created_at=utcnow() - timedelta(minutes=minutes_ago),
            **fields,
        )
        db.add(row)
        db.flush()
        return str(row.id)


def test_a_newcomer_sees_the_empty_list_once_it_is_read(someone):
    page = as_user(VideoState, someone)
    assert (page.videos_loaded, page.videos) == (False, [])  # "Loading", not "none"
    call(page, "open_page")
    assert (page.videos_loaded, page.videos, page.more_videos) == (True, [], False)


def test_every_load_lists_the_videos_from_the_database_even_after_the_state_is_lost(someone):
    owner = someone.user_id
    older = add_generation(owner, minutes_ago=90, status="failed")
    newer = add_generation(owner, minutes_ago=30, status="completed", video_url=clip_url(owner))
    page = as_user(VideoState, someone)
    call(page, "open_page")
    assert [(row.id, row.status) for row in page.videos] == [
        (newer, "completed"),
        (older, "failed"),
    ]
    assert page.videos[0].label == messages.YOUR_VIDEO_OF.format(date=page.videos[0].created)

    made_elsewhere = add_generation(
        owner, minutes_ago=1, status="completed", video_url=clip_url(owner)
    )
    call(page, "open_page")
    assert [row.id for row in page.videos] == [made_elsewhere, newer, older]

    lost = as_user(VideoState, someone)  # the same member, a state started afresh
    call(lost, "open_page")
    assert lost.videos == page.videos


def test_a_video_still_rendering_is_followed_by_a_tab_with_no_job_of_its_own(someone):
    owner = someone.user_id
    rendering = add_generation(owner, minutes_ago=1, status="processing")
    page = as_user(VideoState, someone)

    sent = run_handler(page, "open_page")

    assert [row.status for row in page.videos] == ["processing"]
    assert (page.phase, page._job_id) == ("processing", rendering)
    assert [event.fn.__name__ for event in sent if isinstance(event, EventHandler)] == [
        "follow_job"
    ]


def test_a_tab_with_a_photo_chosen_keeps_it_while_another_video_renders(someone):
    add_generation(someone.user_id, minutes_ago=1, status="processing")
    page = as_user(VideoState, someone)
    page._set_source(f"u/{someone.user_id}/{uuid.uuid4().hex}.jpg")

    sent = run_handler(page, "open_page")

    assert page.phase == "idle" and page.source_url != ""
    assert not [event for event in sent if isinstance(event, EventHandler)]
    assert [row.status for row in page.videos] == ["processing"]


def test_a_listed_video_downloads_for_its_owner_only(someone):
    owner = someone.user_id
    finished = add_generation(owner, minutes_ago=5, status="completed", video_url=clip_url(owner))
    with session_scope() as db:
        stranger = member_session(db, "stranger")

    sent = run_handler(as_user(VideoState, someone), "download_video", finished)
    assert _reply(sent).toasts == [("success", messages.VIDEO_DOWNLOADED)]
    assert re.search(r"ai-video-\d+\.mp4", str(sent[0]))

    refused = call(as_user(VideoState, stranger), "download_video", finished)
    assert refused.toasts == [("error", messages.FAILED_TO_DOWNLOAD_VIDEO)]
