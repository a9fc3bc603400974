"""Blobs in a local folder, written atomically (temp file, fsync, rename)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from ..errors import InvalidInput, NotFound, TooLarge
from .fsync import fsync_path
from .writers_local import hold_writer_lock, other_writers_alive

__all__ = ["LocalBlobStore"]

_CHUNK = 1 << 16
_TMP = ".tmp-"


class LocalBlobStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        parts = key.split("/")
        if not key or any(p in ("", ".", "..") or "\\" in p or "\0" in p for p in parts):
            raise InvalidInput(f"invalid blob key {key!r}")
        return self.root.joinpath(*parts)

    def put(self, key: str, chunks: Iterable[bytes], *, max_bytes: int | None = None) -> int:
        path = self._path(key)
        hold_writer_lock(self.root)  # before any byte: a sweep then knows we may be writing
        fd, tmp = self._temp_beside(path)
        size = 0
        try:
            with os.fdopen(fd, "wb") as f:
                for chunk in chunks:
                    size += len(chunk)
                    if max_bytes is not None and size > max_bytes:
                        raise TooLarge(f"over the size cap of {max_bytes} bytes")
                    f.write(chunk)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        fsync_path(path.parent)
        return size

    def read(self, key: str) -> bytes:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError:
            raise NotFound(f"blob {key} not found") from None

    def stream(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        path = self._path(key)
        try:
            f = path.open("rb")
        except FileNotFoundError:
            raise NotFound(f"blob {key} not found") from None
        return _read_range(f, start, end)

    def size(self, key: str) -> int:
        try:
            return self._path(key).stat().st_size
        except FileNotFoundError:
            raise NotFound(f"blob {key} not found") from None

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def delete_prefix(self, prefix: str) -> None:
        path = self._path(prefix.rstrip("/"))
        if path.is_dir():
            shutil.rmtree(path)
        elif path.is_file():
            path.unlink()
        self._prune(path)

    def _prune(self, removed: Path) -> None:
        """Remove the folders ``removed`` left empty, up to the root."""
        for folder in removed.parents:
            if folder == self.root or not folder.is_relative_to(self.root):
                break
            try:
                folder.rmdir()
            except OSError:  # not empty (or already gone): stop here
                break

    @staticmethod
    def _temp_beside(path: Path) -> tuple[int, str]:
        # A delete in another process may remove an empty folder between our mkdir and
        # the temp file's creation: make it again once.
        for attempt in (1, 2):
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                return tempfile.mkstemp(prefix=_TMP, dir=path.parent)
            except FileNotFoundError:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def keys(self, prefix: str) -> Iterator[tuple[str, datetime]]:
        folder = self._path(prefix.rstrip("/"))
        if not folder.is_dir():
            return
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.name.startswith(_TMP):
                at = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
                yield path.relative_to(self.root).as_posix(), at

    def settled_before(self) -> datetime | None:
        since = hold_writer_lock(self.root)
        return None if other_writers_alive(self.root) else since

    def clear_partial(self, older_than: datetime) -> int:
        if not self.root.is_dir():
            return 0
        removed = 0
        for path in list(self.root.rglob(f"{_TMP}*")):
            if path.is_file() and datetime.fromtimestamp(path.stat().st_mtime, UTC) < older_than:
                path.unlink(missing_ok=True)
                self._prune(path)
                removed += 1
        return removed


def _read_range(f: BinaryIO, start: int, end: int | None) -> Iterator[bytes]:
    with f:
        f.seek(start)
        remaining = None if end is None else max(0, end - start)
        while remaining is None or remaining > 0:
            n = _CHUNK if remaining is None else min(_CHUNK, remaining)
            data = f.read(n)
            if not data:
                return
            if remaining is not None:
                remaining -= len(data)
            yield data
