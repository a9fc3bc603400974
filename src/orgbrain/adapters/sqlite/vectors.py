"""A cosine index over one workspace's answerable embeddings, caught up from SQLite rows.

SQLite rows are the source of truth; this is a cache. Every write that changes an embedding
stamps the row with a fresh ``vec_seq`` (and a removal is logged in ``vec_deleted``), so
catching up reads only what changed since the last look, including what other processes
wrote. The removal log keeps the last ``VEC_LOG_KEEP`` steps; an index that last looked
before ``vector_floor`` reloads from the rows. The shelves are not persisted: after a crash
or a restart they are reloaded from the rows on the first search, so there is nothing to
repair.

A shelf of more than ``approx_above`` live rows is searched through an HNSW graph once one
is ready (``tier.py``; the graph is the one thing kept beside the database, and only to
spare a restart its build, so a lost or doubtful graph file only means a rebuild while the
exact scan answers).

The rows of each storage class live on their own ``Shelf`` (``shelf.py``, which also says
how a shelf is searched), so a search never scans or masks another class. An item's
embedding blob may hold several vectors, its own then its passages' (``indexer.passages``);
each is a row of the shelf, and the item scores its best.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Collection, Iterable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ...errors import InvalidInput
from ...model import STORAGE_CLASSES
from .graph import GraphFile
from .shelf import APPROX_ABOVE, EXACT_BELOW, Shelf
from .snapshot import read_snapshot, watermark
from .tier import Tier

__all__ = ["VectorIndex"]

Mask = NDArray[np.bool_]


class VectorIndex:
    """Cosine search over one workspace's indexed embeddings, one shelf per storage class."""

    def __init__(
        self,
        workspace: str,
        dim: int,
        *,
        exact_below: int = EXACT_BELOW,
        approx_above: int = APPROX_ABOVE,
        path: Path | None = None,
    ) -> None:
        """``path`` is the database's: its graphs are kept beside it (not kept without)."""
        self.workspace = workspace
        self.dim = dim
        self._lock = threading.Lock()
        self._seq = -1
        self._exact_below = exact_below
        self._approx_above = approx_above
        self._path = path
        self._tiers: dict[int, Tier] = {}
        self._shelves = [Shelf(dim, exact_below) for _ in STORAGE_CLASSES]
        self._class_code: dict[str, int] = {c: i for i, c in enumerate(STORAGE_CLASSES)}
        self._shelf_of: dict[int, int] = {}
        self._item_ids: dict[int, str] = {}
        self._scope_codes: dict[str, int] = {}

    def __len__(self) -> int:
        return sum(len(s) for s in self._shelves)

    def search(
        self,
        conn: sqlite3.Connection,
        storage_class: str,
        vector: NDArray[np.float32],
        limit: int,
        scopes: Collection[str] | None,
    ) -> list[tuple[str, float]]:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise InvalidInput(f"query has {query.shape[0]} dims, the index has {self.dim}")
        with self._lock:
            self._catch_up(conn)
            code = self._class_code.get(storage_class)
            if code is None or limit <= 0:
                return []
            allowed: Mask | None = None
            if scopes is not None:
                allowed = np.zeros(max(len(self._scope_codes), 1), dtype=bool)
                known = [self._scope_codes[s] for s in scopes if s in self._scope_codes]
                if not known:
                    return []
                allowed[known] = True
            shelf = self._shelves[code]
            graph = self._tier(code).usable(shelf, self._seq) if self._large(shelf) else None
            keys, scores = shelf.top(query, limit, allowed, graph)
            ids = self._item_ids
            # As Python numbers first: a numpy scalar's int() and float() cost more.
            return [(ids[k], s) for k, s in zip(keys.tolist(), scores.tolist(), strict=True)]

    # -- the approximate tier --------------------------------------------------------------

    def _large(self, shelf: Shelf) -> bool:
        return shelf.live > self._approx_above

    def _tier(self, code: int) -> Tier:
        tier = self._tiers.get(code)
        if tier is None:
            cls = STORAGE_CLASSES[code]
            file = (
                GraphFile(self._path, self.workspace, cls, self.dim)
                if self._path is not None
                else None
            )

            def snapshot() -> tuple[NDArray[np.int64], NDArray[np.float16], int]:
                keys, vectors = self._shelves[code].live_rows()
                return keys, vectors, self._seq

            tier = self._tiers[code] = Tier(file, self._lock, snapshot, self._approx_above)
        return tier

    def graph_rows(self, storage_class: str) -> int:
        """Vectors in the graph that searches of ``storage_class`` read (0: exact scan)."""
        with self._lock:
            code = self._class_code.get(storage_class)
            tier = self._tiers.get(code) if code is not None else None
            return len(tier) if tier is not None else 0

    def settle(self, timeout: float | None = None) -> bool:
        """Wait for graphs being loaded or built; True if any was. The next search
        installs them."""
        return any([tier.settle(timeout) for tier in list(self._tiers.values())])

    def close(self) -> None:
        """Stop a graph build between chunks (a process on its way out)."""
        for tier in list(self._tiers.values()):
            tier.close()

    # -- catching up from SQLite ---------------------------------------------------------

    def _catch_up(self, conn: sqlite3.Connection) -> None:
        with read_snapshot(conn):  # the watermark and the rows are one snapshot
            seq = watermark(conn, "vec_seq")
            if seq == self._seq:
                return
            if seq < self._seq:  # the file was replaced by an older one: start again
                self._reset()
            if 0 <= self._seq < watermark(conn, "vector_floor"):
                self._reset()  # removals since our last look were pruned: reload the rows
            since = self._seq
            if since >= 0:
                deleted = conn.execute(
                    "SELECT item_rowid FROM vec_deleted WHERE workspace = ? AND seq > ?",
                    (self.workspace, since),
                ).fetchall()
                for (rowid,) in deleted:
                    self._remove(int(rowid))
            # The unary + keeps SQLite off the workspace indexes: a catch-up walks the
            # items_vec_seq index from the watermark, and the first load scans the table.
            changed = "+workspace = ? AND embedding IS NOT NULL AND indexed = 1"
            params: tuple[object, ...] = (self.workspace,)
            if since >= 0:
                changed += " AND vec_seq > ?"
                params += (since,)
            counts = conn.execute(
                f"SELECT class, count(*) FROM items WHERE {changed} GROUP BY class", params
            ).fetchall()
            for cls, count in counts:  # grow each shelf once, not once per batch
                code = self._class_code.get(cls)
                if code is not None:
                    self._shelves[code].reserve(self._shelves[code].n + int(count))
            cursor = conn.execute(
                f"SELECT rowid, id, class, scope, embedding, vec_seq FROM items WHERE {changed}",
                params,
            )
            while batch := cursor.fetchmany(8192):
                self._upsert(batch)
        self._seq = seq
        for shelf in self._shelves:
            shelf.compact_if_sparse()

    def _upsert(self, rows: Iterable[tuple[int, str, str, str, bytes, int]]) -> None:
        by_class: dict[int, tuple[list[int], list[bytes], list[int], list[int]]] = {}
        expected = self.dim * 4
        for rowid, item_id, cls, scope, blob, seq in rows:
            rowid = int(rowid)
            code = self._class_code.get(cls)
            if code is None or not blob or len(blob) % expected:
                self._remove(rowid)
                continue
            old = self._shelf_of.get(rowid)
            if old is not None and old != code:
                self._shelves[old].drop(rowid)
            self._shelf_of[rowid] = code
            self._item_ids[rowid] = item_id
            scope_code = self._scope_codes.setdefault(scope, len(self._scope_codes))
            keys, blobs, scopes, seqs = by_class.setdefault(code, ([], [], [], []))
            rows_of_item = len(blob) // expected  # the item's own, then its passages'
            keys += [rowid] * rows_of_item
            blobs.append(blob)
            scopes += [scope_code] * rows_of_item
            seqs += [int(seq)] * rows_of_item
        for code, (keys, blobs, scopes, seqs) in by_class.items():
            vectors = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(-1, self.dim)
            self._shelves[code].load(
                np.asarray(keys, dtype=np.int64),
                vectors,
                np.asarray(scopes, dtype=np.int32),
                np.asarray(seqs, dtype=np.int64),
            )

    def _reset(self) -> None:
        self._seq = -1
        self._shelves = [Shelf(self.dim, self._exact_below) for _ in STORAGE_CLASSES]
        self._shelf_of.clear()
        self._item_ids.clear()
        self._scope_codes.clear()

    def _remove(self, rowid: int) -> None:
        code = self._shelf_of.pop(rowid, None)
        self._item_ids.pop(rowid, None)
        if code is not None:
            self._shelves[code].drop(rowid)
