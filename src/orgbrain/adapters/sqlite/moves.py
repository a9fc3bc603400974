"""The brain's embedding space (``space.py``) and moving it to another: one part of
``SQLiteStore``.

The space is recorded in ``meta`` (``embedding_space``, JSON; ``embedding_dim`` beside it
for the vector code). A move (``orgbrain reembed``) records its target as
``embedding_space_next`` and writes each item's new vectors beside the old ones, in
``vectors_next``, stamped with the ``vec_seq`` of the old vectors they replace: an item
written again during the move has a newer ``vec_seq``, so it is embedded again. Searches
read only ``items.embedding`` meanwhile. ``finish_move`` swaps every vector and the record
in one transaction, and only when no item is left behind.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...model import Item
from ...ports import Vector
from ...space import EmbeddingSpace, check_space, check_stored_width, space_of
from ..sql.rows import ITEM_COLUMNS
from .rows import item_from_row

__all__ = ["SPACE_MIGRATION", "SpaceMoves"]

SPACE_MIGRATION = (
    # Brains recorded only the model and dimension of their first embedder; the space
    # adds its prefixes (none, for every model before this). vectors_next holds a move's
    # new vectors; a row gone from items, or out of answers, takes its new vector along.
    "0017_embedding_space",
    """
    INSERT OR IGNORE INTO meta (key, value)
        SELECT 'embedding_space', json_object(
            'model', coalesce((SELECT value FROM meta WHERE key = 'embedding_model'), ''),
            'dim', CAST(value AS INTEGER), 'query_prefix', '', 'passage_prefix', '')
        FROM meta WHERE key = 'embedding_dim';
    DELETE FROM meta WHERE key = 'embedding_model';
    CREATE TABLE vectors_next (
        item_rowid INTEGER PRIMARY KEY,
        vec_seq INTEGER NOT NULL,
        embedding BLOB NOT NULL
    );
    CREATE TRIGGER vectors_next_delete AFTER DELETE ON items BEGIN
        DELETE FROM vectors_next WHERE item_rowid = old.rowid;
    END;
    CREATE TRIGGER vectors_next_cleared AFTER UPDATE OF embedding ON items
    WHEN new.embedding IS NULL BEGIN
        DELETE FROM vectors_next WHERE item_rowid = old.rowid;
    END;
    """,
)

_COLUMNS = ", ".join(f"i.{c}" for c in ITEM_COLUMNS)
# Items whose vectors the move has not written yet in the new space, or wrote for vectors
# that have changed since.
_BEHIND = (
    "FROM items i LEFT JOIN vectors_next n ON n.item_rowid = i.rowid "
    "WHERE i.embedding IS NOT NULL AND (n.item_rowid IS NULL OR n.vec_seq <> i.vec_seq)"
)


def _recorded(conn: sqlite3.Connection, key: str) -> EmbeddingSpace | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return EmbeddingSpace.from_json(row[0]) if row else None


class SpaceMoves(ABC):
    embedding_dim: int | None
    _vectors: dict[str, Any]

    @abstractmethod
    def _conn(self) -> sqlite3.Connection: ...

    @abstractmethod
    def _tx(self) -> Any: ...

    @abstractmethod
    def _next_seq(self, conn: sqlite3.Connection) -> int: ...

    def bind_embedder(self, name: str, dim: int, prefixes: tuple[str, str] = ("", "")) -> None:
        """Record the embedding space when the brain has none (created now, or written
        before spaces were recorded: its stored vectors must then have this dimension);
        refuse an embedder of another space than the recorded one."""
        wanted = space_of(name, dim, prefixes)
        recorded = _recorded(self._conn(), "embedding_space")
        if recorded is None:
            with self._tx() as conn:
                recorded = _recorded(conn, "embedding_space")
                if recorded is None:
                    first = conn.execute(
                        "SELECT length(embedding) FROM items WHERE embedding IS NOT NULL LIMIT 1"
                    ).fetchone()
                    check_stored_width(first[0] // 4 if first else None, wanted)
                    self._record_space(conn, wanted)
                    recorded = wanted
        check_space(recorded, wanted)
        self.embedding_dim = recorded.dim

    @staticmethod
    def _record_space(conn: sqlite3.Connection, space: EmbeddingSpace) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO meta VALUES ('embedding_space', ?), ('embedding_dim', ?)",
            (space.to_json(), str(space.dim)),
        )

    def embedding_space(self) -> EmbeddingSpace | None:
        return _recorded(self._conn(), "embedding_space")

    def move_target(self) -> EmbeddingSpace | None:
        """The space a move underway goes to, or None."""
        return _recorded(self._conn(), "embedding_space_next")

    def begin_move(self, target: EmbeddingSpace) -> None:
        """Record ``target`` as the move's; a move to another target drops its vectors."""
        with self._tx() as conn:
            if _recorded(conn, "embedding_space_next") == target:
                return
            conn.execute("DELETE FROM vectors_next")
            conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('embedding_space_next', ?)",
                (target.to_json(),),
            )

    def items_to_move(self, after: int, limit: int) -> list[tuple[int, int, int, Item]]:
        """Up to ``limit`` items (every workspace) past rowid ``after`` that the move has
        not embedded, as (rowid, vec_seq, vectors held, item)."""
        cursor = self._conn().cursor()
        cursor.row_factory = None
        rows = cursor.execute(
            f"SELECT i.rowid, i.vec_seq, length(i.embedding), {_COLUMNS} {_BEHIND} "
            "AND i.rowid > ? ORDER BY i.rowid LIMIT ?",
            (after, limit),
        ).fetchall()
        dim = self.embedding_dim or 1
        return [
            (
                int(r[0]),
                int(r[1]),
                int(r[2]) // (4 * dim),
                item_from_row(dict(zip(ITEM_COLUMNS, r[3:], strict=True))),
            )
            for r in rows
        ]

    def count_to_move(self) -> int:
        row = self._conn().execute(f"SELECT count(*) {_BEHIND}").fetchone()
        return int(row[0])

    def put_moved(self, moved: Sequence[tuple[int, int, Vector]]) -> None:
        """The new vectors of items (rowid, the vec_seq they were embedded at, vectors)."""
        rows = [(rowid, seq, np.asarray(v, dtype=np.float32).tobytes()) for rowid, seq, v in moved]
        with self._tx() as conn:
            conn.executemany("INSERT OR REPLACE INTO vectors_next VALUES (?, ?, ?)", rows)

    def finish_move(self) -> bool:
        """Switch to the target space if every item has its new vectors: all of them and
        the record in one transaction, the old vectors dropped. False if some are behind
        (written during the move): embed those, then finish again."""
        with self._tx() as conn:
            target = _recorded(conn, "embedding_space_next")
            if target is None:
                return True
            if conn.execute(f"SELECT 1 {_BEHIND} LIMIT 1").fetchone():
                return False
            seq = self._next_seq(conn)  # every vector changed: each index reloads them
            conn.execute(
                "UPDATE items SET embedding = (SELECT n.embedding FROM vectors_next n "
                "WHERE n.item_rowid = items.rowid), vec_seq = ? WHERE embedding IS NOT NULL",
                (seq,),
            )
            conn.execute("DELETE FROM vectors_next")
            conn.execute("DELETE FROM meta WHERE key = 'embedding_space_next'")
            self._record_space(conn, target)
        self.embedding_dim = target.dim
        for index in self._vectors.values():  # built for the old dimension
            index.close()
        self._vectors.clear()
        return True
