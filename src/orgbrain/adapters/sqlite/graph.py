"""An HNSW graph over one large shelf, and the file beside the database that keeps it.

The graph is derived, never the truth: it is built from the vectors the shelf holds at
one ``vec_seq`` (its watermark), and a search only takes candidates from it. Every
candidate is rescored exactly from the shelf, rows the shelf no longer holds (deleted,
tombstoned, unindexed) or that the reader may not see are dropped, and rows written
after the watermark are scanned exactly on every search (``vectors.py``), so the graph
can cost recall but never correctness.

usearch (HNSW, f16 codes, inner product on the unit vectors, connectivity 16, expansion
128 when adding): docs/benchmarks.md, "An approximate tier for 1M rows". A graph label is
the row's SQLite rowid shifted left by ``LABEL_BITS``, its low bits numbering the item's
vectors (its own and its passages', at most ``MAX_VECTORS``).

The file: ``<db>.hnsw-<tag>-<build>.usearch`` holds the graph and ``<db>.hnsw-<tag>.json``
says which build is current, its watermark, size and CRC-32. Each is written to a
temporary name, fsynced and renamed, the graph first: the JSON is the commit. A file
that is missing, of another shape, or whose bytes do not match its CRC is not loaded;
the caller rebuilds, searching exactly meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..fsync import fsync_path

if TYPE_CHECKING:
    from usearch.index import Index

__all__ = [
    "EXPANSION_SEARCH",
    "LABEL_BITS",
    "BuildLock",
    "Graph",
    "GraphFile",
    "build_graph",
    "labels_of",
]

log = logging.getLogger(__name__)

CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 512
"""The least expansion a search of every row uses (a search for more rows widens it to
their number; the shelf widens it for a reader who sees a share). At 1M synthetic
sections 256 kept 0.988 of the exact top 50, 512 kept 0.998 (docs/benchmarks.md)."""
LABEL_BITS = 6
"""An item holds at most 64 vectors (``store.MAX_VECTORS``)."""
FORMAT = 1
_CHUNK = 16_384
_READ = 1 << 24

F32 = NDArray[np.float32]
I64 = NDArray[np.int64]
U64 = NDArray[np.uint64]


@dataclass
class Graph:
    """A built or loaded graph and the ``vec_seq`` its rows were read at."""

    index: Index
    watermark: int
    build: str

    def __len__(self) -> int:
        return int(self.index.size)

    def candidates(self, query: F32, count: int, expansion: int) -> I64:
        """Rowids of the ``count`` nearest vectors, each once, in rowid order, searched
        with at least ``expansion`` candidates in hand."""
        count = min(count, len(self))
        if count <= 0:
            return np.zeros(0, dtype=np.int64)
        self.index.expansion_search = max(expansion, count)  # type: ignore[misc]
        found = self.index.search(query, count, threads=1)
        rowids = (np.asarray(found.keys, dtype=np.uint64) >> np.uint64(LABEL_BITS)).astype(np.int64)
        return np.unique(rowids)

    def vectors_of(self, labels: U64) -> F32:
        got = self.index.get(labels, dtype="f32")
        return np.asarray(got, dtype=np.float32).reshape(len(labels), -1)


def labels_of(keys: I64) -> U64:
    """A label per vector: its key (rowid) shifted, numbered within the key."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    runs = np.diff(np.r_[starts, keys.shape[0]])
    within = np.empty(keys.shape[0], dtype=np.uint64)
    within[order] = np.arange(keys.shape[0]) - np.repeat(starts, runs)
    return (keys.astype(np.uint64) << np.uint64(LABEL_BITS)) | within


def build_graph(
    labels: U64,
    vectors: NDArray[np.float16],
    watermark: int,
    *,
    cancelled: Callable[[], bool] = lambda: False,
    threads: int = 0,
) -> Graph | None:
    """A graph of ``vectors`` (unit rows), added a chunk at a time; None if cancelled."""
    # Imported here, not at the top: only a brain past the threshold loads usearch, so a
    # process that embeds orgbrain beside faiss (txtai does) never has both native
    # libraries loaded (faiss's index_factory crashed with usearch imported first).
    from usearch.index import Index

    index = Index(
        ndim=vectors.shape[1],
        metric="ip",
        dtype="f16",
        connectivity=CONNECTIVITY,
        expansion_add=EXPANSION_ADD,
        expansion_search=EXPANSION_SEARCH,
    )
    for start in range(0, labels.shape[0], _CHUNK):
        if cancelled():
            return None
        stop = start + _CHUNK
        index.add(labels[start:stop], vectors[start:stop], threads=threads)
    return Graph(index, watermark, uuid.uuid4().hex[:12])


class GraphFile:
    """Where one workspace's graph of one storage class is kept beside the database."""

    def __init__(self, db_path: Path, workspace: str, storage_class: str, dim: int) -> None:
        tag = hashlib.sha256(f"{workspace}\0{storage_class}".encode()).hexdigest()[:16]
        self.folder = db_path.parent
        self.prefix = f"{db_path.name}.hnsw-{tag}"
        self.meta = self.folder / f"{self.prefix}.json"
        self.lock = self.folder / f"{self.prefix}.lock"
        self.workspace = workspace
        self.storage_class = storage_class
        self.dim = dim

    def graph_path(self, build: str) -> Path:
        return self.folder / f"{self.prefix}-{build}.usearch"

    def stamp(self) -> int | None:
        """When the JSON last changed (None if there is none): a cheap look for news."""
        try:
            return self.meta.stat().st_mtime_ns
        except FileNotFoundError:
            return None

    def load(self) -> Graph | None:
        """The committed graph, or None if there is none or it does not check out."""
        try:
            meta = json.loads(self.meta.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("vector graph %s unreadable (%s): rebuilding", self.meta, exc)
            return None
        want = {
            "format": FORMAT,
            "workspace": self.workspace,
            "class": self.storage_class,
            "dim": self.dim,
            "connectivity": CONNECTIVITY,
        }
        if not isinstance(meta, dict) or any(meta.get(k) != v for k, v in want.items()):
            log.warning("vector graph %s is of another shape: rebuilding", self.meta)
            return None
        path = self.graph_path(str(meta.get("build", "")))
        try:
            size = path.stat().st_size
            if size != meta.get("bytes") or _crc(path) != meta.get("crc32"):
                log.warning("vector graph %s does not match its CRC: rebuilding", path)
                return None
            from usearch.index import Index

            index = Index.restore(str(path), view=True)
        except (OSError, RuntimeError, ValueError) as exc:
            log.warning("vector graph %s unreadable (%s): rebuilding", path, exc)
            return None
        if index is None or index.ndim != self.dim or index.size != meta.get("rows"):
            log.warning("vector graph %s is of another shape: rebuilding", path)
            return None
        return Graph(index, int(meta["watermark"]), str(meta["build"]))

    def save(self, graph: Graph) -> None:
        """Write the graph, then the JSON that makes it current; remove older builds."""
        path = self.graph_path(graph.build)
        tmp = path.with_name(path.name + ".tmp")
        graph.index.save(str(tmp))
        fsync_path(tmp)
        os.replace(tmp, path)
        meta = {
            "format": FORMAT,
            "workspace": self.workspace,
            "class": self.storage_class,
            "dim": self.dim,
            "connectivity": CONNECTIVITY,
            "build": graph.build,
            "watermark": graph.watermark,
            "rows": len(graph),
            "bytes": path.stat().st_size,
            "crc32": _crc(path),
        }
        tmp_meta = self.meta.with_name(self.meta.name + f".{graph.build}.tmp")
        tmp_meta.write_text(json.dumps(meta))
        fsync_path(tmp_meta)
        os.replace(tmp_meta, self.meta)
        fsync_path(self.folder)
        for old in self.folder.glob(f"{self.prefix}-*.usearch*"):
            if old != path:
                old.unlink(missing_ok=True)

    def discard(self) -> None:
        """Forget the committed graph (it did not match the database)."""
        self.meta.unlink(missing_ok=True)


class BuildLock:
    """One builder per graph file across processes: an advisory lock on a file beside it,
    taken without waiting (a process that cannot take it searches exactly until the
    other's graph is committed, then loads it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._mutex = threading.Lock()

    def __enter__(self) -> bool:
        import fcntl

        with self._mutex:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return False
            self._fd = fd
            return True

    def __exit__(self, *exc: object) -> None:
        with self._mutex:
            if self._fd is not None:
                os.close(self._fd)  # closing the descriptor releases the lock
                self._fd = None


def _crc(path: Path) -> int:
    crc = 0
    with path.open("rb") as f:
        while chunk := f.read(_READ):
            crc = zlib.crc32(chunk, crc)
    return crc
