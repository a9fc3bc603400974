"""The embedded default store: one SQLite file, WAL, synchronous=FULL, FTS5, a vector index
(exact, or through an HNSW graph kept beside the file for large shelves)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np

from ...errors import Conflict, InvalidInput, Unavailable
from ...ids import new_id
from ...model import Edge, Item, ItemSketch, Origin, StorageClass, utcnow
from ...ports import Owed, ScoredId, Vector
from ...scopes import Visibility
from ..sql.items import ItemReads
from ..sql.outbox import Outbox
from ..sql.proposals import Proposals
from ..sql.rows import SKETCH_SELECT
from ..sql.sectionkeys import check_section_keys
from ..sql.statements import Statements
from ..sql.versions import OLD_ROW_COLUMNS, Versions
from .db import Database
from .graphlog import EdgesAndLog
from .itemcache import BATCH, ItemCache
from .keywords import KeywordIndex
from .moves import SpaceMoves
from .purge import Purge
from .rollups import Rollups
from .rows import (
    DIALECT,
    ITEM_COLUMNS,
    ROWS,
    item_from_row,
    item_values,
)
from .schema import migrate
from .shelf import APPROX_ABOVE
from .snapshot import watermark
from .transfer import Transfer
from .vectors import VectorIndex

__all__ = ["KeywordEngine", "SQLiteStore"]

KeywordEngine = Literal["tantivy", "fts5"]

MAX_VECTORS = 64
"""The most vectors one item's embedding may hold (its own and its passages')."""
VEC_LOG_KEEP = 100_000
"""How many ``vec_seq`` steps of removals ``vec_deleted`` keeps; a reader that last looked
longer ago reloads its index from the rows (``vector_floor`` in ``meta``)."""

_INSERT_ITEM = (
    f"INSERT INTO items ({', '.join(ITEM_COLUMNS)}) "
    f"VALUES ({', '.join(':' + c for c in ITEM_COLUMNS)})"
)
_UPDATE_ITEM = (
    "UPDATE items SET "
    + ", ".join(f"{c} = :{c}" for c in ITEM_COLUMNS if c not in ("id", "workspace", "created_at"))
    # Keys were chosen for the scope the item had and for a live item (``set_keys``): a
    # move to another scope or a tombstone drops them (the old values are read here).
    + ", keys = iif(scope IS :scope AND :tombstoned_at IS NULL, keys, '')"
    + " WHERE rowid = :rowid"
)

_OLD_CONTENT = ", ".join(OLD_ROW_COLUMNS)
_ITEM_SELECT = ", ".join(ITEM_COLUMNS)


class SQLiteStore(
    EdgesAndLog,
    ItemReads,
    Rollups,
    Statements,
    Versions,
    Proposals,
    Purge,
    Transfer,
    SpaceMoves,
    Outbox,
):
    """The embedded store. ``keyword_engine`` picks what ranks keyword streams: ``tantivy``
    (the default; a derived in-RAM index, see keywords.py) or ``fts5`` (SQLite's own index,
    kept up to date either way, so a brain opens under both)."""

    _dialect = DIALECT

    def __init__(
        self,
        path: str | Path,
        *,
        timeout: float = 30.0,
        keyword_engine: KeywordEngine = "tantivy",
        approx_above: int = APPROX_ABOVE,
    ) -> None:
        if keyword_engine not in get_args(KeywordEngine):
            raise InvalidInput(f"unknown keyword engine {keyword_engine!r}: use tantivy or fts5")
        self.path = Path(path)
        self.keyword_engine = keyword_engine
        self._keywords: dict[str, KeywordIndex] = {}
        self._db = Database(self.path, timeout=timeout, what="store")
        self._vectors: dict[str, VectorIndex] = {}
        self._approx_above = approx_above
        # Reads by id, held while no item changes (itemcache.py).
        self._items = ItemCache(self._load_items)
        self._sketches = ItemCache(self._load_sketches)
        migrate(self._conn())
        with self._tx() as conn:
            conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('vec_seq', '0')")
        row = self._conn().execute("SELECT value FROM meta WHERE key = 'embedding_dim'").fetchone()
        self.embedding_dim: int | None = int(row[0]) if row else None
        self.read_only = False  # one file, opened for writing
        self._vec_floor = watermark(self._conn(), "vector_floor")

    # -- connections -------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        return self._db.conn()

    def _read(self) -> AbstractContextManager[sqlite3.Connection]:
        return nullcontext(self._conn())

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return self._db.tx()

    def _lazy_tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return self._db.tx(durable=False)

    def close(self) -> None:
        for index in self._vectors.values():
            index.close()
        self._db.close()
        self._keywords.clear()
        self._vectors.clear()

    # -- items --------------------------------------------------------------------------

    def put_item(self, item: Item, embedding: Vector | None = None) -> Item:
        with self._tx() as conn:
            return self._put(conn, item, embedding)

    def put_items(
        self,
        items: Sequence[tuple[Item, Vector | None]],
        *,
        supersede: Sequence[Edge] = (),
        owed: Owed | None = None,
    ) -> list[Item]:
        with self._tx() as conn:
            stored = [self._put(conn, item, vec) for item, vec in items]
            return self._commit_with(conn, [i for i, _ in items], stored, supersede, owed)

    def _put(self, conn: sqlite3.Connection, item: Item, embedding: Vector | None) -> Item:
        now = utcnow()
        values = item_values(item)
        values["updated_at"] = now.isoformat()
        # The row of this key; else the row of this id (the same item put in another scope:
        # its key moves with it). One lookup, the key's row first.
        old = conn.execute(
            "SELECT rowid, id, created_at, embedding IS NOT NULL AS had_vec, "
            f"{_OLD_CONTENT} FROM items WHERE workspace = ? AND (source_key = ? OR id = ?) "
            "ORDER BY source_key = ? DESC LIMIT 1",
            (item.workspace, values["source_key"], item.id, values["source_key"]),
        ).fetchone()
        # Out of answers (unindexed or tombstoned): no vector, and its removal is logged.
        answerable = item.indexed and item.tombstoned_at is None
        blob = self._vector_blob(embedding) if answerable else None
        if old is None:
            values["created_at"] = (item.created_at or now).isoformat()
            cur = conn.execute(_INSERT_ITEM, values)
            rowid = int(cur.lastrowid or 0)
            had_vec = False
        else:
            values.update(rowid=old["rowid"], id=old["id"], created_at=old["created_at"])
            # Supersession is set once and never moved (``supersede_item``): a new version
            # of either end keeps its links.
            for link in ("supersedes", "superseded_by"):
                values[link] = values[link] or old[link]
            # What the row held before is kept, in this transaction, if this replaces it.
            self._keep_version(conn, item.workspace, old["id"], old, values, now)
            conn.execute(_UPDATE_ITEM, values)
            rowid, had_vec = int(old["rowid"]), bool(old["had_vec"])
        if blob is not None:
            conn.execute(
                "UPDATE items SET embedding = ?, vec_seq = ? WHERE rowid = ?",
                (blob, self._next_seq(conn), rowid),
            )
        elif had_vec:
            conn.execute("UPDATE items SET embedding = NULL WHERE rowid = ?", (rowid,))
            self._log_vec_delete(conn, item.workspace, rowid)
        row = conn.execute("SELECT * FROM items WHERE rowid = ?", (rowid,)).fetchone()
        return item_from_row(row)

    def _vector_blob(self, embedding: Vector | None) -> bytes | None:
        if embedding is None:
            return None
        vec = np.asarray(embedding, dtype=np.float32)
        dim = int(vec.shape[-1]) if vec.ndim else 0
        if vec.ndim not in (1, 2) or dim == 0 or vec.size == 0:
            raise InvalidInput("an embedding is one vector, or one row per vector")
        if self.embedding_dim is not None and dim != self.embedding_dim:
            raise InvalidInput(f"embedding has {dim} dims, brain has {self.embedding_dim}")
        rows = vec.reshape(-1, dim)
        if rows.shape[0] > MAX_VECTORS:
            raise InvalidInput(f"an item holds at most {MAX_VECTORS} vectors, not {rows.shape[0]}")
        if not np.isfinite(rows).all():
            raise InvalidInput("an embedding holds a NaN or an infinity")
        return rows.tobytes()

    @staticmethod
    def _next_seq(conn: sqlite3.Connection) -> int:
        row = conn.execute(
            "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vec_seq' "
            "RETURNING value"
        ).fetchone()
        return int(row[0])

    def _log_vec_delete(self, conn: sqlite3.Connection, workspace: str, rowid: int) -> None:
        seq = self._next_seq(conn)
        conn.execute("INSERT INTO vec_deleted VALUES (?, ?, ?)", (seq, workspace, rowid))
        if seq - self._vec_floor >= 2 * VEC_LOG_KEEP:  # prune now and then, not every time
            self._vec_floor = seq - VEC_LOG_KEEP
            conn.execute("DELETE FROM vec_deleted WHERE seq <= ?", (self._vec_floor,))
            conn.execute(
                "INSERT INTO meta VALUES ('vector_floor', ?) ON CONFLICT (key) DO UPDATE "
                "SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))",
                (str(self._vec_floor),),
            )

    def get_items(
        self, workspace: str, ids: Sequence[str], visibility: Visibility
    ) -> dict[str, Item]:
        return self._items.read(self._conn(), workspace, ids, visibility)

    def item_sketches(
        self, workspace: str, ids: Sequence[str], visibility: Visibility
    ) -> dict[str, ItemSketch]:
        return self._sketches.read(self._conn(), workspace, ids, visibility)

    def _load_items(self, workspace: str, ids: Sequence[str]) -> dict[str, Item]:
        # The item's columns only (not its embedding), read as plain tuples and named in
        # a dict: ~40% cheaper than sqlite3.Row's lookups for a search's 100 candidates.
        rows = self._rows_by_id(_ITEM_SELECT, workspace, ids)
        out: dict[str, Item] = {}
        for row in rows:
            item = item_from_row(dict(zip(ITEM_COLUMNS, row, strict=True)))
            out[item.id] = item
        return out

    def _load_sketches(self, workspace: str, ids: Sequence[str]) -> dict[str, ItemSketch]:
        sketch = ROWS.sketch
        return {row[0]: sketch(row) for row in self._rows_by_id(SKETCH_SELECT, workspace, ids)}

    def _rows_by_id(
        self, columns: str, workspace: str, ids: Sequence[str]
    ) -> list[tuple[Any, ...]]:
        """``columns`` of the items ``ids`` (distinct) names, whatever their scope, as
        plain tuples (fetched whole: a generator's step a row cost a fifth of a search's
        100 candidates' read)."""
        cursor = self._conn().cursor()
        cursor.row_factory = None
        rows: list[tuple[Any, ...]] = []
        for i in range(0, len(ids), BATCH):
            batch = ids[i : i + BATCH]
            sql = (
                # `+workspace`: look rows up by id, never by scanning the workspace's index.
                f"SELECT {columns} FROM items WHERE +workspace = ? "
                f"AND id IN ({', '.join('?' * len(batch))})"
            )
            rows += cursor.execute(sql, [workspace, *batch]).fetchall()
        return rows

    def embedding_of(self, workspace: str, item_id: str) -> Vector | None:
        """The item's vectors, one row each: its own first, then its passages'."""
        row = (
            self._conn()
            .execute(
                "SELECT embedding FROM items WHERE workspace = ? AND id = ?", (workspace, item_id)
            )
            .fetchone()
        )
        if row is None or row[0] is None:
            return None
        flat = np.frombuffer(row[0], dtype=np.float32)
        return flat.reshape(-1, self.embedding_dim or flat.shape[0]).copy()

    def commit_index(
        self,
        file: Item,
        file_embedding: Vector | None,
        sections: Sequence[tuple[Item, Vector]],
        edge_origin_actor: str,
        *,
        owed: Owed | None = None,
    ) -> list[Item]:
        with self._tx() as conn:
            # Only the version that was read may be marked indexed: a file re-added while
            # it was indexed keeps its new bytes, unindexed, for the next run.
            current = conn.execute(
                "SELECT content_hash, blob_key, tombstoned_at FROM items "
                "WHERE workspace = ? AND id = ?",
                (file.workspace, file.id),
            ).fetchone()
            # A file forgotten meanwhile stays forgotten (its row is not written back).
            if (
                current is None
                or current["tombstoned_at"] is not None
                or (current["content_hash"], current["blob_key"])
                != (file.content_hash, file.blob_key)
            ):
                raise Conflict(
                    f"{file.id} changed while it was being indexed; its new version waits"
                )
            check_section_keys(conn, self._dialect, file, [s for s, _ in sections])
            stored_file = self._put(conn, file, file_embedding)
            stored: list[Item] = []
            keep: set[str] = set()
            for section, vec in sections:
                s = self._put(conn, section, vec)
                stored.append(s)
                keep.add(s.id)
                self._put_edge(
                    conn,
                    Edge(
                        id=new_id("edg"),
                        workspace=file.workspace,
                        type="HAS_SECTION",
                        src=stored_file.id,
                        dst=s.id,
                        origin=Origin(edge_origin_actor, "index", utcnow()),
                    ),
                )
            stale = [
                r["id"]
                for r in conn.execute(
                    "SELECT id FROM items WHERE workspace = ? AND parent_id = ? "
                    "AND class = 'section'",
                    (file.workspace, stored_file.id),
                )
                if r["id"] not in keep
            ]
            self._drop_items(conn, file.workspace, stale)
            self._owe(conn, owed, stored)
            return stored

    def set_keys(self, workspace: str, keys: Mapping[str, str]) -> None:
        with self._tx() as conn:
            # Unchanged keys are not written: the keyword index catches up only on changes.
            conn.executemany(
                "UPDATE items SET keys = ? WHERE +workspace = ? AND id = ? AND keys IS NOT ?",
                [(text, workspace, item_id, text) for item_id, text in sorted(keys.items())],
            )

    def unindex_children(self, workspace: str, parent_id: str) -> None:
        """Take a file's sections out of answers (its bytes changed; reindex brings them back)."""
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT rowid FROM items WHERE workspace = ? AND parent_id = ? "
                "AND embedding IS NOT NULL",
                (workspace, parent_id),
            ).fetchall()
            conn.execute(
                "UPDATE items SET indexed = 0, embedding = NULL "
                "WHERE workspace = ? AND parent_id = ?",
                (workspace, parent_id),
            )
            for r in rows:
                self._log_vec_delete(conn, workspace, int(r[0]))

    # -- search -------------------------------------------------------------------------

    def keyword_search(
        self,
        workspace: str,
        storage_class: StorageClass,
        terms: Sequence[str],
        limit: int,
        visibility: Visibility,
    ) -> list[ScoredId]:
        if not terms:
            return []
        if self.keyword_engine == "tantivy":
            index = self._keywords.get(workspace)
            if index is None:
                index = self._keywords.setdefault(workspace, KeywordIndex(workspace))
            return index.search(self._conn(), storage_class, terms, limit, visibility.scopes)
        phrases = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        match = f"ws:{_token(workspace)} AND cls:{_token(storage_class)} AND ({phrases})"
        if visibility.scopes is not None:
            if not visibility.scopes:
                return []
            match += f" AND sc:({' OR '.join(_token(s) for s in sorted(visibility.scopes))})"
        sql = (
            "SELECT i.id, f.rank FROM ("
            "SELECT rowid, bm25(items_fts, 0, 0, 0, 1.0, 1.0) AS rank FROM items_fts "
            "WHERE items_fts MATCH ? ORDER BY rank LIMIT ?"
            ") f JOIN items i ON i.rowid = f.rowid ORDER BY f.rank"
        )
        try:
            rows = self._conn().execute(sql, [match, limit]).fetchall()
        except sqlite3.OperationalError as exc:
            raise Unavailable(f"keyword search failed: {exc}") from exc
        return [(r[0], -float(r[1])) for r in rows]

    def vector_search(
        self,
        workspace: str,
        storage_class: StorageClass,
        vector: Vector,
        limit: int,
        visibility: Visibility,
    ) -> list[ScoredId]:
        dim = self.embedding_dim or int(vector.shape[0])
        index = self._vectors.get(workspace)
        if index is None:
            index = self._vectors.setdefault(
                workspace,
                VectorIndex(workspace, dim, approx_above=self._approx_above, path=self.path),
            )
        vec = np.asarray(vector, dtype=np.float32).reshape(-1)
        return index.search(self._conn(), storage_class, vec, limit, visibility.scopes)

    def settle_vectors(self, timeout: float | None = None) -> bool:
        """Wait for approximate vector graphs being loaded or built (benchmarks and tests
        want the steady state); True if any was."""
        return any([index.settle(timeout) for index in list(self._vectors.values())])


def _token(value: str) -> str:
    """The opaque FTS token for a workspace, class or scope (see migration 0003)."""
    return "x" + value.encode().hex()
