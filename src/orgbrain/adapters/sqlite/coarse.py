"""The approximate tier of a large shelf: an inverted file (IVF) over its rows.

Above ``APPROX_ABOVE`` rows one storage class's exact int8 scan no longer fits the search
budget (about 56 ms at 1M rows on two cores, docs/benchmarks.md). The tier splits the rows
into ``lists`` of about ``LIST_ROWS`` rows each, around centroids found by spherical
k-means on a sample; a search ranks the centroids, and scans with the int8 codes only the
rows of the best lists until ``probe_rows`` rows are read (plus every row the tier has not
filed yet), before the shelf rescores the best of them exactly in float32, as before.

It is a cache of a cache, with nothing to persist or repair: the centroids are built in a
background thread from the shelf's rows (the shelf searches exactly until they are ready),
every row written afterwards is filed at once against them, and the rows filed since the
last ``order`` rebuild are ``pending``, scanned on every search. A row is therefore always
searchable from the moment the shelf holds it, whichever state the tier is in; a process
that crashes loses nothing but the centroids, which the next one builds again.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "APPROX_ABOVE",
    "LIST_ROWS",
    "PROBE_MIN",
    "PROBE_SHARE",
    "Centroids",
    "Files",
    "assign",
    "build_centroids",
    "probe_rows",
]

APPROX_ABOVE = 200_000
"""A shelf with more live rows than this searches through the approximate tier (once its
centroids are built); smaller ones scan every row."""
LIST_ROWS = 1024
"""About how many rows one list holds."""
PROBE_MIN = 24_576
"""A search through the tier reads at least this many rows (and ``1/PROBE_SHARE`` of all)."""
PROBE_SHARE = 8
_SAMPLE_PER_LIST = 16
_ITERATIONS = 6
_CHUNK = 65_536

F32 = NDArray[np.float32]
I32 = NDArray[np.int32]
Slots = NDArray[np.intp]


def probe_rows(n: int, least: int = PROBE_MIN, share: int = PROBE_SHARE) -> int:
    """How many rows a search reads at ``n`` rows: ``1/share`` of them, at least ``least``."""
    return max(least, n // share)


def _normalised(x: F32) -> F32:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: F32 = (x / norms).astype(np.float32)
    return out


def assign(vectors: F32, centroids: F32) -> I32:
    """The nearest centroid (by dot product) of each row, ``_CHUNK`` rows at a time."""
    out = np.empty(vectors.shape[0], dtype=np.int32)
    for start in range(0, vectors.shape[0], _CHUNK):
        block = vectors[start : start + _CHUNK] @ centroids.T
        out[start : start + _CHUNK] = np.argmax(block, axis=1)
    return out


def build_centroids(vectors: F32, n_lists: int, seed: int = 0) -> F32:
    """Spherical k-means: ``n_lists`` unit centroids fitted to a sample of ``vectors``."""
    rng = np.random.default_rng(seed)
    n = vectors.shape[0]
    sample_n = min(n, n_lists * _SAMPLE_PER_LIST)
    sample = _normalised(np.asarray(vectors[np.sort(rng.choice(n, sample_n, replace=False))]))
    centroids = sample[rng.choice(sample_n, n_lists, replace=False)].copy()
    for _ in range(_ITERATIONS):
        owner = assign(sample, centroids)
        sums = np.zeros_like(centroids)
        np.add.at(sums, owner, sample)
        empty = np.flatnonzero(np.bincount(owner, minlength=n_lists) == 0)
        if empty.size:  # an empty list restarts on a random sample row
            sums[empty] = sample[rng.choice(sample_n, empty.size, replace=False)]
        centroids = _normalised(sums)
    return centroids


@dataclass(frozen=True, slots=True)
class Centroids:
    """What the background build hands over: the centroids, and the list of every row the
    shelf held when the build started (rows ``0..len(lists)``)."""

    centroids: F32
    lists: I32
    epoch: int


class Files:
    """The tier of one shelf: centroids, each slot's list, and the rows in list order.

    Slots are the shelf's. ``lists[s]`` is -1 while slot ``s`` is not filed. ``order``,
    ``offsets`` and a copy of the int8 ``codes`` and ``scales`` in that order hold the
    filed rows grouped by list as of the last ``rebuild``, so that a list is read as one
    contiguous block; rows filed (or refiled) since are ``pending`` and read from the shelf
    by every search, so a refiled slot may be read twice (once with its old code), never
    missed.
    """

    def __init__(self, centroids: F32) -> None:
        self.centroids = centroids
        self.order: Slots = np.zeros(0, dtype=np.intp)
        self.offsets: NDArray[np.int64] = np.zeros(len(centroids) + 1, dtype=np.int64)
        self.codes: NDArray[np.int8] = np.zeros((0, centroids.shape[1]), dtype=np.int8)
        self.scales: F32 = np.zeros(0, dtype=np.float32)
        self.pending: list[Slots] = []
        self.pending_n = 0

    def nbytes(self) -> int:
        return int(self.centroids.nbytes + self.order.nbytes + self.codes.nbytes)

    def file(self, slots: Slots, vectors: F32, lists: I32) -> None:
        """File new or changed rows against the centroids (``lists`` is the shelf's)."""
        lists[slots] = assign(vectors, self.centroids)
        self.pending.append(np.asarray(slots, dtype=np.intp))
        self.pending_n += int(slots.shape[0])

    def rebuild(self, lists: I32, codes: NDArray[np.int8], scales: F32) -> None:
        """Group every filed slot by list (the shelf's arrays, up to its row count)."""
        filed = np.flatnonzero(lists >= 0)
        by = np.argsort(lists[filed], kind="stable")
        self.order = filed[by]
        self.codes = codes[self.order]
        self.scales = scales[self.order]
        counts = np.bincount(lists[filed], minlength=len(self.centroids))
        self.offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.pending, self.pending_n = [], 0

    def stale(self, n: int) -> bool:
        """Whether so many rows are pending that reading them costs more than a rebuild."""
        return self.pending_n > max(4096, n // 64)

    def nearest(self, query: F32, rows: int) -> list[tuple[int, int]]:
        """The ``(start, end)`` blocks of the lists nearest ``query``, best first, until
        they hold ``rows`` rows."""
        scores = self.centroids @ query
        ranked = np.argsort(-scores)
        taken = np.cumsum(np.diff(self.offsets)[ranked])
        stop = int(np.searchsorted(taken, rows)) + 1
        starts, ends = self.offsets[ranked[:stop]], self.offsets[ranked[:stop] + 1]
        return [(int(a), int(b)) for a, b in zip(starts, ends, strict=True) if b > a]

    def pending_slots(self) -> Slots:
        if not self.pending:
            return np.zeros(0, dtype=np.intp)
        if len(self.pending) > 1:
            self.pending = [np.concatenate(self.pending)]
        return self.pending[0]


class Builder:
    """Builds one shelf's centroids in a background thread; ``result`` once done."""

    def __init__(self, vectors: F32, n: int, epoch: int) -> None:
        self.result: Centroids | None = None
        self.error: BaseException | None = None
        self._vectors = vectors
        self._n = n
        self._epoch = epoch
        self._thread = threading.Thread(target=self._run, name="orgbrain-ivf", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            rows = self._vectors[: self._n]
            centroids = build_centroids(rows, max(1, self._n // LIST_ROWS))
            self.result = Centroids(centroids, assign(rows, centroids), self._epoch)
        except BaseException as exc:
            self.error = exc
        finally:
            self._vectors = np.zeros((0, 0), dtype=np.float32)

    def wait(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()
