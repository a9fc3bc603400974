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
embedding distribution well. A reader who sees a small share of a large shelf has the
int8 scan run over their rows only (gathered first), not over the shelf with the rest
masked.

Past ``APPROX_ABOVE`` rows the scan no longer fits a search's budget, and a shelf may be
searched through an ``Approximate`` tier instead (an HNSW graph, ``graph.py``, kept by
``vectors.py``): the graph's candidates, oversampled for the reader's share and widened
until ``limit`` visible keys are found, plus every row written since the graph was built,
all rescored exactly in float32. A reader who sees too small a share for the graph to
serve keeps the exact scan over their rows.
"""

from __future__ import annotations

from typing import Any, Protocol

import numkong
import numpy as np
from numpy.typing import NDArray

from .graph import EXPANSION_SEARCH

__all__ = ["APPROX_ABOVE", "EXACT_BELOW", "Approximate", "Shelf", "quantise"]

EXACT_BELOW = 8192
"""A search over at most this many visible rows is exact float32 brute force."""
APPROX_ABOVE = 200_000
"""A shelf of more live rows than this may be searched through a graph (``Approximate``)."""
APPROX_MAX_READ = 4096
"""The widest graph search: a reader whose share of the shelf would need more (the graph's
expansion, or ``limit``, over their share) is served by the exact scan of their rows. At
1M rows a reader of 10% is (graph: 0.975 of the top 50 at expansion 750; exact scan of
their rows: all of it, in 18 ms)."""
_OVERSAMPLE = 1.1
_SPARE = 16
"""Candidates read past ``limit`` over the reader's share: a few more than the share
predicts, so that a search seldom has to widen (the expansion is wider anyway)."""
_GATHER_BELOW = 0.25
"""A reader who sees under this share of the shelf has their rows gathered for the scan."""

_RESCORE_FACTOR = 4
_RESCORE_MIN = 256
_I8_MAX = 127.0

F32 = NDArray[np.float32]
I64 = NDArray[np.int64]
Slots = NDArray[np.intp]
Mask = NDArray[np.bool_]


class Approximate(Protocol):
    """What a shelf needs of a graph over its rows (``vectors.py`` keeps one)."""

    def candidates(self, query: F32, count: int, expansion: int) -> I64:
        """Keys (rowids) of about the ``count`` nearest vectors the graph holds, searched
        with at least ``expansion`` candidates in hand."""
        ...

    def __len__(self) -> int: ...

    @property
    def fresh(self) -> Slots:
        """Slots written since the graph was built (some may be dead by now)."""
        ...


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
        self.seqs: I64 = np.zeros(0, dtype=np.int64)  # the vec_seq each row was read at
        self.scope_live: NDArray[np.int64] = np.zeros(0, dtype=np.int64)  # by scope code
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
            self.seqs,
        )

    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in self._arrays())

    # -- writes ---------------------------------------------------------------------------

    def load(
        self, keys: I64, vectors: F32, scopes: NDArray[np.int32], seqs: I64 | None = None
    ) -> None:
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
        was = slots[self.alive[slots]]  # updated in place: their old scopes stop counting
        self._count_scopes(self.scopes[was], -1)
        self._count_scopes(scopes, 1)
        self.seqs[slots] = 0 if seqs is None else seqs
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
            self._count_scopes(self.scopes[slots], -1)

    def _count_scopes(self, scopes: NDArray[np.int32], sign: int) -> None:
        if scopes.shape[0] == 0:
            return
        top = int(scopes.max()) + 1
        if top > self.scope_live.shape[0]:
            self.scope_live = _grown(self.scope_live, top)
        self.scope_live[:top] += sign * np.bincount(scopes, minlength=top)

    def compact_if_sparse(self) -> None:
        if self.n > 1024 and self.live * 4 < self.n * 3:
            self.compact()

    def compact(self) -> None:
        keep = np.flatnonzero(self.alive[: self.n])
        (self.vectors, self.codes, self.scales, self.scopes, self.alive, self.keys, self.seqs) = (
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
        (self.vectors, self.codes, self.scales, self.scopes, self.alive, self.keys, self.seqs) = (
            _grown(a, new_cap) for a in self._arrays()
        )

    # -- search ---------------------------------------------------------------------------

    def top(
        self, query: F32, limit: int, allowed: Mask | None, graph: Approximate | None = None
    ) -> tuple[I64, F32]:
        """Keys and exact cosines of the best ``limit`` live keys whose scope is allowed,
        each key scored by its best vector.

        ``allowed`` is indexed by scope code; None allows every scope. With a ``graph``,
        its candidates are read instead of every row, unless the reader's share is too
        small for it (then the scan runs as without one).
        """
        n = self.n
        empty = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if self.live == 0 or limit <= 0:
            return empty
        if graph is not None:
            found = self._approximate(query, limit, allowed, graph)
            if found is not None:
                return found
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

    def visible_rows(self, allowed: Mask | None) -> int:
        """Live rows (vectors) in the scopes ``allowed`` lets through, from the counts."""
        if allowed is None:
            return self.live
        m = min(allowed.shape[0], self.scope_live.shape[0])
        return int(self.scope_live[:m][allowed[:m]].sum())

    def _approximate(
        self, query: F32, limit: int, allowed: Mask | None, graph: Approximate
    ) -> tuple[I64, F32] | None:
        """The graph's candidates and the rows written since it was built, rescored
        exactly; None when the reader's share needs more than ``APPROX_MAX_READ``."""
        visible = self.visible_rows(allowed)
        if visible == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        widen = self.live / visible
        count = int(np.ceil(limit * self.per_key * _OVERSAMPLE * widen)) + _SPARE
        expansion = max(count, int(np.ceil(EXPANSION_SEARCH * widen)))
        if expansion > APPROX_MAX_READ:
            return None
        fresh = graph.fresh
        fresh = fresh[self.alive[fresh]]
        while True:
            near = graph.candidates(query, count, max(expansion, count))
            found = [s for key in near.tolist() for s in self._slots.get(key, ())]
            slots = np.union1d(np.asarray(found, dtype=np.intp), fresh)
            if allowed is not None:
                slots = slots[allowed[self.scopes[slots]]]
            scores: F32 = self.vectors[slots] @ query
            keys, best = self._best_keys(slots, scores, limit)
            if keys.shape[0] >= limit or count >= len(graph):
                return keys, best
            count *= 2  # rows the reader may not see, or no longer there: read further
            if count > 4 * APPROX_MAX_READ:
                return None

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
        vectors can fill many rows) and more rows are visible. A reader who sees a small
        share has their rows gathered and only those scanned."""
        rows = (
            np.flatnonzero(mask) if mask is not None and visible < _GATHER_BELOW * self.n else None
        )
        take = _RESCORE_FACTOR * limit
        while True:
            slots = self._int8_best(query, mask, rows, take)
            slots.sort()  # slot order, so that equal scores rank as the exact path does
            scores: F32 = self.vectors[slots] @ query
            keys, best = self._best_keys(slots, scores, limit)
            if self.per_key == 1 or keys.shape[0] >= limit or take >= visible:
                return keys, best
            take *= self.per_key

    def _int8_best(self, query: F32, mask: Mask | None, rows: Slots | None, limit: int) -> Slots:
        """The ``max(limit, 256)`` slots that ``mask`` lets through with the best int8 dot;
        only ``rows`` are scanned when given (they are the slots ``mask`` lets through)."""
        peak = float(np.abs(query).max()) or 1.0
        q = np.rint(query * (_I8_MAX / peak)).astype(np.int8).reshape(1, -1)
        codes, scales = (
            (self.codes[: self.n], self.scales[: self.n])
            if rows is None
            else (self.codes[rows], self.scales[rows])
        )
        dots = numkong.cdist(q, codes, metric="dot", out_dtype="float32")
        approx: F32 = np.asarray(dots, dtype=np.float32).reshape(-1) * scales
        if rows is None and mask is not None:
            approx[~mask] = -np.inf
        take = min(max(limit, _RESCORE_MIN), approx.shape[0])
        best = np.argpartition(-approx, take - 1)[:take]
        if rows is not None:
            return rows[best]
        return best if mask is None else best[mask[best]]

    # -- the graph's inputs ---------------------------------------------------------------

    def live_rows(self) -> tuple[I64, NDArray[np.float16]]:
        """Every live row's key and its vector in f16: what a graph is built from."""
        slots = np.flatnonzero(self.alive[: self.n])
        return self.keys[slots].copy(), self.vectors[slots].astype(np.float16)

    def written_after(self, seq: int) -> Slots:
        """Live slots whose row was read at a ``vec_seq`` past ``seq``."""
        return np.flatnonzero(self.alive[: self.n] & (self.seqs[: self.n] > seq))

    def vectors_of(self, key: int, at_most_seq: int) -> F32 | None:
        """The key's vectors if it is live and unchanged since ``at_most_seq``."""
        slots = self._slots.get(key)
        if slots is None or int(self.seqs[slots].max()) > at_most_seq:
            return None
        return self.vectors[slots]


def _grown(array: NDArray[Any], cap: int) -> NDArray[Any]:
    out = np.zeros((cap, *array.shape[1:]), dtype=array.dtype)
    out[: array.shape[0]] = array
    return out
