"""How much state one client carries after a result (target: at most 20 KB).

The browser holds exactly what the server last sent it; after a reload of /results the
server sends the tab's whole state at once, so the largest message after the reload is
the client's state. With Redis, the bytes stored for the tab are read from Redis too.
Prints figures; asserts only that no image bytes travel in state.
"""

from __future__ import annotations

import redis
from PIL import Image
from playwright.sync_api import expect
from skimage import data

from prettyscore.core import messages
from tests.e2e.flows import open_page, wait_for_path


def record_frames(page) -> list[str]:
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda p: frames.append(str(p))))
    return frames


def redis_bytes_for_tab(app_server, token: str) -> int | None:
    if not app_server.redis_url:
        return None
    client = redis.Redis.from_url(app_server.redis_url)
    try:
        return sum(client.strlen(key) for key in client.scan_iter(f"{token}*"))
    finally:
        client.close()


def test_client_state_after_a_result(page, app_server, tmp_path):
    photo = tmp_path / "astronaut.jpg"
    Image.fromarray(data.astronaut()).save(photo, format="JPEG", quality=92)
    base = app_server.base_url
    open_page(page, f"{base}/upload")
    page.get_by_test_id("upload-zone").locator("input[type=file]").set_input_files(str(photo))
    expect(page.get_by_role("img", name="Your chosen photo")).to_be_visible()
    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    wait_for_path(page, "/results")

    frames = record_frames(page)
    open_page(page, f"{base}/results")
    full_state = max(frames, key=len)
    token = page.evaluate("window.sessionStorage.getItem('token')") or ""
    stored = redis_bytes_for_tab(app_server, token)

    print(
        f"\n[{app_server.name}] client state after a result: {len(full_state) / 1024:.1f} KB "
        f"(largest message after reload; target <= 20 KB); all messages on reload: "
        f"{sum(map(len, frames)) / 1024:.1f} KB"
        + (f"; stored in Redis for the tab: {stored / 1024:.1f} KB" if stored is not None else "")
    )
    assert "base64" not in full_state and "data:image" not in full_state
