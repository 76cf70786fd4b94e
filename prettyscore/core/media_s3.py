"""Stored photos and videos in a bucket of S3-compatible object storage (``MEDIA_STORE=s3``).

The same keys as the local folder (``u/<user id>/<token>.<ext>``, ``v/<visitor id>/...``)
name the objects, so URLs, the media route's checks and every caller are the same on
both stores. Several machines then share one bucket instead of a shared folder.

- **Private.** Nothing here makes an object public or signs a URL for it: the bucket stays
  private, and ``/media/<key>`` (``photos.media_api``) streams the object to those allowed
  to see it (``open``). Streaming keeps one place that decides who sees a photo, with the
  same headers as the local store; works when the storage answers only on a private
  network; needs no change to the pages' Content-Security-Policy; and no URL that could be
  passed on opens a member's photo for minutes after it was shown.
- **Whole or absent.** An upload (PUT) appears whole or not at all, like the local store's
  rename; the notes of ``photos.pending`` are objects under ``.pending/``, so any machine's
  housekeeping finds the leftovers of a save a crash cut short.
- **Visitors' files expire** by the objects' LastModified, listed by prefix (``v/``).
- **Failures say what failed.** A missing bucket, refused keys or a server that does not
  answer raise ``MediaStoreUnavailable`` (an OSError) naming the endpoint and bucket; a
  missing object is FileNotFoundError, as on the local store. ``check`` runs at start.

boto3 is the S3 client: the reference one, maintained with the S3 API itself, it signs
with SigV4, speaks path-style addressing (MinIO, SeaweedFS) as well as AWS's, retries
with back-off and pools connections; one client is thread-safe, so each process keeps one
(``s3_store_from``) for all its worker threads.
"""

from __future__ import annotations

import contextlib
import functools
import time
import uuid
from collections.abc import Iterable, Iterator

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from prettyscore.core import constants
from prettyscore.core.media import (
    CHUNK_BYTES,
    NOTES_FOLDER,
    VISITOR,
    InvalidMediaKey,
    MediaOwner,
    MediaStore,
    MediaStoreUnavailable,
    StoredFile,
    check_note_name,
    member_key_for,
    parse_key,
)

#: S3's limit of keys in one DeleteObjects call.
DELETE_BATCH = 1000
_MISSING = {"404", "NoSuchKey", "NotFound"}
_WHY = {
    "404": "the bucket does not exist",
    "NoSuchBucket": "the bucket does not exist",
    "403": "access denied (check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)",
    "AccessDenied": "access denied (check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)",
    "InvalidAccessKeyId": "the access key is not known (S3_ACCESS_KEY_ID)",
    "SignatureDoesNotMatch": "the secret key does not match (S3_SECRET_ACCESS_KEY)",
}


class S3MediaStore(MediaStore):
    """The media store on one bucket, through a boto3 S3 client."""

    def __init__(self, client, bucket: str, *, endpoint: str | None = None):
        self.client = client
        self.bucket = bucket
        self.where = f"S3 bucket '{bucket}' at {endpoint or 'AWS'}"

    # -- writing -------------------------------------------------------------
    def write(self, key: str, data: bytes) -> None:
        parsed = parse_key(key)
        self._put(parsed.key, data, parsed.content_type)

    def move_to_member(self, key: str, user_id: uuid.UUID | str) -> str:
        """Copied to the member's new key, then the visitor's object removed (S3 has no
        rename; a copy whose source could not be removed expires with the visitor's
        files within the hour)."""
        new_key = member_key_for(key, user_id)
        with self._errors("copying a file"):
            self.client.copy_object(
                Bucket=self.bucket, Key=new_key, CopySource={"Bucket": self.bucket, "Key": key}
            )
        with contextlib.suppress(FileNotFoundError):
            self._delete_object(key)
        return new_key

    # -- reading -------------------------------------------------------------
    def read(self, key: str) -> bytes:
        parse_key(key)
        return self._get(key)

    def exists(self, key: str) -> bool:
        try:
            parse_key(key)
        except InvalidMediaKey:
            return False
        return self._head(key) is not None

    def open(self, key: str) -> StoredFile | None:
        """Its size and date from a HEAD; the bytes are fetched (a range of them, for a
        video's seeking) only as the response is sent."""
        try:
            parse_key(key)
        except InvalidMediaKey:
            return None
        head = self._head(key)
        if head is None:
            return None
        return StoredFile(
            size=head["ContentLength"],
            modified=head["LastModified"].timestamp(),
            chunks=functools.partial(self._chunks, key),
        )

    def _chunks(self, key: str, first: int, last: int) -> Iterator[bytes]:
        with self._errors("reading a file"):
            body = self.client.get_object(
                Bucket=self.bucket, Key=key, Range=f"bytes={first}-{last}"
            )["Body"]
        with contextlib.closing(body):
            yield from body.iter_chunks(CHUNK_BYTES)

    # -- deleting ------------------------------------------------------------
    def delete(self, key: str) -> bool:
        parse_key(key)
        try:
            self._delete_object(key)
        except FileNotFoundError:
            return False
        return True

    def delete_owner(self, owner: MediaOwner) -> None:
        self._delete_keys(obj["Key"] for obj in self._listed(owner.folder + "/"))

    def purge_visitor_files(
        self,
        older_than_seconds: float = constants.VISITOR_RESULT_TTL_SECONDS,
        *,
        now: float | None = None,
    ) -> int:
        """Visitors' objects last written before the cutoff go. An upload is never left
        half-written in a member's folder, so there is no crash leftover to look for."""
        cutoff = (time.time() if now is None else now) - older_than_seconds
        old = [
            obj["Key"]
            for obj in self._listed(f"{VISITOR}/")
            if obj["LastModified"].timestamp() < cutoff
        ]
        return self._delete_keys(old)

    # -- notes ---------------------------------------------------------------
    def write_note(self, name: str, data: bytes) -> None:
        self._put(_note_key(name), data, "application/json")

    def read_note(self, name: str) -> bytes | None:
        try:
            return self._get(_note_key(name))
        except FileNotFoundError:
            return None

    def delete_note(self, name: str) -> None:
        with self._errors("deleting a note"):
            self.client.delete_object(Bucket=self.bucket, Key=_note_key(name))

    def notes_older_than(self, cutoff: float) -> list[str]:
        prefix = f"{NOTES_FOLDER}/"
        return [
            obj["Key"].removeprefix(prefix)
            for obj in self._listed(prefix)
            if obj["LastModified"].timestamp() < cutoff
        ]

    # -- the bucket itself -----------------------------------------------------
    def check(self) -> None:
        """One HEAD of the bucket: MediaStoreUnavailable saying what is wrong, if it fails."""
        with self._errors("opening the bucket", missing="the bucket does not exist"):
            self.client.head_bucket(Bucket=self.bucket)

    # -- S3 calls --------------------------------------------------------------
    @contextlib.contextmanager
    def _errors(self, doing: str, *, missing: str | None = None) -> Iterator[None]:
        """S3's errors as ours: a missing object is FileNotFoundError; anything else
        (no bucket, refused keys, no answer) is MediaStoreUnavailable with its reason."""
        try:
            yield
        except ClientError as error:
            code = str(error.response.get("Error", {}).get("Code", ""))
            if code in _MISSING and missing is None:
                raise FileNotFoundError(f"No such file in {self.where}") from error
            reason = missing if code in _MISSING else _WHY.get(code, f"{code}: {error}")
            raise MediaStoreUnavailable(f"{self.where}: {doing} failed: {reason}") from error
        except BotoCoreError as error:
            raise MediaStoreUnavailable(f"{self.where}: {doing} failed: {error}") from error

    def _put(self, key: str, data: bytes, content_type: str) -> None:
        if not isinstance(data, bytes | bytearray):
            raise TypeError(f"A stored file is bytes, not {type(data).__name__}")
        with self._errors("writing a file"):
            self.client.put_object(
                Bucket=self.bucket, Key=key, Body=bytes(data), ContentType=content_type
            )

    def _get(self, key: str) -> bytes:
        with self._errors("reading a file"):
            response = self.client.get_object(Bucket=self.bucket, Key=key)
            with contextlib.closing(response["Body"]) as body:
                return body.read()

    def _head(self, key: str) -> dict | None:
        try:
            with self._errors("looking for a file"):
                return self.client.head_object(Bucket=self.bucket, Key=key)
        except FileNotFoundError:
            return None

    def _delete_object(self, key: str) -> None:
        """Delete one object; FileNotFoundError if it was not there (S3's DELETE does not
        say, so a HEAD asks first: callers count what they removed)."""
        if self._head(key) is None:
            raise FileNotFoundError(f"No such file in {self.where}")
        with self._errors("deleting a file"):
            self.client.delete_object(Bucket=self.bucket, Key=key)

    def _listed(self, prefix: str) -> Iterator[dict]:
        """Every object under ``prefix``, a page of up to 1,000 at a time."""
        with self._errors("listing files"):
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix
            )
            for page in pages:
                yield from page.get("Contents", [])

    def _delete_keys(self, keys: Iterable[str]) -> int:
        """Delete the objects of ``keys`` in batches; how many were deleted."""
        batch: list[str] = []
        deleted = 0
        for key in keys:
            batch.append(key)
            if len(batch) == DELETE_BATCH:
                deleted += self._delete_batch(batch)
                batch = []
        return deleted + (self._delete_batch(batch) if batch else 0)

    def _delete_batch(self, keys: list[str]) -> int:
        with self._errors("deleting files"):
            answer = self.client.delete_objects(
                Bucket=self.bucket,
                Delete={"Objects": [{"Key": key} for key in keys], "Quiet": True},
            )
        if answer.get("Errors"):
            first = answer["Errors"][0]
            raise MediaStoreUnavailable(
                f"{self.where}: deleting files failed: {first.get('Code')} {first.get('Key')}"
            )
        return len(keys)


def _note_key(name: str) -> str:
    return f"{NOTES_FOLDER}/{check_note_name(name)}"


def make_client(
    endpoint: str | None,
    access_key_id: str | None,
    secret_access_key: str | None,
    region: str,
):
    """A boto3 S3 client. Path-style addresses for a named endpoint (MinIO, SeaweedFS,
    R2 answer them without a DNS name per bucket); checksums only where S3 requires them,
    which every S3-compatible service accepts. Short connect timeouts and three tries:
    a save fails in seconds, not minutes, when the storage is down."""
    config = Config(
        region_name=region,
        signature_version="s3v4",
        s3={"addressing_style": "path" if endpoint else "auto"},
        retries={"mode": "standard", "max_attempts": 3},
        connect_timeout=3,
        read_timeout=30,
        max_pool_connections=32,
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
    )
    return boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=access_key_id,
        aws_secret_access_key=secret_access_key,
        config=config,
    )


@functools.lru_cache(maxsize=8)
def _store(
    endpoint: str | None, bucket: str, key_id: str | None, secret: str | None, region: str
) -> S3MediaStore:
    return S3MediaStore(make_client(endpoint, key_id, secret, region), bucket, endpoint=endpoint)


def s3_store_from(settings) -> S3MediaStore:
    """The store of the settings' bucket; one per process and configuration (a client
    holds its connection pool)."""
    if not settings.s3_bucket:
        raise MediaStoreUnavailable("MEDIA_STORE=s3 needs S3_BUCKET (the bucket's name)")
    return _store(
        settings.s3_endpoint_url,
        settings.s3_bucket,
        settings.s3_access_key_id,
        settings.s3_secret_access_key,
        settings.s3_region,
    )
