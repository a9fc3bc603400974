"""Blobs in a local folder, written atomically (temp file, fsync, rename)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from ..errors import InvalidInput, NotFound, TooLarge

__all__ = ["LocalBlobStore"]

_CHUNK = 1 << 16


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
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
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
        _fsync_dir(path.parent)
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


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
