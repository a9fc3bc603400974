"""One contract for every BlobStore adapter: the local folder, the in-memory one, and S3
(a real s3rver on loopback, each test under a prefix of its own)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from uuid import uuid4

import pytest

from orgbrain.adapters.blobs_local import LocalBlobStore
from orgbrain.adapters.blobs_memory import MemoryBlobStore
from orgbrain.errors import InvalidInput, NotFound, TooLarge
from orgbrain.ports import BlobStore
from tests.s3rver import BUCKET, s3_env

BlobFactory = Callable[[], BlobStore]


@pytest.fixture(params=["local", "memory", "s3"])
def make_blobs(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> BlobFactory:
    if request.param == "local":
        return lambda: LocalBlobStore(tmp_path / "blobs")
    if request.param == "s3":
        from orgbrain.adapters.blobs_s3 import S3BlobStore

        endpoint: str = request.getfixturevalue("s3rver")
        for var, value in s3_env(endpoint).items():
            monkeypatch.setenv(var, value)
        prefix = f"contract/{uuid4().hex}"
        return lambda: S3BlobStore(BUCKET, prefix, endpoint_url=endpoint)
    return MemoryBlobStore


def pieces(data: bytes, size: int) -> Iterator[bytes]:
    for i in range(0, len(data), size):
        yield data[i : i + size]


def test_a_put_streams_in_and_reads_back_whole_or_in_ranges(make_blobs: BlobFactory) -> None:
    blobs = make_blobs()
    data = bytes(range(256)) * 1000
    assert blobs.put("w/a/raw", pieces(data, 777)) == len(data)
    assert blobs.read("w/a/raw") == data
    assert blobs.size("w/a/raw") == len(data) and blobs.exists("w/a/raw")
    assert b"".join(blobs.stream("w/a/raw")) == data
    assert b"".join(blobs.stream("w/a/raw", 1000, 70_000)) == data[1000:70_000]
    assert b"".join(blobs.stream("w/a/raw", 5)) == data[5:]
    assert b"".join(blobs.stream("w/a/raw", 10, 10)) == b""


def test_a_put_replaces_the_whole_blob(make_blobs: BlobFactory) -> None:
    blobs = make_blobs()
    blobs.put("k", [b"a long first version"])
    blobs.put("k", [b"short"])
    assert blobs.read("k") == b"short"


def test_an_oversize_put_leaves_nothing_and_keeps_the_old_bytes(make_blobs: BlobFactory) -> None:
    blobs = make_blobs()
    with pytest.raises(TooLarge):
        blobs.put("w/new", pieces(b"x" * 100, 10), max_bytes=99)
    assert not blobs.exists("w/new")
    blobs.put("w/old", [b"kept"])
    with pytest.raises(TooLarge):
        blobs.put("w/old", pieces(b"y" * 100, 10), max_bytes=50)
    assert blobs.read("w/old") == b"kept"


def test_a_failing_stream_leaves_nothing(make_blobs: BlobFactory) -> None:
    blobs = make_blobs()

    def broken() -> Iterator[bytes]:
        yield b"half"
        raise OSError("the client went away")

    with pytest.raises(OSError):
        blobs.put("w/broken", broken())
    assert not blobs.exists("w/broken")


def test_missing_blobs_are_not_found(make_blobs: BlobFactory) -> None:
    blobs = make_blobs()
    assert not blobs.exists("nothing/here")
    for read in (blobs.read, blobs.size, lambda k: b"".join(blobs.stream(k))):
        with pytest.raises(NotFound):
            read("nothing/here")


def test_delete_prefix_removes_a_folder_or_a_file(make_blobs: BlobFactory) -> None:
    blobs = make_blobs()
    for key in ("w/i/v1/raw", "w/i/v1/raw.txt", "w/i/v2/raw", "w/i2/raw"):
        blobs.put(key, [key.encode()])
    blobs.delete_prefix("w/i/v1")
    assert not blobs.exists("w/i/v1/raw") and not blobs.exists("w/i/v1/raw.txt")
    assert blobs.exists("w/i/v2/raw") and blobs.exists("w/i2/raw")
    blobs.delete_prefix("w/i2/raw")
    assert not blobs.exists("w/i2/raw")
    blobs.delete_prefix("w/absent")  # nothing there: no error


@pytest.mark.parametrize("key", ["", "a//b", "../x", "a/./b", "a/../b", "a\\b", "a/\0"])
def test_keys_that_could_escape_are_refused(make_blobs: BlobFactory, key: str) -> None:
    blobs = make_blobs()
    with pytest.raises(InvalidInput):
        blobs.put(key, [b"x"])


def test_keys_list_a_folder_with_when_each_was_written(make_blobs: BlobFactory) -> None:
    blobs = make_blobs()
    for key in ("w/i/v1/raw", "w/i/v1/raw.txt", "w/j/raw", "x/other"):
        blobs.put(key, [b"."])
    listed = dict(blobs.keys("w"))
    assert set(listed) == {"w/i/v1/raw", "w/i/v1/raw.txt", "w/j/raw"}
    assert all(at.tzinfo is not None for at in listed.values())
    assert list(blobs.keys("absent")) == []
    assert blobs.clear_partial(datetime.now(UTC)) == 0  # finished puts are never partial
    assert set(dict(blobs.keys("w"))) == set(listed)
