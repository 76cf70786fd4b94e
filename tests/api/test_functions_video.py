"""generate-video and check-video-status over HTTP: a real render of the member's own
photo, the free limit of 2 (Premium unlimited), and nobody else's tasks or files.
Both databases."""

from __future__ import annotations

import uuid

from sqlmodel import func, select

from prettyscore.core import constants, messages
from prettyscore.video.models import VideoGeneration
from tests.api.functions_support import (
    astronaut_jpeg,
    call,
    data_url,
    key_of,
    make_premium,
    media_store,
    new_member,
    stored_photo,
    wait_for_video,
)


def generations(db, member) -> int:
    db.rollback()
    query = select(func.count()).select_from(VideoGeneration)
    return db.exec(query.where(VideoGeneration.user_id == member.id)).one()


def start(api, member, image_url: str, **more):
    return call(api, "generate-video", member, imageUrl=image_url, duration=1, **more)


def test_a_member_animates_their_photo_and_follows_the_task(api, api_server, db):
    member = new_member(db)

    started = start(api, member, stored_photo(api_server, member), prompt="Slow zoom")

    assert started.status_code == 200, started.text
    task_id = started.json()["taskId"]
    assert call(api, "check-video-status", member, taskId=task_id).json()["status"] in (
        "processing",
        "completed",
    )
    finished = wait_for_video(api, member, task_id)
    assert finished["status"] == "completed"
    assert finished["video_url"].startswith(f"{api_server.url}/media/u/{member.id}/")
    clip = media_store(api_server).read(key_of(finished["video_url"]))
    assert clip[4:8] == b"ftyp"  # an MP4 file
    db.rollback()
    job = db.get(VideoGeneration, uuid.UUID(task_id))
    assert (job.prompt, job.duration_seconds) == ("Slow zoom", 1)


def test_the_prompt_defaults_to_the_documents_one(api, api_server, db):
    member = new_member(db)

    started = start(api, member, data_url(astronaut_jpeg()))

    assert started.status_code == 200, started.text
    wait_for_video(api, member, started.json()["taskId"])
    db.rollback()
    job = db.get(VideoGeneration, uuid.UUID(started.json()["taskId"]))
    assert job.prompt == messages.VIDEO_DEFAULT_PROMPT


def test_two_free_generations_then_the_upgrade_message(api, api_server, db):
    member = new_member(db)
    photo = stored_photo(api_server, member)
    tasks = [start(api, member, photo).json()["taskId"] for _ in range(2)]

    refused = start(api, member, photo)

    assert refused.status_code == 403
    assert refused.json()["msg"] == messages.VIDEO_FREE_LIMIT
    assert refused.json()["error_code"] == "free_limit_reached"
    assert generations(db, member) == constants.FREE_VIDEO_GENERATIONS
    for task_id in tasks:
        assert wait_for_video(api, member, task_id)["status"] == "completed"


def test_premium_generates_beyond_the_free_limit(api, api_server, db):
    member = new_member(db)
    make_premium(api, db, member)
    photo = stored_photo(api_server, member)

    answers = [start(api, member, photo) for _ in range(constants.FREE_VIDEO_GENERATIONS + 1)]

    assert [a.status_code for a in answers] == [200] * 3
    for answer in answers:
        assert wait_for_video(api, member, answer.json()["taskId"])["status"] == "completed"


def test_a_member_cannot_read_another_members_task(api, api_server, db):
    owner, other = new_member(db, "owner"), new_member(db, "other")
    task_id = start(api, owner, stored_photo(api_server, owner)).json()["taskId"]

    theirs = call(api, "check-video-status", other, taskId=task_id)
    unknown = call(api, "check-video-status", other, taskId=str(uuid.uuid4()))
    malformed = call(api, "check-video-status", other, taskId="not-a-task")

    assert [a.status_code for a in (theirs, unknown, malformed)] == [404] * 3
    assert theirs.json() == unknown.json() == malformed.json()
    assert theirs.json()["msg"] == messages.VIDEO_GENERATION_FAILED
    assert wait_for_video(api, owner, task_id)["status"] == "completed"


def test_a_member_cannot_animate_another_members_photo(api, api_server, db):
    owner, other = new_member(db, "owner"), new_member(db, "other")

    answer = start(api, other, stored_photo(api_server, owner))

    assert answer.status_code == 400
    assert answer.json()["msg"] == messages.PLEASE_UPLOAD_IMAGE_FILE
    assert generations(db, other) == 0
