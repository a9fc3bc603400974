"""An exact in-memory cosine index over one workspace's answerable embeddings.

SQLite rows are the source of truth; this is a cache caught up from them. Every write that
changes an embedding stamps the row with a fresh ``vec_seq`` (and a removal is logged in
``vec_deleted``), so catching up reads only what changed since the last look, including
what other processes wrote. After a crash there is nothing to repair: the cache is rebuilt.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Collection

import numpy as np
from numpy.typing import NDArray

from ...model import STORAGE_CLASSES

__all__ = ["VectorIndex"]

_CLASS_CODE = {c: i for i, c in enumerate(STORAGE_CLASSES)}


class VectorIndex:
    def __init__(self, workspace: str, dim: int) -> None:
        self.workspace = workspace
        self.dim = dim
        self._lock = threading.Lock()
        self._seq = -1
        self._n = 0
        self._matrix: NDArray[np.float32] = np.zeros((0, dim), dtype=np.float32)
        self._rowids: NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._classes: NDArray[np.int8] = np.zeros(0, dtype=np.int8)
        self._scopes: NDArray[np.int32] = np.zeros(0, dtype=np.int32)
        self._alive: NDArray[np.bool_] = np.zeros(0, dtype=bool)
        self._pos: dict[int, int] = {}
        self._ids: list[str] = []
        self._scope_codes: dict[str, int] = {}

    def search(
        self,
        conn: sqlite3.Connection,
        storage_class: str,
        vector: NDArray[np.float32],
        limit: int,
        scopes: Collection[str] | None,
    ) -> list[tuple[str, float]]:
        with self._lock:
            self._catch_up(conn)
            n = self._n
            if n == 0 or limit <= 0:
                return []
            mask = self._alive[:n] & (self._classes[:n] == _CLASS_CODE[storage_class])
            if scopes is not None:
                codes = [self._scope_codes[s] for s in scopes if s in self._scope_codes]
                mask &= np.isin(self._scopes[:n], np.asarray(codes, dtype=np.int32))
            candidates = np.flatnonzero(mask)
            if candidates.size == 0:
                return []
            if candidates.size * 4 < n:
                scores = self._matrix[candidates] @ vector
            else:
                scores = (self._matrix[:n] @ vector)[candidates]
            take = min(limit, candidates.size)
            top = np.argpartition(-scores, take - 1)[:take]
            top = top[np.argsort(-scores[top], kind="stable")]
            return [(self._ids[int(candidates[i])], float(scores[i])) for i in top]

    def _catch_up(self, conn: sqlite3.Connection) -> None:
        row = conn.execute("SELECT value FROM meta WHERE key = 'vec_seq'").fetchone()
        seq = int(row[0]) if row else 0
        if seq == self._seq:
            return
        since = max(self._seq, 0) if self._seq >= 0 else -1
        for (rowid,) in conn.execute(
            "SELECT item_rowid FROM vec_deleted WHERE workspace = ? AND seq > ?",
            (self.workspace, since),
        ):
            self._remove(int(rowid))
        rows = conn.execute(
            "SELECT rowid, id, class, scope, embedding FROM items "
            "WHERE workspace = ? AND vec_seq > ? AND embedding IS NOT NULL AND indexed = 1",
            (self.workspace, since),
        ).fetchall()
        self._reserve(self._n + len(rows))
        for rowid, item_id, cls, scope, blob in rows:
            self._upsert(int(rowid), item_id, cls, scope, blob)
        self._seq = seq
        if self._n > 1024 and int(self._alive[: self._n].sum()) * 4 < self._n * 3:
            self._compact()

    def _reserve(self, size: int) -> None:
        cap = self._matrix.shape[0]
        if size <= cap:
            return
        new_cap = max(size, cap * 2, 256)
        grow = new_cap - cap
        self._matrix = np.vstack([self._matrix, np.zeros((grow, self.dim), dtype=np.float32)])
        self._rowids = np.concatenate([self._rowids, np.zeros(grow, dtype=np.int64)])
        self._classes = np.concatenate([self._classes, np.zeros(grow, dtype=np.int8)])
        self._scopes = np.concatenate([self._scopes, np.zeros(grow, dtype=np.int32)])
        self._alive = np.concatenate([self._alive, np.zeros(grow, dtype=bool)])

    def _upsert(self, rowid: int, item_id: str, cls: str, scope: str, blob: bytes) -> None:
        vec = np.frombuffer(blob, dtype=np.float32)
        if vec.shape[0] != self.dim:
            return
        pos = self._pos.get(rowid)
        if pos is None:
            pos = self._n
            self._n += 1
            self._pos[rowid] = pos
            self._ids.append(item_id)
        else:
            self._ids[pos] = item_id
        code = self._scope_codes.setdefault(scope, len(self._scope_codes))
        self._matrix[pos] = vec
        self._rowids[pos] = rowid
        self._classes[pos] = _CLASS_CODE.get(cls, 0)
        self._scopes[pos] = code
        self._alive[pos] = True

    def _remove(self, rowid: int) -> None:
        pos = self._pos.pop(rowid, None)
        if pos is not None:
            self._alive[pos] = False

    def _compact(self) -> None:
        keep = np.flatnonzero(self._alive[: self._n])
        self._matrix = self._matrix[keep].copy()
        self._rowids = self._rowids[keep].copy()
        self._classes = self._classes[keep].copy()
        self._scopes = self._scopes[keep].copy()
        self._alive = np.ones(keep.size, dtype=bool)
        self._ids = [self._ids[int(i)] for i in keep]
        self._n = int(keep.size)
        self._pos = {int(r): i for i, r in enumerate(self._rowids)}
