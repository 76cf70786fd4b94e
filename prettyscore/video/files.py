"""The member files a video generation owns: its source photo and its clip.

The sweep of temporary files (``photos.media_files``) keeps a file some row points at;
this tells it about the generations' rows.
"""

from __future__ import annotations

import uuid

from sqlmodel import Session, or_, select

from prettyscore.photos import media_files
from prettyscore.video.models import VideoGeneration


@media_files.other_owner
def generation_files(db: Session, users: set[uuid.UUID], urls: list[str]) -> list[str | None]:
    """The URLs among ``urls`` that a generation of one of ``users`` uses."""
    rows = db.exec(
        select(VideoGeneration.source_image_url, VideoGeneration.video_url).where(
            VideoGeneration.user_id.in_(users),
            or_(
                VideoGeneration.source_image_url.in_(urls),
                VideoGeneration.video_url.in_(urls),
            ),
        )
    ).all()
    return [url for row in rows for url in row]
