"""Blobs in a dict: the in-memory ``BlobStore``, for tests and throwaway brains.

It keeps the local folder's contract (tests/contract/test_blob_contract.py runs both):
keys are ``/``-separated paths without empty, ``.`` or ``..`` parts; a put is atomic, so
a failed or oversize put leaves nothing; ``delete_prefix`` removes a key and everything
under it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from ..errors import InvalidInput, NotFound, TooLarge

__all__ = ["MemoryBlobStore"]

_CHUNK = 1 << 16


class MemoryBlobStore:
    def __init__(self) -> None:
        self._blobs: dict[str, bytes] = {}
        self._at: dict[str, datetime] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _check(key: str) -> str:
        parts = key.split("/")
        if not key or any(p in ("", ".", "..") or "\\" in p or "\0" in p for p in parts):
            raise InvalidInput(f"invalid blob key {key!r}")
        return key

    def put(self, key: str, chunks: Iterable[bytes], *, max_bytes: int | None = None) -> int:
        self._check(key)
        held: list[bytes] = []
        size = 0
        for chunk in chunks:
            size += len(chunk)
            if max_bytes is not None and size > max_bytes:
                raise TooLarge(f"over the size cap of {max_bytes} bytes")
            held.append(bytes(chunk))
        with self._lock:
            self._blobs[key] = b"".join(held)
            self._at[key] = datetime.now(UTC)
        return size

    def read(self, key: str) -> bytes:
        with self._lock:
            data = self._blobs.get(self._check(key))
        if data is None:
            raise NotFound(f"blob {key} not found")
        return data

    def stream(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        data = self.read(key)
        stop = len(data) if end is None else min(max(end, start), len(data))
        return (data[i : min(i + _CHUNK, stop)] for i in range(start, stop, _CHUNK))

    def size(self, key: str) -> int:
        return len(self.read(key))

    def exists(self, key: str) -> bool:
        with self._lock:
            return self._check(key) in self._blobs

    def keys(self, prefix: str) -> Iterator[tuple[str, datetime]]:
        folder = self._check(prefix.rstrip("/")) + "/"
        with self._lock:
            found = sorted((k, self._at[k]) for k in self._blobs if k.startswith(folder))
        yield from found

    def clear_partial(self, older_than: datetime) -> int:
        return 0  # a put is one assignment: nothing is ever left half-written

    def settled_before(self) -> datetime | None:
        return None  # it dies with its process: nothing of a killed writer is ever found

    def delete_prefix(self, prefix: str) -> None:
        folder = self._check(prefix.rstrip("/"))
        with self._lock:
            for key in [k for k in self._blobs if k == folder or k.startswith(folder + "/")]:
                del self._blobs[key], self._at[key]
