"""Which of the documents' texts a refused upload shows: a file that claims to be an
image (by its first bytes, its name or its declared type) but cannot be decoded is
'Failed to read image file'; anything else that is no image is 'Please upload an image
file'; the size limits keep their own texts."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from skimage import data as skdata

from prettyscore.core import constants, messages
from prettyscore.core.errors import ValidationFailed
from prettyscore.core.images import claims_image, decode_claimed_upload, decode_upload


def encoded(fmt: str) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(skdata.astronaut()).save(buffer, fmt)
    return buffer.getvalue()


def refusal(data: bytes, name: str | None = None, content_type: str | None = None):
    with pytest.raises(ValidationFailed) as refused:
        decode_claimed_upload(data, name=name, content_type=content_type)
    return refused.value.message, refused.value.code


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "GIF"])
def test_a_truncated_image_of_each_accepted_format_cannot_be_read(fmt):
    whole = encoded(fmt)
    assert refusal(whole[: len(whole) // 2]) == (messages.FAILED_TO_READ_IMAGE, "unreadable_image")


@pytest.mark.parametrize(
    ("name", "content_type"),
    [("holiday.jpg", None), ("HOLIDAY.JPEG", None), ("x.png", None), ("x", "image/jpeg")],
)
def test_text_named_or_typed_as_an_image_cannot_be_read(name, content_type):
    text = b"this is a text file wearing an image's name"
    assert refusal(text, name, content_type)[0] == messages.FAILED_TO_READ_IMAGE


def test_an_empty_jpeg_cannot_be_read():
    assert refusal(b"", "empty.jpg", "image/jpeg")[0] == messages.FAILED_TO_READ_IMAGE


@pytest.mark.parametrize(
    ("data", "name", "content_type"),
    [
        (b"just some notes", "notes.txt", "text/plain"),
        (b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n", "paper.pdf", "application/pdf"),
        (b"", None, None),
        (b"just some notes", None, None),
    ],
)
def test_what_does_not_claim_to_be_an_image_is_asked_for_an_image(data, name, content_type):
    assert refusal(data, name, content_type) == (messages.PLEASE_UPLOAD_IMAGE_FILE, "not_an_image")


def test_the_size_limits_keep_their_own_texts():
    too_big = b"\xff\xd8\xff\xe0" + b"\0" * constants.MAX_UPLOAD_BYTES
    assert refusal(too_big, "big.jpg")[0] == messages.FILE_TOO_LARGE


def test_a_readable_image_is_decoded_whatever_its_name():
    image = decode_claimed_upload(encoded("PNG"), name="photo.jpg", content_type="image/jpeg")
    assert image.mode == "RGB" and image.size == (512, 512)


def test_the_plain_decoder_keeps_its_one_text():
    whole = encoded("JPEG")
    with pytest.raises(ValidationFailed) as refused:
        decode_upload(whole[: len(whole) // 2])
    assert refused.value.message == messages.PLEASE_UPLOAD_IMAGE_FILE


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"\xff\xd8\xff\xdb", True),
        (b"\x89PNG\r\n\x1a\n", True),
        (b"GIF89a", True),
        (b"RIFF\0\0\0\0WEBPVP8 ", True),
        (b"RIFF\0\0\0\0WAVEfmt ", False),
        (b"BM", False),
        (b"", False),
    ],
)
def test_an_image_is_claimed_by_its_first_bytes(data, expected):
    assert claims_image(data) is expected
