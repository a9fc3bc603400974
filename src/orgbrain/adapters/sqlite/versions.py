"""The store's previous versions of items: one part of ``SQLiteStore``, kept apart like
``graphlog.py``.

Writing a source key again updates its row, and the content the row held before is
copied to ``item_versions`` in the same transaction (``_keep_version``, called by
``SQLiteStore._put``). Only what a writer wrote is versioned: files (their bytes) and
notes (their text). Sections and entities are derived and cut again from their source;
a file's indexing, a tombstone, or a flag (``indexed``, ``superseded_by``) is no new
version. A forgotten row's content is never copied back into view.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Mapping
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from ...model import Version
from ...scopes import Visibility
from ..sql.versions import COPIED, OLD_ROW_COLUMNS, content_changed
from .rows import ROWS

__all__ = ["OLD_ROW_COLUMNS", "Versions"]

_INSERT = (
    f"INSERT INTO item_versions (workspace, item_id, number, {', '.join(COPIED)}, replaced_at) "
    f"VALUES (?, ?, (SELECT coalesce(max(number), 0) + 1 FROM item_versions "
    f"WHERE workspace = ? AND item_id = ?), {', '.join('?' * len(COPIED))}, ?)"
)


class Versions(ABC):
    """Previous versions of files and notes (``model.Version``)."""

    @abstractmethod
    def _conn(self) -> sqlite3.Connection: ...

    @abstractmethod
    def _tx(self) -> AbstractContextManager[sqlite3.Connection]: ...

    def _keep_version(
        self,
        conn: sqlite3.Connection,
        workspace: str,
        item_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        at: datetime,
    ) -> bool:
        """Copy the row's content ``old`` to its versions if ``new`` replaces it; in the
        caller's transaction, so the update and the kept version commit together."""
        if not content_changed(old, new):
            return False
        conn.execute(
            _INSERT,
            (workspace, item_id, workspace, item_id, *(old[c] for c in COPIED), ROWS.time(at)),
        )
        return True

    def versions(self, workspace: str, item_id: str, visibility: Visibility) -> list[Version]:
        sql = (
            "SELECT v.* FROM item_versions v JOIN items i ON i.workspace = v.workspace "
            "AND i.id = v.item_id WHERE v.workspace = ? AND v.item_id = ?"
        )
        params: list[Any] = [workspace, item_id]
        if visibility.scopes is not None:
            sql += f" AND i.scope IN ({', '.join('?' * len(visibility.scopes))})"
            params += sorted(visibility.scopes)
        rows = self._conn().execute(sql + " ORDER BY v.number DESC", params)
        return [ROWS.version_from_row(r) for r in rows]

    def erase_versions(self, workspace: str, item_id: str) -> list[str]:
        """Delete an item's previous versions; return the blob keys they named (raw bytes
        and extracted text) for the caller to delete."""
        with self._tx() as conn:
            rows = conn.execute(
                "DELETE FROM item_versions WHERE workspace = ? AND item_id = ? "
                "RETURNING blob_key, text_key",
                (workspace, item_id),
            ).fetchall()
        return sorted({k for r in rows for k in (r[0], r[1]) if k})
