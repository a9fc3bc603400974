"""Blobs in an S3-compatible bucket, through obstore (``pip install 'orgbrain[s3]'``).

The local folder's contract (tests/contract/test_blob_contract.py runs all three), kept
with what S3 itself promises: a PUT and a CompleteMultipartUpload are atomic, so a reader
sees a blob whole or not at all. A put streams: a blob that ends within one part
(``part_size``) goes up in one PUT; a larger one as a multipart upload, a few parts in
flight at once (memory stays near ``part_size`` times ``concurrency`` plus one). A put
that fails, or that passes its size cap, aborts its upload and completes nothing. Reads
at an offset are ranged GETs.

obstore over boto3 by measurement (docs/benchmarks.md, "Blobs on S3"): on the same
s3rver, 4 KiB ranged reads (a citation) in a quarter of the time, whole reads at twice
the speed. Keys are the store's own (``workspaces/<ws>/<item>/<version>/raw``), under the
URL's prefix. Settings, credentials and what the test server leaves untested: docs/s3.md.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from ..errors import InvalidInput, NotFound, TooLarge, Unavailable
from .s3_credentials import shared_credentials

if TYPE_CHECKING:
    from obstore.store import S3Store

__all__ = ["S3BlobStore", "S3Location", "parse_s3_url"]

log = logging.getLogger(__name__)

PART_SIZE = 8 * 1024 * 1024  # S3 asks at least 5 MiB of every part but the last
CONCURRENCY = 2  # parts in flight during a multipart upload
_CHUNK = 1 << 16
_QUERY = ("endpoint", "region")


@dataclass(frozen=True, slots=True)
class S3Location:
    """Where blobs live: a bucket, a prefix in it, and the server (None: AWS itself)."""

    bucket: str
    prefix: str = ""
    endpoint: str | None = None
    region: str | None = None

    def __str__(self) -> str:
        where = f"s3://{self.bucket}/{self.prefix}".rstrip("/")
        return f"{where} at {self.endpoint}" if self.endpoint else where


def parse_s3_url(url: str, endpoint: str | None = None) -> S3Location:
    """``s3://bucket[/prefix][?endpoint=URL&region=NAME]``; ``endpoint`` (the
    ``ORGBRAIN_S3_ENDPOINT`` setting) serves when the URL names none."""
    parts = urlsplit(url)
    if parts.scheme != "s3" or not parts.netloc:
        raise InvalidInput(f"blob store {url!r}: use s3://bucket/prefix")
    query = parse_qs(parts.query, keep_blank_values=True)
    unknown = sorted(set(query) - set(_QUERY))
    if unknown:
        raise InvalidInput(
            f"blob store {url!r}: unknown setting {unknown[0]!r} (use endpoint, region)"
        )
    prefix = parts.path.strip("/")
    if prefix and any(p in ("", ".", "..") for p in prefix.split("/")):
        raise InvalidInput(f"blob store {url!r}: the prefix has an empty, . or .. part")
    given = query.get("endpoint", [endpoint or ""])[-1] or None
    if given is not None and urlsplit(given).scheme not in ("http", "https"):
        raise InvalidInput(f"S3 endpoint {given!r}: use http://host:port or https://host")
    return S3Location(parts.netloc, prefix, given, query.get("region", [""])[-1] or None)


def _check_key(key: str) -> str:
    parts = key.split("/")
    if not key or any(p in ("", ".", "..") or "\\" in p or "\0" in p for p in parts):
        raise InvalidInput(f"invalid blob key {key!r}")
    return key


class S3BlobStore:
    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        *,
        endpoint_url: str | None = None,
        region: str | None = None,
        part_size: int = PART_SIZE,
        concurrency: int = CONCURRENCY,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """Credentials and region come from the standard AWS variables (read by obstore),
        else from the shared files' profile (``AWS_PROFILE``, ``~/.aws/credentials``);
        ``env`` stands in for the environment when those files are looked up."""
        try:
            from obstore.store import S3Store
        except ImportError as exc:
            hint = f"S3 blobs need obstore: pip install 'orgbrain[s3]' ({exc})"
            raise Unavailable(hint) from exc
        self.location = S3Location(bucket, prefix.strip("/"), endpoint_url, region)
        self.part_size = part_size
        self.concurrency = concurrency
        config: dict[str, Any] = shared_credentials(env)
        if region:
            config["region"] = region
        if endpoint_url:
            # S3-compatible servers (MinIO, s3rver, Ceph) answer at path-style addresses.
            config["endpoint"] = endpoint_url
            config["virtual_hosted_style_request"] = False
        self._store: S3Store = S3Store(
            bucket,
            prefix=self.location.prefix or None,
            client_options={"allow_http": bool(endpoint_url and endpoint_url.startswith("http:"))},
            retry_config={"max_retries": 3, "retry_timeout": timedelta(seconds=30)},
            **config,
        )

    @classmethod
    def from_url(cls, url: str, *, endpoint_url: str | None = None) -> S3BlobStore:
        loc = parse_s3_url(url, endpoint_url)
        return cls(loc.bucket, loc.prefix, endpoint_url=loc.endpoint, region=loc.region)

    def check(self) -> None:
        """Raise ``Unavailable`` unless the bucket answers a list (the server is up, the
        bucket exists, the credentials are accepted)."""
        import obstore

        try:
            next(iter(obstore.list(self._store, "workspaces", chunk_size=1)), None)
        except Exception as exc:
            raise self._unavailable("list", exc) from exc

    def put(self, key: str, chunks: Iterable[bytes], *, max_bytes: int | None = None) -> int:
        import obstore

        _check_key(key)
        stream = iter(chunks)
        head, size = self._first_part(stream, max_bytes)
        if size < self.part_size:  # the whole blob is in hand: one PUT, atomic
            self._call(f"put {key}", obstore.put, self._store, key, head, use_multipart=False)
            return size
        writer = obstore.open_writer(
            self._store, key, buffer_size=self.part_size, max_concurrency=self.concurrency
        )
        try:
            self._call(f"put {key}", writer.write, head)
            del head
            for chunk in stream:
                size += len(chunk)
                if max_bytes is not None and size > max_bytes:
                    raise TooLarge(f"over the size cap of {max_bytes} bytes")
                self._call(f"put {key}", writer.write, chunk)
        except BaseException as exc:
            self._abort(key, writer, exc)
            raise
        # The upload is completed only here, so a reader never meets a partial blob.
        self._call(f"put {key}", writer.close)
        return size

    def _first_part(self, stream: Iterator[bytes], max_bytes: int | None) -> tuple[bytes, int]:
        """Up to a part's worth of ``stream``: most blobs (notes, extracted text, small
        files) end within it and go up in one request."""
        held: list[bytes] = []
        size = 0
        for chunk in stream:
            size += len(chunk)
            if max_bytes is not None and size > max_bytes:
                raise TooLarge(f"over the size cap of {max_bytes} bytes")
            held.append(chunk)
            if size >= self.part_size:
                break
        return b"".join(held), size

    @staticmethod
    def _abort(key: str, writer: Any, exc: BaseException) -> None:
        """Abort ``writer``'s upload without hiding why the put failed: a server that
        refuses the abort (s3rver has no AbortMultipartUpload) leaves its parts to the
        bucket's lifecycle rule (docs/s3.md), never a visible blob."""
        try:
            writer.__exit__(type(exc), exc, exc.__traceback__)  # obstore aborts on error
        except Exception as failed:
            log.warning("could not abort the upload of %s: %s", key, str(failed)[:300])

    def read(self, key: str) -> bytes:
        got = self._get(key)
        return bytes(self._call(f"read {key}", got.bytes))

    def stream(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        if start < 0:
            raise InvalidInput(f"a read of {key} starts at {start}")
        if end is not None and end <= start:
            self.size(key)  # a missing blob is NotFound even for an empty range
            return iter(())
        rng: Any = {"offset": start} if end is None else (start, end)
        try:
            got = self._get(key, None if (start, end) == (0, None) else rng)
        except Unavailable:
            if start > 0 and start >= self.size(key):
                return iter(())  # S3 answers 416 past the end; the contract reads nothing
            raise
        return self._chunks(key, got)

    def _chunks(self, key: str, got: Any) -> Iterator[bytes]:
        stream = got.stream(min_chunk_size=_CHUNK)
        while True:
            try:
                chunk = next(stream)
            except StopIteration:
                return
            except Exception as exc:
                raise self._unavailable(f"read {key}", exc) from exc
            yield bytes(chunk)

    def size(self, key: str) -> int:
        return int(self._head(key)["size"])

    def exists(self, key: str) -> bool:
        try:
            self._head(key)
        except NotFound:
            return False
        return True

    def keys(self, prefix: str) -> Iterator[tuple[str, datetime]]:
        import obstore

        folder = _check_key(prefix.rstrip("/"))
        # obstore lists by path segment: "w/i" finds "w/i/…", never "w/ix".
        listed = self._call(f"list {folder}", lambda: list(obstore.list(self._store, folder)))
        found = sorted(
            (m["path"], m["last_modified"].astimezone(UTC)) for batch in listed for m in batch
        )
        yield from found

    def delete_prefix(self, prefix: str) -> None:
        import obstore

        target = _check_key(prefix.rstrip("/"))
        doomed = [target, *(key for key, _ in self.keys(target))]
        for i in range(0, len(doomed), 1000):  # DeleteObjects takes 1000 keys at most
            batch = doomed[i : i + 1000]
            self._call(f"delete {target}", obstore.delete, self._store, batch)

    def settled_before(self) -> datetime | None:
        return None  # a bucket keeps no record of who is uploading: age alone tells

    def clear_partial(self, older_than: datetime) -> int:
        # A put aborts its upload when it fails; only a process killed mid-upload leaves
        # parts, and they are never visible. obstore lists no multipart uploads, so the
        # bucket's lifecycle rule (AbortIncompleteMultipartUpload, docs/s3.md) removes them.
        return 0

    # -- obstore calls, their errors mapped ------------------------------------------------

    def _get(self, key: str, rng: Any = None) -> Any:
        import obstore

        options: Any = {"range": rng} if rng is not None else None
        return self._call(f"read {key}", obstore.get, self._store, _check_key(key), options=options)

    def _head(self, key: str) -> Any:
        import obstore

        return self._call(f"read {key}", obstore.head, self._store, _check_key(key))

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except FileNotFoundError:  # obstore's NotFoundError
            raise NotFound(f"blob {what.split(' ', 1)[-1]} not found") from None
        except Exception as exc:
            raise self._unavailable(what, exc) from exc

    def _unavailable(self, what: str, exc: BaseException) -> Unavailable:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return Unavailable(f"S3 blob store {self.location}: {what} failed: {first[:300]}")
