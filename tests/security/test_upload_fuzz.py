# The API fixtures are imported from tests/api/conftest.py and named as parameters.
# ruff: noqa: F811
"""Hostile uploads: whatever bytes arrive, a clean photo is stored or the documented
refusal comes back, and nothing else happens (no other exception, no 500, no stray file).

Two layers are fuzzed. The image check (``stage_photo``: decode, re-encode, store, the
path of every page upload and of inline photos sent to the API) gets mutated real files
from hypothesis plus hand-made attacks: polyglots, bombs, absurd headers, metadata.
The HTTP paths get hostile bodies: the pages' ``/_upload`` behind the body limit, and
the API's edit-photo with inline photos, on a real socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import socket
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from skimage import data as skdata
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from prettyscore.analysis.service import stage_photo
from prettyscore.core import constants, messages
from prettyscore.core.errors import DomainError, ValidationFailed
from prettyscore.core.media import LocalMediaStore, MediaOwner, MediaStore
from prettyscore.functions.routing import MAX_BODY_BYTES
from prettyscore.web.upload_limits import MULTIPART_ENVELOPE_BYTES, limit_request_body
from tests.api.conftest import api, api_server  # noqa: F401  (the REST API on a socket)
from tests.api.functions_support import data_url, new_member
from tests.helpers.api_server import serving

#: The only texts a refused upload may show (messages.py, the documents' catalogue).
REFUSALS = {
    messages.PLEASE_UPLOAD_IMAGE_FILE,
    messages.FAILED_TO_READ_IMAGE,
    messages.FILE_TOO_LARGE,
    messages.IMAGE_TOO_LARGE_DIMENSIONS,
}
VISITOR = MediaOwner.visitor("fuzzing-visitor-secret")
GPS_IFD = 0x8825
FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# ---------------------------------------------------------------------------
# Real files to start from
# ---------------------------------------------------------------------------
def small_photo(side: int = 96) -> Image.Image:
    """A real portrait (scikit-image's public-domain astronaut), small to keep fuzzing fast."""
    return Image.fromarray(skdata.astronaut()).resize((side, side))


def gps_exif() -> Image.Exif:
    exif = Image.Exif()
    exif[0x010F] = "SecretCam"  # Make
    gps = exif.get_ifd(GPS_IFD)
    gps[1], gps[2] = "N", (51.0, 30.0, 26.0)
    gps[3], gps[4] = "W", (0.0, 7.0, 39.0)
    return exif


def encoded(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def animated_gif() -> bytes:
    frames = [small_photo(48).convert("P"), Image.new("P", (48, 48), 3)]
    return encoded(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=50, loop=0)


SEEDS = {
    "jpeg": encoded(small_photo(), "JPEG", exif=gps_exif(), quality=80),
    "progressive-jpeg": encoded(small_photo(), "JPEG", progressive=True),
    "png": encoded(small_photo(), "PNG", exif=gps_exif()),
    "webp": encoded(small_photo(), "WEBP", exif=gps_exif(), quality=70),
    "gif": animated_gif(),
}


# ---------------------------------------------------------------------------
# The property every upload must have
# ---------------------------------------------------------------------------
def files_in(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file()) if folder.exists() else []


def check_upload(store: MediaStore, data: bytes) -> Image.Image | None:
    """Stage ``data`` as a page upload does; assert the outcome is one of the two allowed.

    Accepted: exactly one new file, a baseline JPEG re-encoded by us, with no EXIF, no
    GPS, no ICC profile, no comment, and none of the upload's trailing bytes. Refused: a
    ValidationFailed with a documented text, and no file at all.
    """
    before = files_in(store.root)
    try:
        key = stage_photo(store, VISITOR, data)
    except ValidationFailed as refusal:
        assert refusal.message in REFUSALS, refusal.message
        assert files_in(store.root) == before, "a refused upload left a file behind"
        return None
    after = files_in(store.root)
    assert len(after) == len(before) + 1
    stored = store.read(key)
    assert stored.startswith(b"\xff\xd8\xff") and stored.endswith(b"\xff\xd9")
    for marker in (b"Exif\x00\x00", b"ICC_PROFILE", b"<script", b"PK\x03\x04", b"SecretCam"):
        assert marker not in stored, marker
    image = Image.open(io.BytesIO(stored))
    assert image.format == "JPEG" and image.mode == "RGB"
    assert not image.getexif() and "icc_profile" not in image.info and "comment" not in image.info
    store.delete(key)
    return image


@pytest.fixture
def store(tmp_path) -> MediaStore:
    return LocalMediaStore(tmp_path / "media")


# ---------------------------------------------------------------------------
# Hypothesis: damaged real files and random bytes
# ---------------------------------------------------------------------------
seed_names = st.sampled_from(sorted(SEEDS))


@FUZZ
@given(name=seed_names, cut=st.floats(min_value=0.0, max_value=1.0, exclude_max=True))
def test_every_truncation_of_a_real_file_is_refused_or_clean(store_factory, name, cut):
    seed = SEEDS[name]
    check_upload(store_factory(), seed[: int(len(seed) * cut)])


@FUZZ
@given(
    name=seed_names,
    flips=st.lists(
        st.tuples(st.floats(0.0, 1.0, exclude_max=True), st.integers(1, 255)),
        min_size=1,
        max_size=8,
    ),
)
def test_bytes_flipped_anywhere_in_a_real_file_are_refused_or_clean(store_factory, name, flips):
    damaged = bytearray(SEEDS[name])
    for where, mask in flips:
        damaged[int(where * len(damaged))] ^= mask
    check_upload(store_factory(), bytes(damaged))


@FUZZ
@given(
    prefix=st.sampled_from(
        [b"", b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"GIF89a", b"RIFF\x00\x00\x00\x00WEBPVP8 "]
    ),
    tail=st.binary(max_size=4096),
)
def test_random_bytes_behind_a_magic_number_are_refused(store_factory, prefix, tail):
    assert check_upload(store_factory(), prefix + tail) is None


@pytest.fixture
def store_factory(tmp_path):
    """A fresh store per hypothesis example (the fixture itself is made once per test)."""
    counter = iter(range(10**6))
    return lambda: LocalMediaStore(tmp_path / f"media-{next(counter)}")


# ---------------------------------------------------------------------------
# Hand-made attacks on the image check
# ---------------------------------------------------------------------------
def png_chunk(tag: bytes, payload: bytes) -> bytes:
    crc = zlib.crc32(tag + payload) & 0xFFFFFFFF
    return struct.pack(">I", len(payload)) + tag + payload + struct.pack(">I", crc)


def png_bomb(side: int) -> bytes:
    """A valid 1-bit PNG of side×side zeros: a few kilobytes, gigapixels decoded."""
    row = b"\x00" * (1 + (side + 7) // 8)
    compressor = zlib.compressobj(9)
    body = b"".join(compressor.compress(row * 1000) for _ in range(side // 1000))
    body += compressor.flush()
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", body)
        + png_chunk(b"IEND", b"")
    )


def png_declaring(width: int, height: int) -> bytes:
    """A PNG header that declares a size and then holds one byte of pixel data."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00\x00\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", idat)
        + png_chunk(b"IEND", b"")
    )


def jpeg_declaring(width: int, height: int) -> bytes:
    """A real JPEG whose frame header (SOF0) is rewritten to claim another size."""
    data = bytearray(encoded(small_photo(16), "JPEG"))
    sof = data.index(b"\xff\xc0")
    data[sof + 5 : sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def gif_declaring(width: int, height: int) -> bytes:
    data = bytearray(encoded(small_photo(16).convert("P"), "GIF"))
    data[6:10] = struct.pack("<HH", width, height)  # logical screen
    descriptor = data.index(b"\x2c", 13)  # the first image descriptor
    data[descriptor + 5 : descriptor + 9] = struct.pack("<HH", width, height)
    return bytes(data)


def webp_declaring(width: int, height: int) -> bytes:
    """An extended WebP (VP8X) canvas of the given size around a tiny lossy frame."""
    frame = encoded(small_photo(16), "WEBP")[12:]  # the VP8 chunk of a simple file
    flags = b"\x00\x00\x00\x00"
    canvas = (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    vp8x = b"VP8X" + struct.pack("<I", 10) + flags + canvas
    body = b"WEBP" + vp8x + frame
    return b"RIFF" + struct.pack("<I", len(body)) + body


def jpeg_of_size(total: int) -> bytes:
    """A valid JPEG of ``total`` bytes or a little more: comment segments after SOI."""
    photo = encoded(small_photo(), "JPEG")
    segment = b"\xff\xfe" + struct.pack(">H", 65535) + b"c" * 65533
    count = (total - len(photo)) // len(segment) + 1
    return photo[:2] + segment * count + photo[2:]


def refusal_text(store: MediaStore, data: bytes) -> str:
    before = files_in(store.root)
    with pytest.raises(ValidationFailed) as refused:
        stage_photo(store, VISITOR, data)
    assert files_in(store.root) == before
    return refused.value.message


def test_nothing_at_all_is_refused(store):
    assert refusal_text(store, b"") == messages.PLEASE_UPLOAD_IMAGE_FILE


@pytest.mark.parametrize(
    "trailer",
    [
        b"<html><script>alert(document.cookie)</script></html>",
        b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + b"evil.js" * 50 + b"PK\x05\x06" + b"\x00" * 18,
    ],
    ids=["html-after-jpeg", "zip-after-jpeg"],
)
def test_a_polyglot_jpeg_is_stored_without_its_payload(store, trailer):
    image = check_upload(store, SEEDS["jpeg"] + trailer)
    assert image is not None and image.size == (96, 96)


@pytest.mark.parametrize(
    "data",
    [
        b"GIF89a/*\x00\x00\x00\x00\x00*/=alert(1)//;",
        b"GIF89a/*" + b"\x00" * 40 + b"*/=alert(document.domain);",
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>',
        b"<!DOCTYPE html><html><body><img src=x onerror=alert(1)></body></html>",
        b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF",
        b"\x00" * 1024,
    ],
    ids=["gif-js-polyglot", "gif-js-padded", "svg-script", "svg", "html", "pdf", "zeros"],
)
def test_scripts_and_documents_dressed_as_images_are_refused(store, data):
    # A script that starts like a GIF claims to be an image it cannot be read as.
    claimed = data.startswith(b"GIF8")
    expected = messages.FAILED_TO_READ_IMAGE if claimed else messages.PLEASE_UPLOAD_IMAGE_FILE
    assert refusal_text(store, data) == expected


def test_a_decompression_bomb_is_refused_from_its_header(store):
    bomb = png_bomb(20_000)
    assert len(bomb) < 200_000  # tiny on the wire, 400 megapixels decoded
    assert refusal_text(store, bomb) == messages.IMAGE_TOO_LARGE_DIMENSIONS


@pytest.mark.parametrize(
    "data",
    [
        png_declaring(2**31 - 1, 2**31 - 1),
        png_declaring(1, 2**31 - 1),
        png_declaring(65_535, 65_535),
        jpeg_declaring(65_535, 65_535),
        gif_declaring(65_535, 65_535),
        webp_declaring(16_384, 16_384),
    ],
    ids=["png-2^31", "png-1x2^31", "png-65535", "jpeg-65535", "gif-65535", "webp-16384"],
)
def test_absurd_declared_dimensions_are_refused_without_decoding(store, data):
    started = time.perf_counter()
    assert refusal_text(store, data) == messages.IMAGE_TOO_LARGE_DIMENSIONS
    assert time.perf_counter() - started < 1.0


def test_a_valid_jpeg_over_10_mb_is_refused_as_too_large(store):
    big = jpeg_of_size(11 * 1024 * 1024)
    assert len(big) > constants.MAX_UPLOAD_BYTES
    assert Image.open(io.BytesIO(big)).size == (96, 96)  # really a JPEG Pillow would read
    assert refusal_text(store, big) == messages.FILE_TOO_LARGE


def test_a_16_bit_png_is_stored_with_its_tones(store):
    ramp = (np.arange(64 * 64, dtype=np.uint16).reshape(64, 64) * 16).astype(np.uint16)
    sixteen = Image.fromarray(ramp)  # mode I;16
    image = check_upload(store, encoded(sixteen, "PNG"))
    pixels = np.asarray(image, dtype=float)
    assert pixels[0, 0].mean() < 10 and pixels[-1, -1].mean() > 240


def test_a_cmyk_jpeg_is_stored_as_rgb_with_its_colours(store):
    red = Image.new("RGB", (64, 64), (220, 20, 20)).convert("CMYK")
    image = check_upload(store, encoded(red, "JPEG", quality=95))
    r, g, b = np.asarray(image, dtype=float).reshape(-1, 3).mean(axis=0)
    assert r > 150 and g < 90 and b < 90


def test_an_animated_gif_is_stored_as_its_first_frame(store):
    image = check_upload(store, SEEDS["gif"])
    assert image.size == (48, 48)
    assert np.asarray(image, dtype=float).std() > 10  # the photo, not the flat 2nd frame


@pytest.mark.parametrize("name", ["jpeg", "png", "webp"])
def test_the_uploaders_gps_position_is_not_in_what_is_stored(store, name):
    assert Image.open(io.BytesIO(SEEDS[name])).getexif().get_ifd(GPS_IFD)  # it was there
    check_upload(store, SEEDS[name])  # and is gone: no EXIF block at all


# ---------------------------------------------------------------------------
# HTTP: the pages' upload path behind the body limit, on a real socket
# ---------------------------------------------------------------------------
def page_upload_app(store: MediaStore):
    """``/_upload`` as the app serves it: the body limit outermost, then the multipart
    form parsed by Starlette (as Reflex's buffered upload does) and the first file
    handled as the upload pages handle it (``ScoreState._stage``: read at most the limit
    plus one byte, ``stage_photo``, a refusal becomes the documented toast).

    Reflex's event machinery between the form and the handler (client token, state
    lookup) is left out: it does not touch the body.
    """

    async def upload(request: Request) -> JSONResponse:
        form = await request.form()
        files = [item for item in form.getlist("files") if isinstance(item, UploadFile)]
        if not files:
            return JSONResponse({"toast": messages.PLEASE_UPLOAD_IMAGE_FILE}, status_code=400)
        data = await files[0].read(constants.MAX_UPLOAD_BYTES + 1)
        try:
            key = await asyncio.to_thread(stage_photo, store, VISITOR, data)
        except DomainError as error:
            return JSONResponse({"toast": error.message}, status_code=400)
        return JSONResponse({"key": key})

    routes = [Route("/_upload", upload, methods=["POST"])]
    return limit_request_body(Starlette(routes=routes), max_bytes=constants.MAX_UPLOAD_BYTES)


@pytest.fixture(scope="module")
def page_upload(tmp_path_factory) -> Iterator[tuple[str, MediaStore]]:
    store = LocalMediaStore(tmp_path_factory.mktemp("page-upload") / "media")
    with serving(page_upload_app(store)) as url:
        yield url, store


def multipart(content: bytes, filename: str = "photo.jpg", kind: str = "image/jpeg") -> dict:
    return {"files": {"files": (filename, content, kind)}}


def post_and_count(url: str, store: MediaStore, **request) -> tuple[httpx.Response, int]:
    """POST to /_upload; the answer and how many files the media folder gained."""
    before = len(files_in(store.root))
    response = httpx.post(f"{url}/_upload", timeout=60, **request)
    return response, len(files_in(store.root)) - before


def test_a_real_photo_goes_through_the_page_upload_path(page_upload):
    url, store = page_upload
    response, gained = post_and_count(url, store, **multipart(SEEDS["jpeg"]))
    assert response.status_code == 200, response.text
    assert gained == 1  # the path really stores: the refusals below are meaningful
    assert b"SecretCam" not in store.read(response.json()["key"])


def test_an_11_mb_upload_is_refused_with_413_and_stores_nothing(page_upload):
    url, store = page_upload
    response, gained = post_and_count(url, store, **multipart(jpeg_of_size(11 * 1024 * 1024)))
    assert response.status_code == 413
    assert response.json() == {"detail": messages.FILE_TOO_LARGE}
    assert gained == 0


def test_an_11_mb_chunked_upload_is_cut_off_with_413(page_upload):
    url, store = page_upload
    boundary = b"fuzzboundary"
    head = (
        b"--" + boundary + b'\r\nContent-Disposition: form-data; name="files"; '
        b'filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'
    )

    def body():
        yield head
        yield from (b"\xff" * 65536 for _ in range(11 * 16))
        yield b"\r\n--" + boundary + b"--\r\n"

    response, gained = post_and_count(
        url,
        store,
        content=body(),
        headers={"Content-Type": f"multipart/form-data; boundary={boundary.decode()}"},
    )
    assert response.status_code == 413
    assert gained == 0


def send_endless_chunked(url: str, head: bytes, first: bytes, give_up_after: int):
    """POST a chunked body that never ends (until ``give_up_after`` bytes) on a raw socket,
    sending until the server answers; the answer and how many bytes went out.

    No well-behaved HTTP client does this: httpx, for one, sends its whole body before it
    reads the answer, so it cannot show when the server stopped listening.
    """
    port = int(url.rsplit(":", 1)[1])
    frame = b"%x\r\n" % 65536 + b"\xff" * 65536 + b"\r\n"
    answer, answered, sent = bytearray(), threading.Event(), 0

    def read() -> None:
        with contextlib.suppress(OSError):
            while data := sock.recv(65536):
                answer.extend(data)
                if b"\r\n\r\n" in answer:
                    answered.set()  # the server may keep the connection open after it
        answered.set()

    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head + b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % len(first))
        sock.sendall(first + b"\r\n")
        reader = threading.Thread(target=read)
        reader.start()
        with contextlib.suppress(OSError):  # the server closes the connection on us
            while not answer and not answered.is_set() and sent < give_up_after:
                sock.sendall(frame)
                sent += len(frame)
        answered.wait(10)
        time.sleep(0.2)  # the rest of a short answer
        with contextlib.suppress(OSError):  # already closed by the server
            sock.shutdown(socket.SHUT_RDWR)
        reader.join(10)
    return bytes(answer), sent


def test_an_endless_chunked_upload_is_answered_413_long_before_it_ends(page_upload):
    url, store = page_upload
    limit = constants.MAX_UPLOAD_BYTES + MULTIPART_ENVELOPE_BYTES
    before = len(files_in(store.root))
    answer, sent = send_endless_chunked(
        url,
        b"POST /_upload HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: multipart/form-data; boundary=x\r\n",
        b'--x\r\nContent-Disposition: form-data; name="files"; filename="a.jpg"\r\n\r\n',
        give_up_after=10 * limit,
    )
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert sent < 3 * limit  # the client was stopped, not left to send forever
    assert len(files_in(store.root)) == before


MULTIPART_X = {"Content-Type": "multipart/form-data; boundary=x"}
JSON = {"Content-Type": "application/json"}


@pytest.mark.parametrize(
    "request_options",
    [
        {"content": b"", "headers": {"Content-Type": "multipart/form-data; boundary=x"}},
        {"content": b""},
        {"content": SEEDS["jpeg"], "headers": {"Content-Type": "image/jpeg"}},
        {"content": b'{"files": "x"}', "headers": {"Content-Type": "application/json"}},
        {
            "content": b"--x\r\nno headers, no end",
            "headers": {"Content-Type": "multipart/form-data; boundary=x"},
        },
        {
            "content": b"--y\r\n\r\n--y--\r\n",
            "headers": {"Content-Type": "multipart/form-data; boundary=x"},
        },
        {"content": b"--x--\r\n", "headers": {"Content-Type": "multipart/form-data"}},
        {
            "content": b'--x\r\nContent-Disposition: form-data; name="files"\r\n\r\n'
            b"not a file\r\n--x--\r\n",
            "headers": MULTIPART_X,
        },
        multipart(b"", filename="empty.jpg"),
        multipart(b"<html><script>alert(1)</script></html>", filename="photo.jpg"),
        multipart(SEEDS["png"][:300], filename="cut.png", kind="image/png"),
        multipart(b"\x00" * 5000, filename="../../etc/passwd", kind="image/jpeg"),
    ],
    ids=[
        "empty-multipart",
        "empty-untyped",
        "raw-jpeg-body",
        "json",
        "multipart-unterminated",
        "multipart-wrong-boundary",
        "multipart-no-boundary",
        "text-field-not-file",
        "empty-file",
        "html-named-jpg",
        "truncated-png",
        "zeros-with-path-name",
    ],
)
def test_malformed_page_uploads_never_500_and_store_nothing(page_upload, request_options):
    url, store = page_upload
    try:
        response, gained = post_and_count(url, store, **request_options)
    except httpx.RemoteProtocolError:  # the server refused to parse the request at all
        return
    assert 400 <= response.status_code < 500, response.text
    assert gained == 0
    if response.headers.get("content-type") == "application/json" and "toast" in response.json():
        assert response.json()["toast"] in REFUSALS


def test_a_content_length_that_is_no_number_is_refused(page_upload):
    url, store = page_upload
    port = int(url.rsplit(":", 1)[1])
    before = len(files_in(store.root))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            b"POST /_upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n"
            b"Content-Type: multipart/form-data; boundary=x\r\n\r\n--x--\r\n"
        )
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 4"), answer[:200]
    assert len(files_in(store.root)) == before


# ---------------------------------------------------------------------------
# HTTP: the API's edit-photo with inline photos (real socket, both databases)
# ---------------------------------------------------------------------------
def api_files(api_server) -> int:
    return len(files_in(api_server.media_dir))


@pytest.mark.parametrize(
    "request_options",
    [
        {"content": b""},
        {"content": b"", "headers": {"Content-Type": "application/json"}},
        {
            "content": b'{"imageUrl": "data:image/png;base64,',
            "headers": {"Content-Type": "application/json"},
        },
        {"content": b"imageUrl=x&prompt=brighter", "headers": {"Content-Type": "text/plain"}},
        {"files": {"image": ("photo.jpg", SEEDS["jpeg"], "image/jpeg")}},
        {"json": {"imageUrl": None, "prompt": "brighter"}},
        {"json": {"imageUrl": ["data:image/jpeg;base64,"], "prompt": "brighter"}},
        {"json": {"imageUrl": "data:image/jpeg;base64,", "prompt": "brighter"}},
        {"json": {"imageUrl": "data:image/svg+xml;base64,PHN2Zy8+", "prompt": "brighter"}},
        {"json": {"imageUrl": "data:image/jpeg;base64," + "A" * 100_000 + "=", "prompt": "x"}},
    ],
    ids=[
        "empty",
        "empty-json",
        "cut-json",
        "text-plain",
        "multipart",
        "null-url",
        "list-url",
        "empty-data-url",
        "svg-data-url",
        "bad-padding",
    ],
)
def test_malformed_edit_photo_requests_never_500_and_store_nothing(
    api, api_server, db, request_options
):
    member = new_member(db)
    before = api_files(api_server)
    options = dict(request_options)
    headers = {**member.headers, **options.pop("headers", {})}
    answer = api.post("/functions/v1/edit-photo", headers=headers, **options)
    assert 400 <= answer.status_code < 500, answer.text
    assert answer.json().get("error")  # the field the Supabase clients show
    assert api_files(api_server) == before


def test_an_11_mb_inline_photo_is_refused_with_413_and_stores_nothing(api, api_server, db):
    member = new_member(db)
    before = api_files(api_server)
    body = {"imageUrl": data_url(jpeg_of_size(11 * 1024 * 1024)), "prompt": "brighter"}
    answer = api.post("/functions/v1/edit-photo", headers=member.headers, json=body)
    assert answer.status_code == 413
    assert answer.json()["msg"] == messages.FILE_TOO_LARGE
    assert api_files(api_server) == before


def test_an_endless_chunked_body_to_edit_photo_is_cut_off_with_413(api_server, api, db):
    member = new_member(db)
    before = api_files(api_server)
    token = member.headers["Authorization"].encode()
    answer, sent = send_endless_chunked(
        api_server.url,
        b"POST /functions/v1/edit-photo HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Authorization: " + token + b"\r\nContent-Type: application/json\r\n",
        b'{"prompt": "brighter", "imageUrl": "data:image/jpeg;base64,',
        give_up_after=20 * MAX_BODY_BYTES,
    )
    assert answer.startswith(b"HTTP/1.1 413"), answer[:300]
    assert messages.FILE_TOO_LARGE.encode() in answer.partition(b"\r\n\r\n")[2]
    assert sent < 3 * MAX_BODY_BYTES
    assert api_files(api_server) == before


@settings(FUZZ, max_examples=12)
@given(name=seed_names, cut=st.floats(0.05, 1.0), flip=st.floats(0.0, 1.0, exclude_max=True))
def test_damaged_inline_photos_are_refused_or_edited_never_500(
    api, api_server, db, name, cut, flip
):
    member = new_member(db)
    damaged = bytearray(SEEDS[name][: max(1, int(len(SEEDS[name]) * cut))])
    damaged[int(flip * len(damaged))] ^= 0x5A
    before = api_files(api_server)
    answer = api.post(
        "/functions/v1/edit-photo",
        headers=member.headers,
        json={"imageUrl": data_url(bytes(damaged)), "prompt": "brighter"},
    )
    assert answer.status_code in (200, 400), answer.text
    if answer.status_code == 400:
        assert answer.json()["msg"] in REFUSALS | {messages.FAILED_TO_EDIT_PHOTO}
        assert api_files(api_server) == before
    else:  # the edit is stored, the inline original is not kept
        assert api_files(api_server) == before + 1
