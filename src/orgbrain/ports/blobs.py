"""Raw bytes by key: where a file's bytes (a citation) live."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Protocol

__all__ = ["BlobStore"]


class BlobStore(Protocol):
    """Raw bytes by key. ``put`` is atomic: a failed or oversize put leaves nothing."""

    def put(self, key: str, chunks: Iterable[bytes], *, max_bytes: int | None = None) -> int: ...

    def read(self, key: str) -> bytes: ...

    def stream(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]: ...

    def size(self, key: str) -> int: ...

    def exists(self, key: str) -> bool: ...

    def delete_prefix(self, prefix: str) -> None: ...

    def keys(self, prefix: str) -> Iterator[tuple[str, datetime]]:
        """Every blob under ``prefix`` (a folder), with when it was last written."""
        ...

    def clear_partial(self, older_than: datetime) -> int:
        """Remove what puts that never finished left behind (a crash mid-write) and that
        is older than ``older_than``; return how many were removed."""
        ...

    def settled_before(self) -> datetime | None:
        """A time before which every put into this store has finished or was abandoned
        by a writer that is gone: when no other live process may be writing, the moment
        this process began to (its own puts start after it). None when another writer
        lives, or the store cannot tell: then only a blob's age says it is abandoned."""
        ...
