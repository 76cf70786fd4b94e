"""What the server function tests share: members with tokens, their stored photos, Premium
paid through the real checkout, and calling a function."""

from __future__ import annotations

import base64
import io
import time
import uuid
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import httpx
from PIL import Image
from skimage import data
from sqlmodel import Session

from prettyscore.accounts import service as accounts
from prettyscore.analysis.service import stage_photo
from prettyscore.billing import checkout
from prettyscore.core.media import LocalMediaStore, MediaOwner, MediaStore, media_url

PASSWORD = "secret12"


@dataclass(frozen=True)
class Member:
    id: uuid.UUID
    email: str
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def new_member(db: Session, prefix: str = "member") -> Member:
    """A signed-up member (committed) and their access token."""
    email = f"{prefix}-{uuid.uuid4().hex[:10]}@example.com"
    tokens = accounts.sign_up(db, email, PASSWORD)
    db.commit()
    return Member(tokens.user_id, tokens.email, tokens.access_token)


def call(api: httpx.Client, name: str, member: Member | None = None, **body) -> httpx.Response:
    """POST /functions/v1/<name> with ``body`` as JSON, as ``member`` (or a visitor)."""
    headers = member.headers if member else {}
    return api.post(f"/functions/v1/{name}", json=body, headers=headers)


def astronaut_jpeg() -> bytes:
    """A real portrait (public-domain NASA photo) as JPEG bytes."""
    buffer = io.BytesIO()
    Image.fromarray(data.astronaut()).save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def data_url(payload: bytes, kind: str = "image/jpeg") -> str:
    return f"data:{kind};base64,{base64.b64encode(payload).decode('ascii')}"


def media_store(api_server) -> MediaStore:
    """The running API's media folder."""
    return LocalMediaStore(api_server.media_dir)


def stored_photo(api_server, member: Member) -> str:
    """A photo in the member's folder, stored as an upload on the pages stores it; its URL."""
    key = stage_photo(media_store(api_server), MediaOwner.member(member.id), astronaut_jpeg())
    return media_url(key)


def key_of(url: str) -> str:
    """The media key of a URL the API returned (absolute)."""
    path = urlsplit(url).path
    assert path.startswith("/media/"), url
    return path.removeprefix("/media/")


def read_image(api_server, url: str) -> Image.Image:
    return Image.open(io.BytesIO(media_store(api_server).read(key_of(url))))


def member_files(api_server, member: Member) -> list[str]:
    folder = api_server.media_dir / "u" / str(member.id)
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


def make_premium(api: httpx.Client, db: Session, member: Member) -> None:
    """Subscribe through create-checkout and pay on the built-in test checkout (the same
    fulfilment as a Stripe webhook)."""
    answer = call(api, "create-checkout", member, type="subscription")
    assert answer.status_code == 200, answer.text
    pay(db, member, answer.json()["url"])


def pay(db: Session, member: Member, checkout_url: str) -> None:
    """Pay a test checkout the API opened, as the member's Pay button does."""
    session_id = parse_qs(urlsplit(checkout_url).query)["session"][0]
    checkout.pay_test_checkout(db, member.id, session_id)
    db.commit()


def wait_for_video(api: httpx.Client, member: Member, task_id: str, timeout: float = 90) -> dict:
    """Poll check-video-status until the task leaves 'processing'."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = call(api, "check-video-status", member, taskId=task_id)
        assert answer.status_code == 200, answer.text
        if answer.json()["status"] != "processing":
            return answer.json()
        time.sleep(0.3)
    raise AssertionError(f"video task {task_id} still processing after {timeout} s")
