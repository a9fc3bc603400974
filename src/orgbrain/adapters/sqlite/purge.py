"""The embedded store's side of forgetting (``sql/purge.py``): dropping rows with their
vectors, and after an erase leaving no erased word in the database's files.

Deleted rows leave their bytes behind in three places SQLite does not clean by itself:
freed pages and cells (``secure_delete``, set on every connection in ``db.py``, zeroes
them), FTS5 segments (a deletion is a new segment that masks the old one, which still
holds the words until the segments are merged: ``optimize`` merges them all), and the
WAL, whose frames keep every page image written since the last checkpoint (a ``TRUNCATE``
checkpoint empties it). Optimising costs a pass over the keyword index, which an erase
(rare, and asked for) pays; a reader holding an old snapshot at that moment keeps the
WAL until it finishes, and the next erase's checkpoint empties it.
"""

from __future__ import annotations

import sqlite3
from abc import abstractmethod
from collections.abc import Sequence

from ..sql.dialect import Connection
from ..sql.purge import Purge as SharedPurge

__all__ = ["Purge"]


class Purge(SharedPurge):
    @abstractmethod
    def _conn(self) -> sqlite3.Connection: ...

    @abstractmethod
    def _log_vec_delete(self, conn: sqlite3.Connection, workspace: str, rowid: int) -> None: ...

    def purge_derived(self, workspace: str, item_ids: Sequence[str], *, erase: bool) -> list[str]:
        dropped = super().purge_derived(workspace, item_ids, erase=erase)
        if erase:
            with self._tx() as conn:
                conn.execute("INSERT INTO items_fts (items_fts) VALUES ('optimize')")
            self._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return dropped

    def _drop_items(self, conn: Connection, workspace: str, ids: Sequence[str]) -> None:
        assert isinstance(conn, sqlite3.Connection)
        for item_id in ids:
            row = conn.execute(
                "SELECT rowid, embedding IS NOT NULL AS had_vec FROM items "
                "WHERE workspace = ? AND id = ?",
                (workspace, item_id),
            ).fetchone()
            conn.execute(
                "DELETE FROM edges WHERE workspace = ? AND (src = ? OR dst = ?)",
                (workspace, item_id, item_id),
            )
            if row is None:
                continue
            conn.execute("DELETE FROM items WHERE rowid = ?", (row["rowid"],))
            if row["had_vec"]:
                self._log_vec_delete(conn, workspace, int(row["rowid"]))
