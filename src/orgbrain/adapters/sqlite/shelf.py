"""One storage class's vectors in memory, and the search over them.

A search over few visible rows (``exact_below``, 8,192 by default) is exact float32 brute
force. Above that, an int8 dot product over every row (codes quantised per row; rows a
scope filter hides are masked out) keeps the best ``max(4 * limit, 256)``, and those are
rescored exactly in float32: every score returned is an exact cosine, and top-k is always
filled with visible rows. At 100k rows the cost is memory traffic, not arithmetic, and
int8 codes are a quarter of the bytes of float32.

Measured against exact search on MiniLM embeddings (``bench/vectors.py``), this found the
whole top 50. A sign-bit shortlist before the int8 stage was tried and dropped: on this
box it saved little or nothing at 100k-200k rows, and sign bits do not rank every
embedding distribution well.
"""

from __future__ import annotations

from typing import Any

import numkong
import numpy as np
from numpy.typing import NDArray

__all__ = ["EXACT_BELOW", "Shelf", "quantise"]

EXACT_BELOW = 8192
"""A search over at most this many visible rows is exact float32 brute force."""

_RESCORE_FACTOR = 4
_RESCORE_MIN = 256
_I8_MAX = 127.0

F32 = NDArray[np.float32]
I64 = NDArray[np.int64]
Slots = NDArray[np.intp]
Mask = NDArray[np.bool_]


def quantise(vectors: F32) -> tuple[NDArray[np.int8], F32]:
    """Per-row symmetric int8 codes and the factor that maps a code's dot product back."""
    peak = np.abs(vectors).max(axis=1)
    peak[peak == 0] = 1.0
    codes = np.rint(vectors * (_I8_MAX / peak)[:, None]).astype(np.int8)
    return codes, (peak / _I8_MAX).astype(np.float32)


def _best(scores: NDArray[Any], limit: int) -> Slots:
    """Indices of the ``limit`` highest scores, best first, ties in index order."""
    take = min(limit, scores.shape[0])
    if take < scores.shape[0]:
        part = np.argpartition(-scores, take - 1)[:take]
        part.sort()
    else:
        part = np.arange(scores.shape[0])
    return part[np.argsort(-scores[part], kind="stable")]


class Shelf:
    """The rows of one storage class: float32 vectors, int8 codes, scope, liveness.

    Slots are appended; a removal only clears ``alive`` until ``compact`` drops the dead.
    Keys are SQLite rowids. A key may hold several vectors (an item and its passages): it
    scores its best one, and a search returns each key once. A key is in ``_slots``
    exactly while its slots are alive.
    """

    def __init__(self, dim: int, exact_below: int = EXACT_BELOW) -> None:
        self.dim = dim
        self.exact_below = exact_below
        self.n = 0
        self.live = 0
        self.vectors: F32 = np.zeros((0, dim), dtype=np.float32)
        self.codes: NDArray[np.int8] = np.zeros((0, dim), dtype=np.int8)
        self.scales: F32 = np.zeros(0, dtype=np.float32)
        self.scopes: NDArray[np.int32] = np.zeros(0, dtype=np.int32)
        self.alive: Mask = np.zeros(0, dtype=bool)
        self.keys: I64 = np.zeros(0, dtype=np.int64)
        self._slots: dict[int, list[int]] = {}
        self.per_key = 1  # the most vectors a live key holds, or held since the last compact

    def __len__(self) -> int:
        """Live keys (items), not vectors."""
        return len(self._slots)

    def _arrays(self) -> tuple[NDArray[Any], ...]:
        return (
            self.vectors,
            self.codes,
            self.scales,
            self.scopes,
            self.alive,
            self.keys,
        )

    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in self._arrays())

    # -- writes ---------------------------------------------------------------------------

    def load(self, keys: I64, vectors: F32, scopes: NDArray[np.int32]) -> None:
        """Put many rows at once: each key's rows in the batch become all its vectors.

        A key that keeps its number of vectors is updated in place; one that changes it
        has its old slots dropped and the new ones appended.
        """
        if keys.shape[0] == 0:
            return
        rows_of: dict[int, list[int]] = {}
        for i, k in enumerate(keys.tolist()):
            rows_of.setdefault(int(k), []).append(i)
        slots = np.empty(keys.shape[0], dtype=np.intp)
        fresh: list[int] = []
        for key, rows in rows_of.items():
            old = self._slots.get(key)
            if old is not None and len(old) == len(rows):
                slots[rows] = old
                continue
            if old is not None:
                self.drop(key)
            fresh += rows
        self.reserve(self.n + len(fresh))
        if fresh:
            slots[fresh] = np.arange(self.n, self.n + len(fresh))
            self.n += len(fresh)
            self.live += len(fresh)
        for key, rows in rows_of.items():
            self._slots[key] = [int(slots[r]) for r in rows]
            self.per_key = max(self.per_key, len(rows))
        codes, scales = quantise(vectors)
        self.vectors[slots] = vectors
        self.codes[slots] = codes
        self.scales[slots] = scales
        self.scopes[slots] = scopes
        self.keys[slots] = keys
        self.alive[slots] = True

    def put(self, key: int, vector: F32, scope: int) -> None:
        rows = vector.reshape(-1, self.dim)
        self.load(
            np.full(rows.shape[0], key, dtype=np.int64),
            rows,
            np.full(rows.shape[0], scope, dtype=np.int32),
        )

    def drop(self, key: int) -> None:
        slots = self._slots.pop(key, None)
        if slots is not None:
            self.alive[slots] = False
            self.live -= len(slots)

    def compact_if_sparse(self) -> None:
        if self.n > 1024 and self.live * 4 < self.n * 3:
            self.compact()

    def compact(self) -> None:
        keep = np.flatnonzero(self.alive[: self.n])
        self.vectors, self.codes, self.scales, self.scopes, self.alive, self.keys = (
            a[keep].copy() for a in self._arrays()
        )
        self.n = self.live = int(keep.size)
        self._slots = {}
        for i, k in enumerate(self.keys[: self.n].tolist()):
            self._slots.setdefault(int(k), []).append(i)
        self.per_key = max((len(s) for s in self._slots.values()), default=1)

    def reserve(self, size: int) -> None:
        cap = self.vectors.shape[0]
        if size <= cap:
            return
        # Headroom, so that the first writes after a bulk load do not copy the whole shelf.
        new_cap = max(size + size // 8 + 256, cap + cap // 2)
        self.vectors, self.codes, self.scales, self.scopes, self.alive, self.keys = (
            _grown(a, new_cap) for a in self._arrays()
        )

    # -- search ---------------------------------------------------------------------------

    def top(self, query: F32, limit: int, allowed: Mask | None) -> tuple[I64, F32]:
        """Keys and exact cosines of the best ``limit`` live keys whose scope is allowed,
        each key scored by its best vector.

        ``allowed`` is indexed by scope code; None allows every scope.
        """
        n = self.n
        empty = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if self.live == 0 or limit <= 0:
            return empty
        mask: Mask | None = None
        visible = self.live
        if allowed is not None:
            mask = allowed[self.scopes[:n]] & self.alive[:n]
            visible = int(np.count_nonzero(mask))
        elif self.live < n:
            mask = self.alive[:n]
        if visible == 0:
            return empty
        slots: Slots
        if visible > self.exact_below:
            return self._shortlist(query, mask, limit, visible)
        if mask is not None:
            slots = np.flatnonzero(mask)
            scores = self.vectors[slots] @ query
        else:
            slots = np.arange(n)
            scores = self.vectors[:n] @ query
        return self._best_keys(slots, scores, limit)

    def _best_keys(self, slots: Slots, scores: F32, limit: int) -> tuple[I64, F32]:
        """The best ``limit`` keys among ``slots`` (scored ``scores``), each once."""
        if self.per_key == 1:
            best = _best(scores, limit)
        else:
            # Enough rows to hold ``limit`` distinct keys; a key's first row is its best.
            ranked = _best(scores, limit * self.per_key)
            _, first = np.unique(self.keys[slots[ranked]], return_index=True)
            first.sort()
            best = ranked[first[:limit]]
        return self.keys[slots[best]], scores[best]

    def _shortlist(
        self, query: F32, mask: Mask | None, limit: int, visible: int
    ) -> tuple[I64, F32]:
        """The int8 path: ``_RESCORE_FACTOR * limit`` candidate rows rescored exactly,
        widened while they hold fewer than ``limit`` distinct keys (a key of several
        vectors can fill many rows) and more rows are visible."""
        take = _RESCORE_FACTOR * limit
        while True:
            slots = self._int8_best(query, mask, take)
            slots.sort()  # slot order, so that equal scores rank as the exact path does
            scores: F32 = self.vectors[slots] @ query
            keys, best = self._best_keys(slots, scores, limit)
            if self.per_key == 1 or keys.shape[0] >= limit or take >= visible:
                return keys, best
            take *= self.per_key

    def _int8_best(self, query: F32, mask: Mask | None, limit: int) -> Slots:
        """The ``max(limit, 256)`` slots that ``mask`` lets through with the best int8 dot."""
        peak = float(np.abs(query).max()) or 1.0
        q = np.rint(query * (_I8_MAX / peak)).astype(np.int8).reshape(1, -1)
        dots = numkong.cdist(q, self.codes[: self.n], metric="dot", out_dtype="float32")
        approx: F32 = np.asarray(dots, dtype=np.float32).reshape(-1) * self.scales[: self.n]
        if mask is not None:
            approx[~mask] = -np.inf
        take = min(max(limit, _RESCORE_MIN), approx.shape[0])
        best = np.argpartition(-approx, take - 1)[:take]
        return best if mask is None else best[mask[best]]


def _grown(array: NDArray[Any], cap: int) -> NDArray[Any]:
    out = np.zeros((cap, *array.shape[1:]), dtype=array.dtype)
    out[: array.shape[0]] = array
    return out
