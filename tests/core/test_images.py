"""Untrusted upload bytes: what is accepted, what is refused, and what is stored.

Real images only: scikit-image's astronaut (a public-domain NASA portrait) encoded in
each accepted format, hand-built bombs, truncated and foreign files. The bomb's time and
memory are measured in a fresh interpreter, where peak RSS means something.
"""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageCms, ImageFile
from skimage import data as skdata

from prettyscore.core import constants, messages
from prettyscore.core.errors import ValidationFailed
from prettyscore.core.images import decode_upload, encode_jpeg, encode_png, to_array

PROJECT_ROOT = Path(__file__).resolve().parents[2]
RED, BLUE = (255, 0, 0), (0, 0, 255)
GPS_IFD = 0x8825
ORIENTATION = 0x0112


# ---------------------------------------------------------------------------
# Builders of real files
# ---------------------------------------------------------------------------
def astronaut() -> Image.Image:
    return Image.fromarray(skdata.astronaut())


def encoded(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def png_bomb(width: int, height: int) -> bytes:
    """A valid 1-bit PNG of ``width``×``height`` zeros: tiny compressed, huge decoded."""
    row = b"\x00" * (1 + (width + 7) // 8)
    rows_per_block = max(1, (1 << 20) // len(row))
    compressor = zlib.compressobj(9)
    parts, remaining = [], height
    while remaining > 0:
        count = min(rows_per_block, remaining)
        parts.append(compressor.compress(row * count))
        remaining -= count
    parts.append(compressor.flush())

    def chunk(tag: bytes, payload: bytes) -> bytes:
        crc = zlib.crc32(tag + payload) & 0xFFFFFFFF
        return struct.pack(">I", len(payload)) + tag + payload + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", b"".join(parts))
        + chunk(b"IEND", b"")
    )


def jpeg_with_gps_and_profile() -> bytes:
    """A camera-like JPEG: maker, GPS position, an ICC profile and a comment."""
    exif = Image.Exif()
    exif[0x010F] = "SecretCam"  # Make
    gps = exif.get_ifd(GPS_IFD)
    gps[1], gps[2] = "N", (51.0, 30.0, 26.0)
    gps[3], gps[4] = "W", (0.0, 7.0, 39.0)
    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    return encoded(astronaut(), "JPEG", exif=exif, icc_profile=profile, comment=b"home address")


def refused_with(data: bytes) -> str:
    with pytest.raises(ValidationFailed) as caught:
        decode_upload(data)
    return caught.value.message


# ---------------------------------------------------------------------------
# Accepted formats
# ---------------------------------------------------------------------------
def test_a_real_jpeg_decodes_to_rgb_of_the_same_size():
    image = decode_upload(encoded(astronaut(), "JPEG", quality=92))
    assert image.mode == "RGB" and image.size == (512, 512)
    # JPEG is lossy, but the picture is the astronaut's
    assert np.abs(to_array(image).astype(int) - skdata.astronaut()).mean() < 6


@pytest.mark.parametrize("fmt", ["PNG", "WEBP"])
def test_png_and_webp_decode(fmt):
    image = decode_upload(encoded(astronaut(), fmt))
    assert image.mode == "RGB" and image.size == (512, 512)


def test_transparency_is_flattened_on_white():
    picture = Image.new("RGBA", (40, 40), (0, 0, 0, 0))
    picture.paste((*RED, 255), (0, 0, 20, 40))
    for fmt in ("PNG", "WEBP"):
        image = decode_upload(
            encoded(picture, fmt, **({"lossless": True} if fmt == "WEBP" else {}))
        )
        assert image.mode == "RGB"
        assert image.getpixel((5, 20)) == RED
        assert image.getpixel((35, 20)) == (255, 255, 255)


def test_a_16_bit_greyscale_png_keeps_its_tones():
    grey = np.asarray(astronaut().convert("L"))
    image = decode_upload(encoded(Image.fromarray(grey.astype(np.uint16) * 257), "PNG"))
    assert image.mode == "RGB"
    assert np.abs(to_array(image)[..., 0].astype(int) - grey).max() <= 1


def test_an_animated_gif_gives_its_first_frame():
    frames = [Image.new("RGB", (32, 32), colour) for colour in (RED, BLUE)]
    data = encoded(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=100)
    assert Image.open(io.BytesIO(data)).n_frames == 2
    image = decode_upload(data)
    assert image.mode == "RGB" and image.getpixel((16, 16)) == RED


def test_max_side_decodes_a_large_jpeg_small():
    large = astronaut().resize((4000, 3000))
    image = decode_upload(encoded(large, "JPEG"), max_side=1024)
    assert max(image.size) == 1024 and image.size == (1024, 768)


# ---------------------------------------------------------------------------
# Refused: not an image we accept, whatever it is called
# ---------------------------------------------------------------------------
def test_a_text_file_named_like_a_photo_is_refused(tmp_path):
    fake = tmp_path / "photo.jpg"
    fake.write_text("this is not a photo, whatever the name says\n" * 20)
    assert refused_with(fake.read_bytes()) == messages.PLEASE_UPLOAD_IMAGE_FILE


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty"),
        pytest.param(
            b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" '
            b'height="10"><rect width="10" height="10" fill="red"/></svg>',
            id="svg",
        ),
        pytest.param(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n", id="pdf"),
        pytest.param(b"\xff\xd8\xff\xe0" + b"\x00" * 64, id="jpeg-magic-then-garbage"),
        pytest.param(b"\x89PNG\r\n\x1a\n" + bytes(range(256)), id="png-magic-then-garbage"),
    ],
)
def test_foreign_and_garbage_bytes_are_refused(data):
    assert refused_with(data) == messages.PLEASE_UPLOAD_IMAGE_FILE


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_a_truncated_file_is_refused_not_half_decoded(fmt):
    whole = encoded(astronaut(), fmt)
    assert ImageFile.LOAD_TRUNCATED_IMAGES is False
    assert refused_with(whole[: len(whole) * 2 // 3]) == messages.PLEASE_UPLOAD_IMAGE_FILE


@pytest.mark.parametrize("fmt", ["BMP", "TIFF"])
def test_formats_pillow_reads_but_we_do_not_accept_are_refused(fmt):
    assert refused_with(encoded(astronaut(), fmt)) == messages.PLEASE_UPLOAD_IMAGE_FILE


def test_more_than_10_mb_is_refused_as_too_large():
    data = encoded(astronaut(), "PNG")
    data += b"\x00" * (11 * 1024 * 1024 - len(data))
    assert refused_with(data) == messages.FILE_TOO_LARGE
    assert refused_with(b"\x00" * (constants.MAX_UPLOAD_BYTES + 1)) == messages.FILE_TOO_LARGE


# ---------------------------------------------------------------------------
# Decompression bombs
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bomb_30000() -> bytes:
    return png_bomb(30000, 30000)


def test_a_30000_square_png_bomb_is_refused_quickly(bomb_30000):
    assert len(bomb_30000) < 1024 * 1024  # under 1 MB on the wire, 900 megapixels decoded
    started = time.perf_counter()
    assert refused_with(bomb_30000) == messages.IMAGE_TOO_LARGE_DIMENSIONS
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize(
    "size",
    [
        pytest.param((8000, 6000), id="48MP-over-our-limit-under-pillows"),
        pytest.param((10000, 10000), id="100MP-pillow-warning-zone"),
    ],
)
def test_images_over_the_pixel_limit_are_refused_before_decoding(size):
    assert size[0] * size[1] > constants.MAX_IMAGE_PIXELS
    assert refused_with(png_bomb(*size)) == messages.IMAGE_TOO_LARGE_DIMENSIONS


def test_the_bomb_costs_neither_time_nor_memory_in_a_fresh_process(bomb_30000, tmp_path):
    """Peak RSS of a fresh interpreter: the 900-megapixel bomb must not be allocated."""
    bomb_path = tmp_path / "bomb.png"
    bomb_path.write_bytes(bomb_30000)
    script = f"""
import io, json, resource, time
from PIL import Image
from prettyscore.core.errors import ValidationFailed
from prettyscore.core.images import decode_upload
warm_up = io.BytesIO()
Image.new("RGB", (8, 8)).save(warm_up, "PNG")
decode_upload(warm_up.getvalue())  # imports and plugin registration are not the bomb's cost
data = open({str(bomb_path)!r}, "rb").read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
try:
    decode_upload(data)
    outcome = "accepted"
except ValidationFailed as error:
    outcome = error.message
seconds = time.perf_counter() - started
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"outcome": outcome, "ms": seconds * 1000, "rss_growth_kib": after - before}}))
"""
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    print("bomb refusal:", figures)
    assert figures["outcome"] == messages.IMAGE_TOO_LARGE_DIMENSIONS
    assert figures["ms"] < 200
    assert figures["rss_growth_kib"] < 32 * 1024  # decoding it would take ~900 MB


# ---------------------------------------------------------------------------
# Orientation and metadata
# ---------------------------------------------------------------------------
def test_exif_orientation_6_is_applied():
    sideways = Image.new("RGB", (200, 100), BLUE)
    sideways.paste(RED, (0, 0, 100, 100))  # left half red
    exif = Image.Exif()
    exif[ORIENTATION] = 6  # "rotate 90° clockwise to display"
    image = decode_upload(encoded(sideways, "JPEG", exif=exif, quality=95))
    assert image.size == (100, 200)
    top, bottom = image.getpixel((50, 40)), image.getpixel((50, 160))
    assert top[0] > 200 and top[2] < 60  # the left side is now on top
    assert bottom[2] > 200 and bottom[0] < 60
    assert ORIENTATION not in image.getexif()


def test_stored_jpeg_carries_no_exif_gps_profile_or_comment():
    upload = jpeg_with_gps_and_profile()
    original = Image.open(io.BytesIO(upload))
    assert original.getexif().get_ifd(GPS_IFD)  # the upload really carries a position
    assert b"Exif" in upload and b"SecretCam" in upload

    stored = encode_jpeg(decode_upload(upload))
    reopened = Image.open(io.BytesIO(stored))
    assert reopened.format == "JPEG"
    assert len(reopened.getexif()) == 0
    assert not reopened.getexif().get_ifd(GPS_IFD)
    for marker in (b"Exif", b"SecretCam", b"ICC_PROFILE", b"home address", b"http://ns.adobe"):
        assert marker not in stored
    assert set(reopened.info) <= {"jfif", "jfif_version", "jfif_unit", "jfif_density", "dpi"}


def test_stored_png_carries_no_metadata_chunks():
    upload = jpeg_with_gps_and_profile()
    image = decode_upload(upload)
    stored = encode_png(image)
    for chunk_type in (b"eXIf", b"iCCP", b"tEXt", b"iTXt", b"zTXt"):
        assert chunk_type not in stored
    assert Image.open(io.BytesIO(stored)).size == image.size


def test_even_an_image_with_metadata_attached_is_encoded_clean():
    image = Image.open(io.BytesIO(jpeg_with_gps_and_profile()))
    image.load()
    assert "exif" in image.info and "icc_profile" in image.info
    assert b"Exif" not in encode_jpeg(image)
    assert b"eXIf" not in encode_png(image) and b"iCCP" not in encode_png(image)


def test_an_embedded_srgb_profile_keeps_the_colours():
    image = decode_upload(jpeg_with_gps_and_profile())
    plain = decode_upload(encoded(astronaut(), "JPEG"))
    assert np.abs(to_array(image).astype(int) - to_array(plain).astype(int)).mean() < 2


def test_to_array_is_a_writable_rgb_uint8_array():
    array = to_array(Image.new("L", (30, 20), 128))
    assert array.shape == (20, 30, 3) and array.dtype == np.uint8
    array[0, 0] = 0  # writable: the engine may work in place
